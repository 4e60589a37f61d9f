"""side: positional information on one side only.

side=encoder keeps the encoder's table and its self-attention terms; side=decoder keeps the decoder's table and its
self-attention terms. Cross-attention terms involve the positions of both sides, so they are dropped either way.
"""
from __future__ import annotations

from torch import Tensor

from translate.ablations.wrapper import EncodingWrapper
from translate.config import ConfigError
from translate.encodings.base import NO_TERMS, SIDES, AttentionTerms, PositionalEncoding


class OneSideEncoding(EncodingWrapper):
    def __init__(self, inner: PositionalEncoding, side: str) -> None:
        super().__init__(inner)
        self.side = side

    def embed(self, x: Tensor, positions: Tensor, side: str) -> Tensor:
        return self.inner.embed(x, positions, side) if side == self.side else x

    def attention_terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        if kind != self.side:  # the kinds are "encoder", "decoder" (self-attention) and "cross"
            return NO_TERMS
        return self.inner.attention_terms(kind, q_positions, k_positions)


class Side:
    def __init__(self, name: str = "side", side: str = "encoder") -> None:
        self.name = name
        self.side = side

    def apply(self, encoding: PositionalEncoding, d_model: int) -> PositionalEncoding:
        if self.side not in SIDES:
            raise ConfigError(f"ablation.side={self.side!r} is not allowed: expected one of {list(SIDES)}")
        return OneSideEncoding(encoding, self.side)
