"""Learned absolute position embeddings (BERT, Devlin et al. 2019; also Gehring et al. 2017).

    PE(p) = W[p],  W in R^{max_positions x d}

Cannot represent positions >= max_positions: such inputs are refused with a clear error.
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

from translate.encodings.base import AbsoluteEncoding


class Learned(AbsoluteEncoding):
    INITS = ("normal", "zeros")

    def __init__(self, d_model: int, n_heads: int, max_positions: int = 256, init: str = "normal",
                 init_std: float = 0.02, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        if init not in self.INITS:
            raise ValueError(f"encoding.init={init!r} is not allowed; choose one of {list(self.INITS)}")
        if max_positions < 1:
            raise ValueError(f"encoding.max_positions={max_positions} must be >= 1")
        table = torch.zeros(max_positions, self.d_pe) if init == "zeros" else torch.randn(max_positions, self.d_pe) * init_std
        self.weight = nn.Parameter(table)  # (max_positions, d)
        self._max_positions = max_positions

    @property
    def max_positions(self) -> int:
        return self._max_positions

    def compute_table(self, positions: Tensor) -> Tensor:
        if positions.numel() and not torch.compiler.is_compiling() and int(positions.max()) >= self._max_positions:
            self.check_length(int(positions.max()) + 1, "the input")
        return self.weight[positions]

