"""What a search needs besides the model and the source batch: the special token ids and the decode settings.

DecodeSettings is the one place decode defaults are written in code; a run's conf/decode/*.yaml sets them through
`from_config`.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpecialIds:
    """The token ids search writes (bos first, eos last) and skips (padding)."""

    bos_id: int
    eos_id: int
    pad_id: int

    @classmethod
    def of(cls, tokenizer) -> "SpecialIds":
        return cls(tokenizer.bos_id, tokenizer.eos_id, tokenizer.pad_id)


@dataclass
class DecodeSettings:
    beam_size: int = 1               # 1: greedy search
    length_penalty: float = 1.0      # GNMT alpha, ((5 + length) / 6) ** alpha; 0 disables normalisation
    max_length_ratio: float = 1.5    # output tokens <= int(source tokens * ratio) + extra: see decoding.length
    max_length_extra: int = 10
    batch_tokens: int = 4000         # source tokens per decoding batch

    @classmethod
    def from_config(cls, cfg) -> "DecodeSettings":
        return cls(**{k: cfg[k] for k in cls.__dataclass_fields__})
