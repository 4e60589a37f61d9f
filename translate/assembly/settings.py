"""Start-up validation of a whole run: every section typed and checked (translate.config.fields), then the corpus,
encoding and ablation named by `_target_` built once on the CPU (an encoding is small: tables and biases of a few MB
at most), so their own checks run before data preparation too. An error names the key, the value and what is allowed."""
from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass
from typing import Any, Optional

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from translate.analysis.run.settings import ReportSettings
from translate.config.errors import ConfigError, from_omegaconf, not_allowed
from translate.config.fields import finite
from translate.data.config import DataConfig
from translate.data.eval_config import EvalConfig
from translate.decoding.length import max_output_tokens
from translate.decoding.settings import DecodeSettings
from translate.model.config import ModelConfig
from translate.training.config import TrainConfig


def is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def target(node: DictConfig, key: str) -> None:
    value = settings_of(node, key).get("_target_") if isinstance(node, DictConfig) else None
    if not (isinstance(value, str) and "." in value):
        raise not_allowed(f"{key}._target_", value, "a dotted path to a class")


def validate_corpus(cfg: DictConfig) -> None:
    """The corpus class is built (its constructor does no I/O and checks its own settings)."""
    corpus = cfg.data.get("corpus")
    if not isinstance(corpus, DictConfig):
        raise not_allowed("data.corpus", corpus, "a config section naming a corpus class with _target_")
    target(corpus, "data.corpus")
    instantiate_checked(corpus, "data.corpus")


def check_types_against_defaults(cls: type, settings: dict, prefix: str) -> None:
    """A setting whose constructor default is a bool / int / float / str must have that type (ints pass as floats)."""
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return
    expected = {bool: (lambda v: isinstance(v, bool), "true or false"), int: (is_int, "an integer"),
                float: (finite, "a finite number"), str: (lambda v: isinstance(v, str), "a string")}
    for name, value in settings.items():
        param = parameters.get(name)
        if param is None or param.default is inspect.Parameter.empty or param.default is None or value is None:
            continue
        check = expected.get(type(param.default))
        if check and not check[0](value):
            raise ConfigError(f"{prefix}.{name}={value!r} is not allowed: expected {check[1]} "
                              f"(like the default, {param.default!r})")


def settings_of(node: DictConfig, key: str) -> dict:
    try:
        return OmegaConf.to_container(node, resolve=True)
    except OmegaConfBaseException as error:  # a ${...} that does not resolve: name the key that holds it
        raise from_omegaconf(error, key) from None


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


def validate_encoding(cfg: DictConfig, model: ModelConfig) -> None:
    """Build the encoding and apply the ablation: their constructors check their settings."""
    from translate.encodings.base import PositionalEncoding

    target(section_node(cfg, "encoding"), "encoding")
    target(section_node(cfg, "ablation"), "ablation")
    d_model, n_heads = model.d_model, model.n_heads
    encoding_node = OmegaConf.create({k: v for k, v in settings_of(cfg.encoding, "encoding").items() if k != "name"})

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


@dataclass
class RunSettings:
    """A run's typed sections. Encoding and ablation stay config nodes: each names its class with `_target_`, and
    the class checks its own settings."""

    seed: int
    data: DataConfig
    model: ModelConfig
    train: TrainConfig
    decode: DecodeSettings
    report: ReportSettings
    eval: EvalConfig


def typed(cfg: DictConfig, section: str, cls: type) -> Any:
    """cfg[section] as a `cls` object: OmegaConf checks types, missing values and unknown keys against the dataclass
    (even where the YAML forgot its schema), the dataclass checks the allowed values."""
    node = section_node(cfg, section)
    schema = OmegaConf.structured(cls)
    try:
        merged = OmegaConf.merge(schema, node)
        # a ??? in the YAML or on the command line: merging keeps the dataclass default instead, so look at both
        missing = sorted(OmegaConf.missing_keys(node) | OmegaConf.missing_keys(merged))
        if missing:
            key = missing[0] if missing[0].startswith(section + ".") else f"{section}.{missing[0]}"
            raise ConfigError(f"{key} is not set (???); give it a value")
        return OmegaConf.to_object(merged)
    except OmegaConfBaseException as error:
        if not getattr(error, "full_key", None):  # a merge error names no key: find the key that fails alone
            error = first_failing_key(schema, node) or error
        raise from_omegaconf(error, section) from None


def first_failing_key(schema: DictConfig, node: DictConfig) -> Optional[OmegaConfBaseException]:
    for key in node:
        try:
            OmegaConf.merge(schema, {key: node._get_node(key)})
        except OmegaConfBaseException as error:
            if not getattr(error, "full_key", None):
                error.full_key = str(key)
            return error
    return None


def section_node(cfg: DictConfig, section: str) -> DictConfig:
    try:
        node = cfg.get(section) if isinstance(cfg, DictConfig) else None
    except OmegaConfBaseException as error:
        raise from_omegaconf(error, section) from None
    if node is None:
        raise ConfigError(f"{section} is missing from the config; add `- {section}: ...` to the defaults list")
    if not isinstance(node, DictConfig):
        raise not_allowed(section, node, "a config section")
    return node


def validate_config(cfg: DictConfig) -> RunSettings:
    """Every section the trainer reads, typed and checked; raises ConfigError naming the first bad key."""
    try:
        seed = cfg.get("seed")
    except OmegaConfBaseException as error:  # a ${...} that does not resolve
        raise from_omegaconf(error, "seed") from None
    if not (isinstance(seed, int) and not isinstance(seed, bool)):
        raise not_allowed("seed", seed, "an integer")
    settings = RunSettings(seed, typed(cfg, "data", DataConfig), typed(cfg, "model", ModelConfig),
                           typed(cfg, "train", TrainConfig), typed(cfg, "decode", DecodeSettings),
                           typed(cfg, "report", ReportSettings), typed(cfg, "eval", EvalConfig))
    validate_corpus(cfg)
    validate_encoding(cfg, settings.model)
    return settings


def check_fits(encoding, longest: int, split: str, max_positions: Optional[int] = None) -> None:
    """Stop at start-up when the encoding cannot represent the longest sentence of a split."""
    limit = encoding.max_positions if max_positions is None else max_positions
    if limit is not None and longest > limit:
        raise ConfigError(f"encoding.max_positions={limit} is shorter than the longest {split} sentence "
                          f"({longest} tokens); allowed: >= {longest}, or lower data.corpus.max_words")


def check_data_fits(encoding, splits: dict, decode: DecodeSettings) -> None:
    """Every sentence, and every translation decoding may produce, must fit the encoding's table (if it has one)."""
    limit = encoding.max_positions
    if limit is None:
        return
    for name, split in splits.items():
        src_lens, tgt_lens = split.lengths()
        if not src_lens:
            continue
        check_fits(encoding, max(max(src_lens), max(tgt_lens) + 1), name)
        longest = max_output_tokens(max(src_lens), decode.max_length_ratio, decode.max_length_extra)
        if longest > limit:
            raise ConfigError(
                f"encoding.max_positions={limit} is shorter than the longest translation decoding may produce for "
                f"the {name} split ({longest} tokens = {max(src_lens)} source tokens * decode.max_length_ratio="
                f"{decode.max_length_ratio} + decode.max_length_extra={decode.max_length_extra}); allowed: "
                f"encoding.max_positions >= {longest}, or lower decode.max_length_ratio / max_length_extra")
