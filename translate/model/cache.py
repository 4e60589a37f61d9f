"""The decoder's key/value cache for incremental decoding: one KeyValues per attention, two per layer.

Self-attention keys grow by one step at a time; cross-attention keys are the encoder memory's, computed on the
first step and reused. Beam search reorders every row when it reorders its hypotheses.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import torch
from torch import Tensor


@dataclass
class KeyValues:
    """One attention's cached keys and values; None until the first step stores them."""

    k: Optional[Tensor] = None  # (B, H, T, Dh)
    v: Optional[Tensor] = None  # (B, H, T, Dh)

    def append(self, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
        """Self-attention: keep this step's k, v (B, H, Tnew, Dh) after the earlier ones; returns all (B, H, T, Dh)."""
        if self.k is not None:
            k = torch.cat([self.k, k], dim=2)
            v = torch.cat([self.v, v], dim=2)
        self.k, self.v = k, v
        return k, v

    def computed_once(self, compute: Callable[[], tuple[Tensor, Tensor]]) -> tuple[Tensor, Tensor]:
        """Cross-attention: the memory's k, v (B, H, Ts, Dh), from `compute` on the first step only."""
        if self.k is None:
            self.k, self.v = compute()
        return self.k, self.v

    def reorder(self, index: Tensor) -> None:
        """Keep rows `index` (N,) of the batch, in that order."""
        if self.k is not None:
            self.k = self.k.index_select(0, index)
            self.v = self.v.index_select(0, index)


@dataclass
class LayerCache:
    self_attention: KeyValues = field(default_factory=KeyValues)
    cross_attention: KeyValues = field(default_factory=KeyValues)

    def reorder(self, index: Tensor) -> None:
        # Cross-attention rows too: beam search moves rows only within a sentence, where they are copies, but a
        # caller that drops or reorders sentences needs them to follow.
        self.self_attention.reorder(index)
        self.cross_attention.reorder(index)


@dataclass
class DecoderCache:
    """Owned by the search; Transformer.decode fills it, one LayerCache per decoder layer."""

    layers: list[LayerCache] = field(default_factory=list)

    def for_layer(self, i: int) -> LayerCache:
        while len(self.layers) <= i:
            self.layers.append(LayerCache())
        return self.layers[i]

    def reorder(self, index: Tensor) -> None:
        """Keep rows `index` (N,) of every layer's keys and values: the sentences still being decoded."""
        for layer in self.layers:
            layer.reorder(index)

    def reorder_within_sentences(self, index: Tensor) -> None:
        """Beam search's surviving hypotheses, `index` (N,) moving rows only among one sentence's hypotheses: the
        self-attention rows follow; the cross-attention rows of one sentence are copies of its memory and stay."""
        for layer in self.layers:
            layer.self_attention.reorder(index)
