"""Raw-index absolute encoding: the position number itself (the known-bad baseline of the textbook discussion that
motivates the sinusoids of Vaswani et al. 2017: unbounded, it soon dwarfs the word embeddings).

    PE(p) = p * s,   s = (+1, -1, +1, -1, ...)

The scalar is written along the fixed zero-mean direction s rather than along (1, ..., 1): LayerNorm subtracts the
mean over dimensions, so a constant added to every dimension would be erased before any attention sees it.
"""
from __future__ import annotations

import torch
from torch import Tensor

from translate.encodings.base import AbsoluteEncoding


def alternating_signs(width: int, device) -> Tensor:
    """(width,) = (+1, -1, +1, ...): a direction LayerNorm's mean subtraction keeps."""
    return 1.0 - 2.0 * (torch.arange(width, device=device) % 2).float()


class Index(AbsoluteEncoding):
    def compute_table(self, positions: Tensor) -> Tensor:
        return positions.float().unsqueeze(-1) * alternating_signs(self.d_pe, positions.device)  # (..., T, d)
