"""A positional encoding that delegates every contract to the one it wraps; ablations override one piece."""
from __future__ import annotations

from typing import Optional

from torch import Tensor

from translate.encodings.base import AttentionTerms, PositionalEncoding


class EncodingWrapper(PositionalEncoding):
    """`inner` is the wrapped encoding (its parameters appear as encoding.inner.* in the state dict)."""

    def __init__(self, inner: PositionalEncoding) -> None:
        super().__init__(inner.d_model, inner.n_heads)
        self.inner = inner

    def embed(self, x: Tensor, positions: Tensor, side: str) -> Tensor:
        return self.inner.embed(x, positions, side)

    def attention_terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        return self.inner.attention_terms(kind, q_positions, k_positions)

    def use_layers(self, n_encoder_layers: int, n_decoder_layers: int) -> None:
        self.inner.use_layers(n_encoder_layers, n_decoder_layers)

    def kind(self) -> str:
        return self.inner.kind()

    def record_training_length(self, tokens: int) -> None:
        self.inner.record_training_length(tokens)

    def sentence_positions(self, positions: Tensor, source_lengths: Tensor, side: str) -> Tensor:
        return self.inner.sentence_positions(positions, source_lengths, side)

    def table(self, positions: Tensor) -> Optional[Tensor]:
        return self.inner.table(positions)

    @property
    def max_positions(self) -> Optional[int]:
        return self.inner.max_positions
