"""Normalise and filter sentence pairs, counting what was dropped and why."""
from __future__ import annotations

import logging
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Optional

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Pair:
    fr: str
    en: str


@dataclass
class DropCounts:
    reasons: Counter = field(default_factory=Counter)

    def add(self, reason: str, n: int = 1) -> None:
        self.reasons[reason] += n

    def log(self, what: str) -> None:
        if self.reasons:
            log.info("%s: dropped %s", what, dict(self.reasons))


NOT_UTF8 = "is not valid UTF-8"   # the words every reader uses for such a line


def decode_utf8(raw: bytes) -> Optional[str]:
    """A line's text, or None when its bytes are not UTF-8: the one rule of the readers of users' text (the files
    of translate.evaluate, translate.translate's input), each deciding what such a line then gets."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def normalise(text: str) -> str:
    """Unicode NFC, surrounding whitespace stripped, inner runs of whitespace collapsed. Case kept."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def clean_pairs(raw: Iterable[tuple[str, str]], drops: DropCounts, max_words: Optional[int] = None) -> list[Pair]:
    """Normalise (fr, en) pairs; drop empty sides and pairs longer than `max_words` words on either side."""
    kept = []
    for fr, en in raw:
        fr, en = normalise(fr), normalise(en)
        if not fr or not en:
            drops.add("empty side")
        elif max_words is not None and max(len(fr.split()), len(en.split())) > max_words:
            drops.add(f"over {max_words} words")
        else:
            kept.append(Pair(fr, en))
    return kept


def filter_lengths(pairs: list[Pair], min_words: Optional[int], max_words: Optional[int]) -> list[Pair]:
    """Keep pairs whose French side has min_words..max_words words (either bound may be None)."""
    def fits(p: Pair) -> bool:
        n = len(p.fr.split())
        return (min_words is None or n >= min_words) and (max_words is None or n <= max_words)
    return [p for p in pairs if fits(p)]
