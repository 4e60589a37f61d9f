"""shuffle: a fresh random permutation of the source positions within each sentence, at every forward pass
(training and evaluation). Does the model use word order at all? A NoPE model is unchanged by it.

Only the real tokens' positions are permuted (padding keeps its own), and the encoder's table and attention terms
see the same permutation, so attention-side encodings receive (B, Ts) positions. The decoder is left alone: its
causal mask reveals the order anyway, and a permutation of a target not yet decoded cannot be drawn step by step.
"""
from __future__ import annotations

import torch
from torch import Tensor

from translate.ablations.wrapper import EncodingWrapper
from translate.encodings.base import PositionalEncoding


def permute_within(positions: Tensor, lengths: Tensor) -> Tensor:
    """positions (T,) or (B, T), lengths (B,) -> (B, T): entries 0..L_b-1 of row b permuted, the rest in place."""
    batch, steps = lengths.size(0), positions.size(-1)
    index = torch.arange(steps, device=positions.device)
    keys = torch.rand(batch, steps, device=positions.device)
    keys = torch.where(index < lengths[:, None], keys, 1.0 + index.float())  # padding sorts after, in order
    order = keys.argsort(dim=1)  # (B, T)
    return positions.expand(batch, steps).gather(1, order)


class ShuffledEncoding(EncodingWrapper):
    def sentence_positions(self, positions: Tensor, source_lengths: Tensor, side: str) -> Tensor:
        positions = self.inner.sentence_positions(positions, source_lengths, side)
        return permute_within(positions, source_lengths) if side == "encoder" else positions


class Shuffle:
    def __init__(self, name: str = "shuffle") -> None:
        self.name = name

    def apply(self, encoding: PositionalEncoding, d_model: int) -> PositionalEncoding:
        return ShuffledEncoding(encoding)
