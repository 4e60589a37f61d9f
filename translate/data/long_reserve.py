"""Real long sentences held out of training: the long test and long valid sets of Tatoeba.

Tatoeba has few long pairs (2017 release: 11,594 of 11-15 French words, 1,267 of 16-20, 208 of 21 or more). A
random test split of 2,000 English sentences holds about 220 of them, nearly all under 16 words, too few to say
anything about length. So, after the component split and before SentencePiece learns from the train split, whole
components of the train split's sentence graph that hold a long pair are moved out of train: their long pairs form
the long test set (at least LONG_TEST pairs per length band, and every pair of 21 words or more) and a
length-matched long valid set (LONG_VALID), whose pairs validate runs trained on long sentences. The short pairs of
those components are dropped, so no English and no French sentence of the two sets is in any training pair.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Optional

from translate.data.cleaning import Pair
from translate.data.components import sentence_components

LONG_FROM = 11  # French words; a pair this long or longer is "long"


@dataclass(frozen=True)
class Band:
    """French words low..high (high None: no upper end)."""
    low: int
    high: Optional[int]

    def holds(self, words: int) -> bool:
        return words >= self.low and (self.high is None or words <= self.high)

    @property
    def name(self) -> str:
        return f"{self.low}-{self.high}" if self.high is not None else f"{self.low}+"


# Pairs wanted per band (None: every pair whose component allows it). The valid set is about a third of the test
# set, in the same bands below 21 words (the longest pairs are too few to spare for validation).
BANDS = (Band(11, 15), Band(16, 20), Band(21, None))
LONG_TEST = {BANDS[0]: 1000, BANDS[1]: 300, BANDS[2]: None}
LONG_VALID = {BANDS[0]: 350, BANDS[1]: 100, BANDS[2]: 0}

# an end mark, closing quotes, a space and a capital; not after an initial or a title ("M. Dupont", "Mr. Smith")
SENTENCE_END = re.compile(r"(?<!\b[A-Z])(?<!\bMme)(?<!\bMlle)(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bSt)"
                          r"[.!?…]+[»\"')\]]*\s+(?=[A-ZÀ-Ý«\"'¿¡-])")


def french_words(pair: Pair) -> int:
    return len(pair.fr.split())


def sentence_count(text: str) -> int:
    """How many sentences a line holds: ends of sentence (. ! ? …) followed by a capitalised word. Tatoeba's long
    lines are often two or three short sentences; the long test tags them so that they can be read apart."""
    return 1 + len(SENTENCE_END.findall(text))


@dataclass
class LongReserve:
    train: list[Pair]        # what is left to train on
    long_test: list[Pair]
    long_valid: list[Pair]
    dropped_short: int       # short pairs of reserved components, in no split


def band_counts(pairs: list[Pair]) -> dict[Band, int]:
    counts = {band: 0 for band in BANDS}
    for p in pairs:
        band = next((b for b in BANDS if b.holds(french_words(p))), None)
        if band is not None:
            counts[band] += 1
    return counts


def wants(target: dict[Band, Optional[int]], have: dict[Band, int], adds: dict[Band, int]) -> bool:
    """Whether a component adding `adds` long pairs per band helps a set that has `have` of `target`."""
    return any(n and (target[b] is None or have[b] < target[b]) for b, n in adds.items())


def reserve_long(train: list[Pair], seed: int) -> LongReserve:
    """Move whole components holding long pairs from `train` into the long test and long valid sets (see the module
    docstring). Deterministic for a given train split and seed: components are sorted, then shuffled by the seed."""
    components = [c for c in sentence_components(train) if any(french_words(train[i]) >= LONG_FROM for i in c)]
    components.sort(key=lambda c: sorted((train[i].en, train[i].fr) for i in c))
    random.Random(seed).shuffle(components)
    chosen: dict[str, list[int]] = {"long_test": [], "long_valid": []}
    have = {name: {band: 0 for band in BANDS} for name in chosen}
    for component in components:
        adds = band_counts([train[i] for i in component])
        for name, target in (("long_test", LONG_TEST), ("long_valid", LONG_VALID)):
            if wants(target, have[name], adds):
                chosen[name].extend(component)
                for band, n in adds.items():
                    have[name][band] += n
                break
    reserved = set(chosen["long_test"]) | set(chosen["long_valid"])
    long_only = {name: [train[i] for i in sorted(indices) if french_words(train[i]) >= LONG_FROM]
                 for name, indices in chosen.items()}
    short_dropped = sum(1 for i in reserved if french_words(train[i]) < LONG_FROM)
    return LongReserve([p for i, p in enumerate(train) if i not in reserved], long_only["long_test"],
                       long_only["long_valid"], short_dropped)
