"""tanh absolute encoding: a bounded but monotone alternative to the sine (compared with it in the notes on
Vaswani et al. 2017).

    PE(p, i) = tanh(p / base^(i / d)),   i = 0 .. d-1

Each dimension rises from 0 to 1 and then saturates: the fast dimensions are flat after a few positions and only the
slow ones still separate distant positions, so unlike sin/cos there is no periodic structure and no linear shift map.
"""
from __future__ import annotations

import torch
from torch import Tensor

from translate.encodings.base import AbsoluteEncoding
from translate.encodings.sin_only import spread_frequencies


class Tanh(AbsoluteEncoding):
    def __init__(self, d_model: int, n_heads: int, base: float = 10000.0, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        if not base > 1:
            raise ValueError(f"encoding.base={base} is not allowed: expected a number > 1")
        self.base = base

    def compute_table(self, positions: Tensor) -> Tensor:
        freqs = spread_frequencies(self.d_pe, self.base, positions.device)
        return torch.tanh(positions.float().unsqueeze(-1) * freqs)  # (..., T, d)
