"""Length buckets: which length a sentence is measured by, and which bucket each length falls in.

Buckets are given by their upper edges: edges (5, 10, 15, 20) make 1-5, 6-10, 11-15, 16-20 and 21+. Every length
falls in exactly one bucket.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from translate.data.cleaning import Pair
from translate.data.pipeline import TokenizedSplit


# Lengths measurable from a pair's text alone (the sweep report re-reads test sets as text).
PAIR_LENGTH: dict[str, Callable[[Pair], int]] = {"source_words": lambda p: len(p.fr.split()),
                                                 "reference_words": lambda p: len(p.en.split())}


def source_words(split: TokenizedSplit) -> list[int]:
    return [PAIR_LENGTH["source_words"](p) for p in split.pairs]


def reference_words(split: TokenizedSplit) -> list[int]:
    return [PAIR_LENGTH["reference_words"](p) for p in split.pairs]


def source_subwords(split: TokenizedSplit) -> list[int]:
    return [len(ids) for ids in split.src]  # SentencePiece pieces, eos not counted


LENGTH_OF: dict[str, Callable[[TokenizedSplit], list[int]]] = {
    "source_words": source_words, "reference_words": reference_words, "source_subwords": source_subwords}


@dataclass(frozen=True)
class Bucket:
    low: int
    high: Optional[int]  # None: open-ended

    @property
    def name(self) -> str:
        if self.high is None:
            return f"{self.low}+"
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


def buckets_from_edges(edges: Sequence[int]) -> list[Bucket]:
    """Upper edges (strictly increasing) -> len(edges) + 1 buckets, the last open-ended."""
    lows = [1] + [e + 1 for e in edges]
    return [Bucket(low, high) for low, high in zip(lows, list(edges) + [None])]


def quantile_edges(lengths: Sequence[int], n: int) -> list[int]:
    """Upper edges of n buckets holding about the same number of sentences (ties keep a length in one bucket)."""
    ordered = sorted(lengths)
    cuts = {ordered[math.ceil(k * len(ordered) / n) - 1] for k in range(1, n)} if ordered else set()
    return sorted(c for c in cuts if c < ordered[-1])  # an edge at the longest length would leave the last empty


def assign(lengths: Sequence[int], buckets: Sequence[Bucket]) -> list[int]:
    """Index of the bucket of each length."""
    highs = [b.high for b in buckets[:-1]]
    return [bisect.bisect_left(highs, n) for n in lengths]


def members(lengths: Sequence[int], buckets: Sequence[Bucket]) -> list[list[int]]:
    """Indices of the lengths in each bucket."""
    found: list[list[int]] = [[] for _ in buckets]
    for i, index in enumerate(assign(lengths, buckets)):
        found[index].append(i)
    return found


def make_buckets(edges: Sequence[int], quantiles: Optional[int], lengths: Sequence[int]) -> list[Bucket]:
    """Fixed edges, or equal-count buckets over `lengths` when `quantiles` is set."""
    return buckets_from_edges(quantile_edges(lengths, quantiles) if quantiles else edges)
