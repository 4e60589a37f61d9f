"""Attention with Linear Biases (Press, Smith and Lewis 2022, "Train Short, Test Long: Attention with Linear Biases
Enables Input Length Extrapolation", ICLR).

    logits_ij += -m_h |i - j|,   m_h = 2^(-8h/H) for h = 1..H   (a geometric sequence)

No parameters. The paper's causal bias is -m_h (i - j) for j <= i; |i - j| is the same there and gives the
symmetric form used by bidirectional encoders. When H is not a power of two, the slopes of the nearest lower power
of two are followed by every other slope of the next one (the paper's code). `max_slope_exponent` is the 8.
"""
from __future__ import annotations

import math

import torch
from torch import Tensor

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import AttentionEncoding, check, offsets


def alibi_slopes(n_heads: int, max_exponent: float = 8.0) -> list[float]:
    """The H head slopes, largest first."""
    if math.log2(n_heads).is_integer():
        start = 2 ** (-max_exponent / n_heads)
        return [start ** (h + 1) for h in range(n_heads)]
    lower = 2 ** math.floor(math.log2(n_heads))
    return alibi_slopes(lower, max_exponent) + alibi_slopes(2 * lower, max_exponent)[0::2][: n_heads - lower]


class ALiBi(AttentionEncoding):
    def __init__(self, d_model: int, n_heads: int, max_slope_exponent: float = 8.0, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(isinstance(max_slope_exponent, (int, float)) and max_slope_exponent > 0, "max_slope_exponent",
              max_slope_exponent, "a number > 0")
        slopes = torch.tensor(alibi_slopes(n_heads, float(max_slope_exponent)))
        self.register_buffer("slopes", slopes.view(-1, 1, 1), persistent=False)  # (H, 1, 1)

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        distance = offsets(q_positions, k_positions).abs().unsqueeze(-3).float()  # (..., 1, Tq, Tk)
        return AttentionTerms(bias=-self.slopes * distance)  # (..., H, Tq, Tk)
