"""Sinusoidal absolute encoding with the sines in the first half and the cosines in the second (tensor2tensor's
layout; the same frequencies as Vaswani et al. 2017, "Attention Is All You Need").

    PE(p, i)         = sin(p / base^(2i / d))     for i < d/2
    PE(p, d/2 + i)   = cos(p / base^(2i / d))

Only the order of the dimensions differs from `sinusoidal`, so PE(p + k) is still a fixed linear map of PE(p). The
layout matters once dimensions are treated differently, e.g. by the `zero_dims` ablation or `merge: concat`.
"""
from __future__ import annotations

import torch
from torch import Tensor

from translate.encodings.sinusoidal import Sinusoidal, sinusoid_angles


class SinusoidalConcat(Sinusoidal):
    """[sin | cos] halves instead of interleaved pairs."""

    def compute_table(self, positions: Tensor) -> Tensor:
        angles = sinusoid_angles(positions, self.d_pe, self.base)  # (..., T, d/2)
        return torch.cat([angles.sin(), angles.cos()], dim=-1)  # (..., T, d)
