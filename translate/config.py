"""Start-up validation: every value is checked before any work, and an error names the key, the value and what is
allowed. Encodings and corpora validate their own hyperparameters when they are built."""
from __future__ import annotations

from typing import Any, Callable, Optional

from omegaconf import DictConfig


class ConfigError(ValueError):
    pass


def _get(cfg: DictConfig, key: str) -> Any:
    node: Any = cfg
    for part in key.split("."):
        if node is None or part not in node:
            raise ConfigError(f"{key} is missing from the config")
        node = node[part]
    return node


def require(cfg: DictConfig, key: str, ok: Callable[[Any], bool], allowed: str, optional: bool = False) -> None:
    value = _get(cfg, key)
    if value is None and optional:
        return
    try:
        good = ok(value)
    except TypeError:
        good = False
    if not good:
        raise ConfigError(f"{key}={value!r} is not allowed: expected {allowed}")


def is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def positive_int(cfg, key, optional=False):
    require(cfg, key, lambda v: is_int(v) and v >= 1, "an integer >= 1", optional)


def in_range(cfg, key, low: float, high: float, high_open: bool = False, optional: bool = False):
    allowed = f"a number in [{low}, {high}{')' if high_open else ']'}"
    require(cfg, key, lambda v: is_num(v) and low <= v and (v < high if high_open else v <= high), allowed, optional)


def one_of(cfg, key, choices):
    require(cfg, key, lambda v: v in choices, f"one of {list(choices)}")


def validate_model(cfg: DictConfig) -> None:
    for key in ("d_model", "n_heads", "n_encoder_layers", "n_decoder_layers", "d_ff"):
        positive_int(cfg, f"model.{key}")
    in_range(cfg, "model.dropout", 0, 1, high_open=True)
    in_range(cfg, "model.attention_dropout", 0, 1, high_open=True)
    one_of(cfg, "model.norm_position", ("pre", "post"))
    require(cfg, "model.tie_embeddings", lambda v: isinstance(v, bool), "true or false")
    d, h = cfg.model.d_model, cfg.model.n_heads
    if d % h:
        divisors = [n for n in range(1, d + 1) if d % n == 0 and n <= 64]
        raise ConfigError(f"model.n_heads={h} does not divide model.d_model={d}; allowed n_heads: {divisors}")


def validate_data(cfg: DictConfig) -> None:
    positive_int(cfg, "data.tokenizer.vocab_size")
    one_of(cfg, "data.tokenizer.model_type", ("unigram", "bpe"))
    in_range(cfg, "data.tokenizer.character_coverage", 0.9, 1.0)
    for key in ("train_min_words", "train_max_words", "train_limit", "valid_limit", "test_limit"):
        positive_int(cfg, f"data.{key}", optional=True)
    lo, hi = cfg.data.get("train_min_words"), cfg.data.get("train_max_words")
    if lo is not None and hi is not None and lo > hi:
        raise ConfigError(f"data.train_min_words={lo} is above data.train_max_words={hi}; no pair could be kept")
    if cfg.data.tokenizer.vocab_size < 16:
        raise ConfigError(f"data.tokenizer.vocab_size={cfg.data.tokenizer.vocab_size} is too small: expected >= 16")


def validate_train(cfg: DictConfig) -> None:
    for key in ("max_tokens", "max_sentences", "max_steps", "max_epochs", "warmup_steps", "valid_every",
                "log_every", "save_every"):
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


def validate_decode(cfg: DictConfig, prefix: str = "decode") -> None:
    positive_int(cfg, f"{prefix}.beam_size")
    in_range(cfg, f"{prefix}.length_penalty", 0, 10)
    require(cfg, f"{prefix}.max_length_ratio", lambda v: is_num(v) and v > 0, "a number > 0")
    require(cfg, f"{prefix}.max_length_extra", lambda v: is_int(v) and v >= 1, "an integer >= 1")
    positive_int(cfg, f"{prefix}.batch_tokens")


def validate_config(cfg: DictConfig) -> None:
    """Everything the trainer reads; raises ConfigError naming the first bad key."""
    require(cfg, "seed", is_int, "an integer")
    validate_model(cfg)
    validate_data(cfg)
    validate_train(cfg)
    validate_decode(cfg)
    require(cfg, "encoding._target_", lambda v: isinstance(v, str) and "." in v,
            "a dotted path to a PositionalEncoding subclass")


def check_fits(encoding, longest: int, split: str, max_positions: Optional[int] = None) -> None:
    """Stop at start-up when the encoding cannot represent the longest sentence of a split."""
    limit = encoding.max_positions if max_positions is None else max_positions
    if limit is not None and longest > limit:
        raise ConfigError(f"encoding.max_positions={limit} is shorter than the longest {split} sentence "
                          f"({longest} tokens); allowed: >= {longest}, or lower data.corpus.max_words")
