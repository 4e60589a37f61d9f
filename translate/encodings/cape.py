"""CAPE, continuous augmented positional embeddings (Likhomanenko, Xu, Synnaeve, Collobert and Rogozhnikov 2021,
"CAPE: Encoding Relative Positions with Continuous Augmented Positional Embeddings").

Positions are continuous. In training each sentence gets a random global shift and a random global scale, and each
token a small local shift, before the sinusoidal table is evaluated at those real-valued positions:

    p' = (p + delta_b + eps_bt) * lambda_b                                                    (training)
    delta_b ~ U[-max_global_shift, max_global_shift],  eps_bt ~ U[-max_local_shift, max_local_shift],
    log lambda_b ~ U[-log max_global_scaling, log max_global_scaling]
    p' = p                                                                                    (evaluation)

so the model learns to use relative, scale-robust position information. Local shifts below 0.5 keep the order of
tokens. The reference code can also centre each sentence's positions on their mean; that needs the whole target,
which cached decoding does not have, so it is left out.
"""
from __future__ import annotations

import math

import torch
from torch import Tensor

from translate.encodings.sinusoidal import Sinusoidal


def symmetric_uniform(shape: tuple, bound: float, device) -> Tensor:
    return (torch.rand(shape, device=device) * 2 - 1) * bound


class Cape(Sinusoidal):
    def __init__(self, d_model: int, n_heads: int, max_global_shift: float = 5.0, max_local_shift: float = 0.5,
                 max_global_scaling: float = 1.1, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        for key, value in (("max_global_shift", max_global_shift), ("max_local_shift", max_local_shift)):
            if not (isinstance(value, (int, float)) and value >= 0):
                raise ValueError(f"encoding.{key}={value} is not allowed: expected a number >= 0")
        if not (isinstance(max_global_scaling, (int, float)) and max_global_scaling >= 1):
            raise ValueError(f"encoding.max_global_scaling={max_global_scaling} is not allowed: "
                             f"expected a number >= 1")
        self.max_global_shift = float(max_global_shift)
        self.max_local_shift = float(max_local_shift)
        self.max_global_scaling = float(max_global_scaling)

    def augment(self, positions: Tensor, batch: int) -> Tensor:
        """positions (T,) or (B, T) -> (B, T) continuous training positions."""
        positions = positions.float().expand(batch, positions.size(-1))
        device = positions.device
        global_shift = symmetric_uniform((batch, 1), self.max_global_shift, device)
        local_shift = symmetric_uniform(tuple(positions.shape), self.max_local_shift, device)
        scale = torch.exp(symmetric_uniform((batch, 1), math.log(self.max_global_scaling), device))
        return (positions + global_shift + local_shift) * scale

    def embed(self, x: Tensor, positions: Tensor, side: str) -> Tensor:
        if self.training:
            positions = self.augment(positions, x.size(0))
        return super().embed(x, positions, side)
