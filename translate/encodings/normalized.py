"""Normalised-position absolute encoding: the position divided by the sentence's last index, in [0, 1] (the second
step of the textbook discussion before the sinusoids of Vaswani et al. 2017; its flaw: the distance between
neighbours, 1 / (L - 1), depends on the sentence length).

    PE(p) = p / (L - 1) * s,   s = (+1, -1, +1, -1, ...)   (L = 1 gives 0)

L is each sentence's own source length (padding excluded), so `sentence_positions` returns (B, T) floats. The decoder
also divides by the source length: the target length is unknown while decoding, and dividing by a length known on
both sides keeps training and decoding consistent and cached decoding exact. Target positions past the source length
therefore exceed 1. The direction s is zero-mean so LayerNorm cannot erase it (see `index`).
"""
from __future__ import annotations

from torch import Tensor

from translate.encodings.index import Index


class Normalized(Index):
    def sentence_positions(self, positions: Tensor, source_lengths: Tensor, side: str) -> Tensor:
        last = (source_lengths - 1).clamp(min=1).float()  # (B,)
        return positions.float() / last[:, None]  # (B, T)
