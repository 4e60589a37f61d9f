"""Transformer with Untied Positional Encoding (Ke, He and Liu 2021, "Rethinking Positional Encoding in Language
Pre-training", ICLR), the TUPE-R variant by default.

    α_ij = (x_i W^Q)(x_j W^K)ᵀ / sqrt(2 Dh)  +  (p_i U^Q)(p_j U^K)ᵀ / sqrt(2 Dh)  +  b_{j-i}

Position and content are untied: the absolute positions p (a learned table, layer-normed) never mix with the words;
their correlation has its own per-head projections U^Q, U^K and, like the relative bias b (T5 buckets, one table
per attention kind; off with `relative_bias: false`, TUPE-A), is computed once and shared by the layers. The
content term's 1 / sqrt(2 Dh) is a scaling of q. The paper's [CLS] untying has no counterpart in translation.
"""
from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import AttentionEncoding, check
from translate.encodings.t5 import T5


class TUPE(AttentionEncoding):
    def __init__(self, d_model: int, n_heads: int, max_positions: int = 512, relative_bias: bool = True,
                 num_buckets: int = 32, max_distance: int = 128, init_std: float = 0.02, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(isinstance(max_positions, int) and max_positions >= 1, "max_positions", max_positions, "an integer >= 1")
        check(isinstance(relative_bias, bool), "relative_bias", relative_bias, "true (TUPE-R) or false (TUPE-A)")
        self._max_positions = max_positions
        self.positions = nn.Parameter(torch.randn(max_positions, d_model) * init_std)
        self.norm = nn.LayerNorm(d_model)
        self.query_proj, self.key_proj = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.relative = (T5(d_model, n_heads, num_buckets, max_distance, cross_attention=self.cross_attention)
                         if relative_bias else None)

    @property
    def max_positions(self) -> int:
        return self._max_positions

    def project(self, proj: nn.Linear, positions: Tensor) -> Tensor:
        """(..., T) -> (..., H, T, Dh)."""
        if positions.numel() and not torch.compiler.is_compiling() and int(positions.max()) >= self._max_positions:
            self.check_length(int(positions.max()) + 1, "the input")
        p = proj(self.norm(self.positions[positions]))  # (..., T, d)
        return p.unflatten(-1, (self.n_heads, self.head_dim)).transpose(-3, -2)

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        scale = (2 * self.head_dim) ** -0.5
        bias = torch.matmul(self.project(self.query_proj, q_positions),
                            self.project(self.key_proj, k_positions).transpose(-2, -1)) * scale  # (..., H, Tq, Tk)
        if self.relative is not None:
            bias = bias + self.relative.terms(kind, q_positions, k_positions).bias
        return AttentionTerms(bias=bias, rotate=lambda q, k: (q * math.sqrt(0.5), k))
