"""Relative positional encoding of Transformer-XL (Dai et al. 2019, "Transformer-XL: Attentive Language Models
Beyond a Fixed-Length Context", section 3.3).

    A_ij = [ q_i·k_j  +  q_i·W_R R_{i-j}  +  u·k_j  +  v·W_R R_{i-j} ] / sqrt(Dh)
            (a) content  (b) content-position (c) global content (d) global position

R is the fixed sinusoidal table of the distance i - j (width d_model), W_R a learned projection to the heads, and
u, v learned per-head vectors shared by all queries (and layers, as in the paper's code). `per_layer: true` (the
paper, default): each attention layer has its own W_R, so the pure-position term (d) differs between layers;
false: one W_R shared by every layer (and by encoder and decoder), which makes (d) identical in every layer. (q + v)·(W_R R)ᵀ is computed over the Tq + Tk - 1 distances
present and placed at (i, j) with the paper's relative shift (a gather when positions are not contiguous).
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import (AttentionEncoding, LayerCopies, expand_index, is_range, offsets,
                                          relative_shift, sinusoid_table, stacked)


class TransformerXL(AttentionEncoding):
    def __init__(self, d_model: int, n_heads: int, base: float = 10000.0, per_layer: bool = True, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        self.base = base
        self.r_projs = LayerCopies(self.new_projection, self.kinds, per_layer)  # W_{k,R} per layer or shared
        self.u = nn.Parameter(torch.zeros(n_heads, 1, self.head_dim))  # (H, 1, Dh)
        self.v = nn.Parameter(torch.zeros(n_heads, 1, self.head_dim))

    def new_projection(self) -> nn.Linear:
        proj = nn.Linear(self.d_model, self.d_model, bias=False)
        nn.init.xavier_uniform_(proj.weight)
        return proj

    @property
    def r_proj(self) -> nn.Linear:
        """Layer 0's W_R (of the encoder, when per layer)."""
        return self.r_projs.copies[0]

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        query_minus_key = -offsets(q_positions, k_positions)  # (..., Tq, Tk): i - j
        d_max, d_min = int(query_minus_key.max()), int(query_minus_key.min())
        distances = torch.arange(d_max, d_min - 1, -1, device=q_positions.device)  # descending, as the shift wants
        table = sinusoid_table(distances, self.d_model, self.base)  # (n, d)
        tk = k_positions.size(-1)
        if is_range(q_positions) and is_range(k_positions):
            place = lambda scores: relative_shift(scores, tk)  # noqa: E731
        else:
            rows = d_max - query_minus_key
            place = lambda scores: scores.gather(-1, expand_index(rows, scores.shape[:-1] + (tk,)))  # noqa: E731
        scale = self.head_dim ** -0.5
        return stacked([self.layer_terms(proj(table).view(-1, self.n_heads, self.head_dim).transpose(0, 1), place,
                                         scale) for proj in self.r_projs.of(kind)])  # r: (H, n, Dh)

    def layer_terms(self, r: Tensor, place, scale: float) -> AttentionTerms:
        def content_bias(q: Tensor, k: Tensor) -> Tensor:
            global_content = torch.matmul(self.u.to(k.dtype), k.transpose(-2, -1))  # (B, H, 1, Tk)
            position = place(torch.matmul(q + self.v.to(q.dtype), r.transpose(-2, -1).to(q.dtype)))  # (B, H, Tq, Tk)
            return (global_content + position) * scale

        return AttentionTerms(content_bias=content_bias)
