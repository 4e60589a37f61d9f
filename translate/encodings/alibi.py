"""Attention with Linear Biases (Press, Smith and Lewis 2022, "Train Short, Test Long: Attention with Linear Biases
Enables Input Length Extrapolation", ICLR).

    logits_ij += -m_h |i - j|,   m_h = 2^(-8h/H) for h = 1..H   (a geometric sequence)

No parameters. The paper defines the causal bias -m_h (i - j) for j <= i only. `direction` chooses the form of the
bidirectional attentions (encoder, and cross-attention when on):

    symmetric (default):  -m_h |i - j|, the same slope both ways (then, without a final eos, the encoder is exactly
                          reversal-equivariant);
    directional:          -m_h (i - j) for j <= i and -m'_h (j - i) for j > i, with m'_h = m_(H+1-h): the right-hand
                          slopes are the same geometric sequence in reverse head order (still no parameters).

When H is not a power of two, the slopes of the nearest lower power of two are followed by every other slope of the
next one (the paper's code). `max_slope_exponent` is the 8.

`biased_heads` (x-transformers' `alibi_num_heads`): only the first n heads carry the bias, with the slopes ALiBi
gives n heads (m_h = 2^(-8h/n)); the other H - n heads have slope 0, no bias: each is a NoPE head, free to attend
by content alone. null (default): every head.
"""
from __future__ import annotations

import math
from typing import Optional

import torch
from torch import Tensor

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import AttentionEncoding, bidirectional_kinds, check, offsets


def alibi_slopes(n_heads: int, max_exponent: float = 8.0) -> list[float]:
    """The H head slopes, largest first."""
    if math.log2(n_heads).is_integer():
        start = 2 ** (-max_exponent / n_heads)
        return [start ** (h + 1) for h in range(n_heads)]
    lower = 2 ** math.floor(math.log2(n_heads))
    return alibi_slopes(lower, max_exponent) + alibi_slopes(2 * lower, max_exponent)[0::2][: n_heads - lower]


class ALiBi(AttentionEncoding):
    def __init__(self, d_model: int, n_heads: int, max_slope_exponent: float = 8.0, direction: str = "symmetric",
                 biased_heads: Optional[int] = None, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(isinstance(max_slope_exponent, (int, float)) and max_slope_exponent > 0, "max_slope_exponent",
              max_slope_exponent, "a number > 0")
        biased = n_heads if biased_heads is None else biased_heads
        check(isinstance(biased, int) and not isinstance(biased, bool) and 1 <= biased <= n_heads, "biased_heads",
              biased_heads, f"null (every head) or an integer in [1, model.n_heads={n_heads}]")
        self.directional = bidirectional_kinds(self.kinds, direction)
        slopes = torch.tensor(alibi_slopes(biased, float(max_slope_exponent)))
        unbiased = torch.zeros(n_heads - biased)
        self.register_buffer("slopes", torch.cat([slopes, unbiased]).view(-1, 1, 1), persistent=False)  # (H, 1, 1)
        self.register_buffer("right_slopes", torch.cat([slopes.flip(0), unbiased]).view(-1, 1, 1),
                             persistent=False)  # m'_h

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        relative = offsets(q_positions, k_positions).unsqueeze(-3).float()  # (..., 1, Tq, Tk): j - i
        if kind not in self.directional:
            return AttentionTerms(bias=-self.slopes * relative.abs())  # (..., H, Tq, Tk)
        right = relative.clamp(min=0)
        return AttentionTerms(bias=-self.slopes * (relative - right).abs() - self.right_slopes * right)
