"""`long_concat`: a synthetic test set of long pseudo-sentences, for length buckets the real test split barely has.

Each pseudo-sentence joins 2-6 consecutive pairs of one evaluation split (never train): the French sides joined with
spaces, the English sides likewise. Only the first pair of each English sentence is used, so a pseudo-sentence
never repeats a sentence in two French wordings. It is not natural text (no discourse links between the pieces),
so its scores measure length handling, not fluency across sentences.
"""
from __future__ import annotations

from translate.data.cleaning import Pair

# French word ranges, each filled with up to SENTENCES_PER_RANGE pseudo-sentences.
RANGES = ((11, 15), (16, 20), (21, 30), (31, 45), (46, 60))
SENTENCES_PER_RANGE = 300
MIN_PIECES, MAX_PIECES = 2, 6


def one_per_english(pairs: list[Pair]) -> list[Pair]:
    seen: set[str] = set()
    kept = []
    for p in pairs:
        if p.en not in seen:
            seen.add(p.en)
            kept.append(p)
    return kept


def candidates(words: list[int], low: int, high: int) -> list[tuple[int, int]]:
    """(start, pieces) of each window of consecutive pieces with low..high French words: at most one per start
    (the fewest pieces that land in the range)."""
    found = []
    for start in range(len(words)):
        total = 0
        for pieces in range(1, MAX_PIECES + 1):
            if start + pieces > len(words):
                break
            total += words[start + pieces - 1]
            if pieces >= MIN_PIECES and low <= total <= high:
                found.append((start, pieces))
                break
            if total > high:
                break
    return found


def evenly(items: list, n: int) -> list:
    """n items spread evenly over `items` (all of them when there are fewer), so a range is not drawn from one end
    of the split only (Tatoeba is ordered by length)."""
    if len(items) <= n:
        return items
    return [items[k * len(items) // n] for k in range(n)]


def join(pieces: list[Pair]) -> Pair:
    return Pair(" ".join(p.fr for p in pieces), " ".join(p.en for p in pieces))


def build_long_concat(pairs: list[Pair], per_range: int = SENTENCES_PER_RANGE) -> list[Pair]:
    """Deterministic: depends only on `pairs` and their order. Interleaved across ranges (one of each in turn), so
    that the first N (data.test_limit) still cover every range."""
    units = one_per_english(pairs)
    words = [len(p.fr.split()) for p in units]
    per = [[join(units[s:s + k]) for s, k in evenly(candidates(words, low, high), per_range)] for low, high in RANGES]
    return [group[i] for i in range(max(map(len, per), default=0)) for group in per if i < len(group)]
