"""Dropout whose masks can come from packed random words: the CPU bf16 training path's dropout.

PyTorch's CPU dropout draws one random number per element (`bernoulli_`): 16% of a model=small training step
(docs/speed.md). A mask drawn as 16-bit slices of 64-bit random words takes a quarter of the generator calls:
fw+bw 1.7 ms against 4.3 ms for a (2,500, 256) activation on 2 cores. Each element is kept when its 16-bit slice
is at or above round(p * 2^16), so the drop probability is p to within 2^-17; kept values are scaled by the exact
inverse of the keep probability, so the expectation is unchanged. The reference path (`packed_masks` off) is
torch's own dropout, bit for bit, so fp32 runs keep their random stream.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

SLICES = 1 << 16


def keep_mask(shape: torch.Size, p: float, device: torch.device) -> tuple[Tensor, float]:
    """A boolean mask of `shape`, each element kept with probability 1 - p' (p' = round(p * 2^16) / 2^16), and the
    scale 1 / (1 - p') for kept values."""
    numel = shape.numel()
    words = torch.empty((numel + 3) // 4, dtype=torch.int64, device=device).random_(-(1 << 63), None)  # all 64 bits
    slices = words.view(torch.int16)[:numel].view(shape)  # uniform on [-2^15, 2^15)
    dropped = round(p * SLICES)
    return slices >= dropped - SLICES // 2, SLICES / (SLICES - dropped)


class Dropout(nn.Module):
    """nn.Dropout, or (packed_masks) the same distribution drawn from packed random words."""

    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = p
        self.packed_masks = False  # set for a whole model by use_packed_dropout

    def forward(self, x: Tensor) -> Tensor:
        if not (self.packed_masks and self.training and self.p > 0):
            return F.dropout(x, self.p, self.training)  # what nn.Dropout does
        keep, scale = keep_mask(x.shape, self.p, x.device)
        return x * (keep.to(x.dtype) * scale)

    def extra_repr(self) -> str:
        return f"p={self.p}, packed_masks={self.packed_masks}"


def use_packed_dropout(model: nn.Module, on: bool) -> None:
    """Switch every Dropout of `model` to packed masks (or back to torch's)."""
    for module in model.modules():
        if isinstance(module, Dropout):
            module.packed_masks = on
