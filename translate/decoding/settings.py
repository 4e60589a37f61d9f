"""What a search needs besides the model and the source batch: the special token ids and the decode settings.

DecodeSettings is the one place decode defaults are written, and the schema of conf/decode/*.yaml (which list only
what differs from them).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from translate.config.fields import Checked, above, at_least, number_in, setting


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
class DecodeSettings(Checked):
    SECTION: ClassVar[str] = "decode"

    # 1: greedy search
    beam_size: int = setting(at_least(1), default=1)
    # GNMT alpha, ((5 + length) / 6) ** alpha; 0 disables normalisation
    length_penalty: float = setting(number_in(0, 10), default=1.0)
    # output tokens <= int(source tokens * ratio) + extra: see decoding.length
    max_length_ratio: float = setting(above(0, "a number > 0"), default=1.5)
    max_length_extra: int = setting(at_least(1), default=10)
    # source tokens per decoding batch
    batch_tokens: int = setting(at_least(1), default=4000)
