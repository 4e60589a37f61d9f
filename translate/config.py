"""Start-up validation: every value is checked before any work, and an error names the key, the value and what is
allowed. The encoding, ablation and corpus named by `_target_` are built once here (the encoding on the meta
device, so no memory is spent), so their own checks run before data preparation too."""
from __future__ import annotations

import inspect
import logging
import math
from typing import Any, Callable, Optional

import torch
from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

SECTION_TYPES = (DictConfig, dict)


class ConfigError(ValueError):
    pass


def _get(cfg: DictConfig, key: str) -> Any:
    node: Any = cfg
    walked = []
    for part in key.split("."):
        if walked and not isinstance(node, SECTION_TYPES):
            raise ConfigError(f"{'.'.join(walked)}={node!r} is not allowed: expected a section holding {part}")
        walked.append(part)
        try:
            if isinstance(node, DictConfig) and OmegaConf.is_missing(node, part):
                raise ConfigError(f"{key} is not set (???); give it a value")
            if node is None or part not in node:
                raise ConfigError(f"{key} is missing from the config")
            node = node[part]
        except OmegaConfBaseException as error:  # "???" left unset, or a ${...} that does not resolve
            message = str(error).splitlines()[0]
            raise ConfigError(f"{key} cannot be read: {message}") from None
    return node


def require(cfg: DictConfig, key: str, ok: Callable[[Any], bool], allowed: str, optional: bool = False) -> None:
    value = _get(cfg, key)
    if value is None and optional:
        return
    try:
        good = bool(ok(value))
    except Exception:  # a value of the wrong type makes the test itself fail: that is a "no"
        good = False
    if not good:
        shown = OmegaConf.to_container(value) if isinstance(value, (DictConfig, ListConfig)) else value
        raise ConfigError(f"{key}={shown!r} is not allowed: expected {allowed}")


def is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v) -> bool:
    """A finite int or float (not a bool)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def positive_int(cfg, key, optional=False):
    require(cfg, key, lambda v: is_int(v) and v >= 1, "an integer >= 1", optional)


def in_range(cfg, key, low: float, high: float, high_open: bool = False, optional: bool = False):
    allowed = f"a number in [{low}, {high}{')' if high_open else ']'}"
    require(cfg, key, lambda v: is_num(v) and low <= v and (v < high if high_open else v <= high), allowed, optional)


def one_of(cfg, key, choices):
    require(cfg, key, lambda v: isinstance(v, str) and v in choices, f"one of {list(choices)}")


def is_bool(cfg, key):
    require(cfg, key, lambda v: isinstance(v, bool), "true or false")


def text(cfg, key, optional=False):
    require(cfg, key, lambda v: isinstance(v, str) and v != "", "a non-empty string", optional)


def section(cfg, key) -> DictConfig:
    require(cfg, key, lambda v: isinstance(v, SECTION_TYPES), "a config section")
    return _get(cfg, key)


def target(cfg, key) -> None:
    require(cfg, f"{key}._target_", lambda v: isinstance(v, str) and "." in v, "a dotted path to a class")


def validate_model(cfg: DictConfig) -> None:
    section(cfg, "model")
    for key in ("d_model", "n_heads", "n_encoder_layers", "n_decoder_layers", "d_ff"):
        positive_int(cfg, f"model.{key}")
    in_range(cfg, "model.dropout", 0, 1, high_open=True)
    in_range(cfg, "model.attention_dropout", 0, 1, high_open=True)
    one_of(cfg, "model.norm_position", ("pre", "post"))
    is_bool(cfg, "model.tie_embeddings")
    d, h = cfg.model.d_model, cfg.model.n_heads
    if d % h:
        divisors = [n for n in range(1, min(d, 64) + 1) if d % n == 0]
        raise ConfigError(f"model.n_heads={h} does not divide model.d_model={d}; allowed n_heads: {divisors}")


def validate_data(cfg: DictConfig) -> None:
    section(cfg, "data")
    text(cfg, "data.path", optional=True)
    text(cfg, "data.cache_dir", optional=True)
    positive_int(cfg, "data.tokenizer.vocab_size")
    one_of(cfg, "data.tokenizer.model_type", ("unigram", "bpe"))
    in_range(cfg, "data.tokenizer.character_coverage", 0.9, 1.0)
    for key in ("train_min_words", "train_max_words", "train_limit", "train_max_pairs", "valid_limit", "test_limit"):
        positive_int(cfg, f"data.{key}", optional=True)
    lo, hi = cfg.data.get("train_min_words"), cfg.data.get("train_max_words")
    if lo is not None and hi is not None and lo > hi:
        raise ConfigError(f"data.train_min_words={lo} is above data.train_max_words={hi}; no pair could be kept")
    if cfg.data.tokenizer.vocab_size < 16:
        raise ConfigError(f"data.tokenizer.vocab_size={cfg.data.tokenizer.vocab_size} is too small: expected >= 16")
    validate_corpus(cfg)


def validate_corpus(cfg: DictConfig) -> None:
    """Settings every corpus class may have, then the class itself is built (its constructor does no I/O)."""
    target(cfg, "data.corpus")
    corpus = cfg.data.corpus
    for key in ("valid_size", "test_size", "max_words", "max_train_pairs"):
        if key in corpus:
            positive_int(cfg, f"data.corpus.{key}", optional=key in ("max_words", "max_train_pairs"))
    if "split_seed" in corpus:
        require(cfg, "data.corpus.split_seed", is_int, "an integer")
    for key in ("train", "valid", "test", "dataset"):
        if key in corpus:
            text(cfg, f"data.corpus.{key}")
    instantiate_checked(corpus, "data.corpus")


def validate_train(cfg: DictConfig) -> None:
    section(cfg, "train")
    for key in ("max_tokens", "max_sentences", "max_steps", "max_epochs", "warmup_steps", "valid_every",
                "log_every", "save_every", "max_bad_steps"):
        positive_int(cfg, f"train.{key}")
    require(cfg, "train.max_minutes", lambda v: is_num(v) and v > 0, "a number of minutes > 0", optional=True)
    require(cfg, "train.lr", lambda v: is_num(v) and 0 < v < 1, "a learning rate in (0, 1)")
    in_range(cfg, "train.label_smoothing", 0, 1, high_open=True)
    in_range(cfg, "train.weight_decay", 0, 1)
    require(cfg, "train.clip_norm", lambda v: is_num(v) and v > 0, "a gradient norm > 0", optional=True)
    require(cfg, "train.betas", lambda v: len(v) == 2 and all(is_num(b) and 0 <= b < 1 for b in v),
            "two numbers in [0, 1)")
    positive_int(cfg, "train.valid_bleu_limit", optional=True)
    require(cfg, "train.resume", lambda v: isinstance(v, str) and v != "", "null, auto or a checkpoint path",
            optional=True)
    one_of(cfg, "train.device", ("auto", "cpu", "cuda", "mps"))
    one_of(cfg, "train.precision", ("auto", "fp32", "bf16"))
    positive_int(cfg, "train.num_threads", optional=True)
    require(cfg, "train.samples", lambda v: is_int(v) and v >= 0, "an integer >= 0")
    is_bool(cfg, "train.compile")
    one_of(cfg, "train.compile_backend", ("inductor", "aot_eager", "eager"))
    require(cfg, "train.pad_shapes", lambda v: v == "auto" or is_bool_value(v), "auto, true or false")
    positive_int(cfg, "train.shape_multiple")
    is_bool(cfg, "train.flex_attention")


def validate_decode(cfg: DictConfig, prefix: str = "decode") -> None:
    section(cfg, prefix)
    positive_int(cfg, f"{prefix}.beam_size")
    in_range(cfg, f"{prefix}.length_penalty", 0, 10)
    require(cfg, f"{prefix}.max_length_ratio", lambda v: is_num(v) and v > 0, "a number > 0")
    require(cfg, f"{prefix}.max_length_extra", lambda v: is_int(v) and v >= 1, "an integer >= 1")
    positive_int(cfg, f"{prefix}.batch_tokens")


def check_types_against_defaults(cls: type, settings: dict, prefix: str) -> None:
    """A setting whose constructor default is a bool / int / float / str must have that type (ints pass as floats)."""
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return
    expected = {bool: (is_bool_value, "true or false"), int: (is_int, "an integer"),
                float: (is_num, "a finite number"), str: (lambda v: isinstance(v, str), "a string")}
    for name, value in settings.items():
        param = parameters.get(name)
        if param is None or param.default is inspect.Parameter.empty or param.default is None or value is None:
            continue
        check = expected.get(type(param.default))
        if check and not check[0](value):
            raise ConfigError(f"{prefix}.{name}={value!r} is not allowed: expected {check[1]} "
                              f"(like the default, {param.default!r})")


def is_bool_value(v) -> bool:
    return isinstance(v, bool)


def settings_of(node: DictConfig, key: str) -> dict:
    try:
        return OmegaConf.to_container(node, resolve=True)
    except OmegaConfBaseException as error:  # a ${...} that does not resolve: name the key that holds it
        bad_key = getattr(error, "full_key", None) or key
        raise ConfigError(f"{bad_key} cannot be read: {str(error).splitlines()[0]}") from None


def locate_target(settings: dict, key: str) -> type:
    from hydra.utils import get_class

    hydra_log = logging.getLogger("hydra.utils")  # it logs the failure too; ours says it once, with the key
    level = hydra_log.level
    hydra_log.setLevel(logging.CRITICAL)
    try:
        return get_class(settings["_target_"])
    except Exception as error:  # ImportError, AttributeError, ValueError: all mean "no such class"
        raise ConfigError(f"{key}._target_={settings['_target_']!r} is not allowed: expected an importable class "
                          f"({' '.join(str(error).split())})") from None
    finally:
        hydra_log.setLevel(level)


def instantiate_checked(node: DictConfig, key: str, **extra) -> Any:
    """Build the object `node` names, turning any error into a ConfigError naming `key` and its settings."""
    from hydra.utils import instantiate

    settings = settings_of(node, key)
    cls = locate_target(settings, key)
    check_types_against_defaults(cls, {k: v for k, v in settings.items() if k not in ("_target_", "name")}, key)
    try:
        return instantiate(settings, **extra)
    except Exception as error:  # Hydra wraps constructor errors; report the constructor's own message
        cause = error.__cause__ or error
        shown = ", ".join(f"{key}.{k}={v!r}" for k, v in settings.items() if k != "_target_")
        raise ConfigError(f"{key} ({settings['_target_']}) cannot be built from {shown or 'no settings'}: "
                          f"{cause}") from None


def validate_encoding(cfg: DictConfig) -> None:
    """Build the encoding and apply the ablation, on the meta device: their constructors check their settings."""
    from translate.encodings.base import PositionalEncoding

    section(cfg, "encoding")
    target(cfg, "encoding")
    section(cfg, "ablation")
    target(cfg, "ablation")
    d_model, n_heads = cfg.model.d_model, cfg.model.n_heads
    encoding_node = OmegaConf.create({k: v for k, v in settings_of(cfg.encoding, "encoding").items() if k != "name"})

    def build() -> None:
        encoding = instantiate_checked(encoding_node, "encoding", d_model=d_model, n_heads=n_heads)
        if not isinstance(encoding, PositionalEncoding):
            raise ConfigError(f"encoding._target_={cfg.encoding._target_} builds a {type(encoding).__name__}; "
                              f"expected a subclass of translate.encodings.base.PositionalEncoding")
        ablation = instantiate_checked(cfg.ablation, "ablation")
        try:
            ablation.apply(encoding, d_model)
        except Exception as error:
            raise ConfigError(f"ablation ({cfg.ablation._target_}) cannot be applied to encoding "
                              f"{cfg.encoding._target_} with model.d_model={d_model}: {error}") from None

    try:
        with torch.device("meta"):
            build()
    except ConfigError as error:
        if "meta" not in str(error):
            raise
        build()  # this encoding reads tensor values while it is built: build it for real


def validate_eval(cfg: DictConfig) -> None:
    from translate.data.test_sets import parse_test_sets  # it uses ConfigError from here

    section(cfg, "eval")
    parse_test_sets(_get(cfg, "eval.test_sets"))


def validate_config(cfg: DictConfig) -> None:
    """Everything the trainer reads; raises ConfigError naming the first bad key."""
    require(cfg, "seed", is_int, "an integer")
    validate_model(cfg)
    validate_data(cfg)
    validate_eval(cfg)
    validate_train(cfg)
    validate_decode(cfg)
    validate_encoding(cfg)


def check_fits(encoding, longest: int, split: str, max_positions: Optional[int] = None) -> None:
    """Stop at start-up when the encoding cannot represent the longest sentence of a split."""
    limit = encoding.max_positions if max_positions is None else max_positions
    if limit is not None and longest > limit:
        raise ConfigError(f"encoding.max_positions={limit} is shorter than the longest {split} sentence "
                          f"({longest} tokens); allowed: >= {longest}, or lower data.corpus.max_words")


def longest_output(source_tokens: int, decode: DictConfig) -> int:
    """Most target positions decoding may use for a source of `source_tokens` (eos included); see decoding.search."""
    return int(source_tokens * decode.max_length_ratio) + decode.max_length_extra


def check_data_fits(encoding, splits: dict, decode: DictConfig) -> None:
    """Every sentence, and every translation decoding may produce, must fit the encoding's table (if it has one)."""
    limit = encoding.max_positions
    if limit is None:
        return
    for name, split in splits.items():
        src_lens, tgt_lens = split.lengths()
        if not src_lens:
            continue
        check_fits(encoding, max(max(src_lens), max(tgt_lens) + 1), name)
        longest = longest_output(max(src_lens), decode)
        if longest > limit:
            raise ConfigError(
                f"encoding.max_positions={limit} is shorter than the longest translation decoding may produce for "
                f"the {name} split ({longest} tokens = {max(src_lens)} source tokens * decode.max_length_ratio="
                f"{decode.max_length_ratio} + decode.max_length_extra={decode.max_length_extra}); allowed: "
                f"encoding.max_positions >= {longest}, or lower decode.max_length_ratio / max_length_extra")
