"""Sine-only absolute encoding: every dimension a sine, each at its own frequency (a variant the notes on
Vaswani et al. 2017 compare against the sin/cos pairs).

    PE(p, i) = sin(p / base^(i / d)),   i = 0 .. d-1

Without the cosine partner a shift is no longer a linear map: PE(p + k) cannot be written as M_k PE(p) (sin(a + b)
needs cos(a)), and PE(0) is the zero vector, so position 0 carries no signal.
"""
from __future__ import annotations

import math

import torch
from torch import Tensor

from translate.encodings.base import AbsoluteEncoding


def spread_frequencies(width: int, base: float, device) -> Tensor:
    """(width,) frequencies base^(-i / width): one per dimension, from 1 down to about 1 / base."""
    return torch.exp(torch.arange(width, dtype=torch.float32, device=device) * (-math.log(base) / width))


class SinOnly(AbsoluteEncoding):
    wave = staticmethod(torch.sin)  # applied to p * frequency, per dimension

    def __init__(self, d_model: int, n_heads: int, base: float = 10000.0, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        if not base > 1:
            raise ValueError(f"encoding.base={base} is not allowed: expected a number > 1")
        self.base = base

    def compute_table(self, positions: Tensor) -> Tensor:
        freqs = spread_frequencies(self.d_pe, self.base, positions.device)
        return self.wave(positions.float().unsqueeze(-1) * freqs)  # (..., T, d)
