"""Hierarchically decomposed learned positions (Su Jianlin, bert4keras, 2020: "层次分解位置编码", extending BERT's
512 learned positions to 512^2).

A learned table u_0 .. u_{n-1} is first re-centred, then position p = i * n + j (i = p // n, j = p mod n) reads

    v_k = (u_k - alpha * u_0) / (1 - alpha)
    PE(p) = alpha * v_i + (1 - alpha) * v_j,      alpha = 0.4 in bert4keras

For p < n (i = 0) this is exactly u_p, so a trained table is unchanged below n while n^2 positions become
representable: every block of n positions repeats the table's shape, offset by alpha * v_i.
"""
from __future__ import annotations

import torch
from torch import Tensor

from translate.encodings.learned import Learned


class Hierarchical(Learned):
    """A `learned` table of `base_positions` rows that represents base_positions^2 positions."""

    def __init__(self, d_model: int, n_heads: int, base_positions: int = 32, alpha: float = 0.4, **kw) -> None:
        if not 0 < alpha < 1:
            raise ValueError(f"encoding.alpha={alpha} is not allowed: expected a number in (0, 1)")
        if not (isinstance(base_positions, int) and base_positions >= 2):
            raise ValueError(f"encoding.base_positions={base_positions} is not allowed: expected an integer >= 2")
        super().__init__(d_model, n_heads, max_positions=base_positions, **kw)
        self.base_positions = base_positions
        self.alpha = alpha

    @property
    def max_positions(self) -> int:
        return self.base_positions ** 2

    def compute_table(self, positions: Tensor) -> Tensor:
        if positions.numel() and not torch.compiler.is_compiling() and int(positions.max()) >= self.max_positions:
            self.check_length(int(positions.max()) + 1, "the input")
        n, alpha = self.base_positions, self.alpha
        recentred = (self.weight - alpha * self.weight[:1]) / (1 - alpha)  # (n, d)
        return alpha * recentred[positions // n] + (1 - alpha) * recentred[positions % n]  # (..., T, d)
