"""Binary absolute encoding: the bits of the position index (the textbook step between integer positions and
sinusoids; Vaswani et al. 2017's sines are its continuous, smooth counterpart).

    PE(p, i) = floor(p / 2^i) mod 2,   i = 0 .. d-1   (bit 0, the fastest, first)

Values are 0 or 1. Positions must be integers below 2^d (2^62 at most: the bits of an int64).
"""
from __future__ import annotations

from typing import Optional

import torch
import torch.nn.functional as F
from torch import Tensor

from translate.encodings.base import AbsoluteEncoding

INT64_BITS = 62  # highest bit a non-negative int64 position can set, kept clear of the sign bit


class Binary(AbsoluteEncoding):
    def compute_table(self, positions: Tensor) -> Tensor:
        if positions.is_floating_point():
            raise ValueError("the binary encoding needs integer positions, not continuous ones")
        limit = self.max_positions
        if limit is not None and positions.numel() and int(positions.max()) >= limit:
            self.check_length(int(positions.max()) + 1, "the input")
        shifts = torch.arange(min(self.d_pe, INT64_BITS), device=positions.device)
        bits = (positions.unsqueeze(-1) >> shifts) & 1  # (..., T, min(d, 62))
        table = bits.float()
        if table.size(-1) < self.d_pe:  # bits above 62 are always 0
            table = F.pad(table, (0, self.d_pe - table.size(-1)))
        return table

    @property
    def max_positions(self) -> Optional[int]:
        return 2 ** self.d_pe if self.d_pe < INT64_BITS else None
