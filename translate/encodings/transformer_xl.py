"""Relative positional encoding of Transformer-XL (Dai et al. 2019, "Transformer-XL: Attentive Language Models
Beyond a Fixed-Length Context", section 3.3).

    A_ij = [ q_i·k_j  +  q_i·W_R R_{i-j}  +  u·k_j  +  v·W_R R_{i-j} ] / sqrt(Dh)
            (a) content  (b) content-position (c) global content (d) global position

R is the fixed sinusoidal table of the distance i - j (width d_model), W_R a learned projection to the heads, and
u, v learned per-head vectors shared by all queries. (q + v)·(W_R R)ᵀ is computed over the Tq + Tk - 1 distances
present and placed at (i, j) with the paper's relative shift (a gather when positions are not contiguous).
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import (AttentionEncoding, expand_index, is_range, offsets, relative_shift,
                                          sinusoid_table)


class TransformerXL(AttentionEncoding):
    def __init__(self, d_model: int, n_heads: int, base: float = 10000.0, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        self.base = base
        self.r_proj = nn.Linear(d_model, d_model, bias=False)  # W_{k,R}
        nn.init.xavier_uniform_(self.r_proj.weight)
        self.u = nn.Parameter(torch.zeros(n_heads, 1, self.head_dim))  # (H, 1, Dh)
        self.v = nn.Parameter(torch.zeros(n_heads, 1, self.head_dim))

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        query_minus_key = -offsets(q_positions, k_positions)  # (..., Tq, Tk): i - j
        d_max, d_min = int(query_minus_key.max()), int(query_minus_key.min())
        distances = torch.arange(d_max, d_min - 1, -1, device=q_positions.device)  # descending, as the shift wants
        r = self.r_proj(sinusoid_table(distances, self.d_model, self.base))  # (n, d)
        r = r.view(-1, self.n_heads, self.head_dim).transpose(0, 1)  # (H, n, Dh)
        tk = k_positions.size(-1)
        if is_range(q_positions) and is_range(k_positions):
            place = lambda scores: relative_shift(scores, tk)  # noqa: E731
        else:
            rows = d_max - query_minus_key
            place = lambda scores: scores.gather(-1, expand_index(rows, scores.shape[:-1] + (tk,)))  # noqa: E731
        scale = self.head_dim ** -0.5

        def content_bias(q: Tensor, k: Tensor) -> Tensor:
            global_content = torch.matmul(self.u.to(k.dtype), k.transpose(-2, -1))  # (B, H, 1, Tk)
            position = place(torch.matmul(q + self.v.to(q.dtype), r.transpose(-2, -1).to(q.dtype)))  # (B, H, Tq, Tk)
            return (global_content + position) * scale

        return AttentionTerms(content_bias=content_bias)
