"""Repeated words in translations: a decoder stuck in a loop ("my old old old old movie") can reach the reference's
length with words that earn nothing, so a length ratio near 1 alone does not say a model handles long inputs.

The measure is the percentage of output words identical to the word just before them: near 0 for fluent English (a
doubled word such as "had had" is rare), and it grows as a decoder loops.
"""
from __future__ import annotations

from typing import Iterable, Optional


def repeated_word_percent(hypotheses: Iterable[str]) -> Optional[float]:
    """Over all hypotheses together, the percentage of words (whitespace-split) equal to the word before them in the same
    hypothesis; None when there are no words."""
    words = repeats = 0
    for hypothesis in hypotheses:
        tokens = hypothesis.split()
        words += len(tokens)
        repeats += sum(a == b for a, b in zip(tokens, tokens[1:]))
    return None if words == 0 else round(100 * repeats / words, 2)
