"""Sinusoidal absolute encoding (Vaswani et al. 2017, "Attention Is All You Need", section 3.5).

    PE(p, 2i)   = sin(p / base^(2i / d))
    PE(p, 2i+1) = cos(p / base^(2i / d))

Dimensions are interleaved (sin, cos, sin, cos, ...). PE(p + k) is a fixed linear map (a block rotation) of PE(p).
"""
from __future__ import annotations

import math

import torch
from torch import Tensor

from translate.encodings.base import AbsoluteEncoding


def sinusoid_angles(positions: Tensor, width: int, base: float) -> Tensor:
    """positions (..., T) -> angles (..., T, width // 2): p * base^(-2i / width)."""
    inv_freq = torch.exp(torch.arange(0, width, 2, dtype=torch.float32, device=positions.device)
                         * (-math.log(base) / width))
    return positions.float().unsqueeze(-1) * inv_freq


class Sinusoidal(AbsoluteEncoding):
    """Fixed sin/cos table, interleaved. `base` is 10000 in the paper."""

    def __init__(self, d_model: int, n_heads: int, base: float = 10000.0, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        if self.d_pe % 2:
            raise ValueError(f"sinusoidal encodings need an even width, got {self.d_pe}")
        self.base = base

    def compute_table(self, positions: Tensor) -> Tensor:
        angles = sinusoid_angles(positions, self.d_pe, self.base)  # (..., T, d/2)
        return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(-2)  # (..., T, d) interleaved
