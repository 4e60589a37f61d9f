"""KERPLE: kernelized relative positional embedding (Chi, Fan, Ramadge and Rudnicky 2022, "KERPLE: Kernelized
Relative Positional Embedding for Length Extrapolation", NeurIPS).

    power:  logits_ij += -r1_h |i - j|^r2_h          r1 > 0, 0 < r2 <= 2
    log:    logits_ij += -r1_h log(1 + r2_h |i - j|)  r1, r2 > 0

Conditionally positive definite kernels turned into a bias; r1, r2 are learned per head (one pair per attention
kind). As in the paper's code they start uniform: log: r1 in [0, 2], r2 in [0, 1]; power: the scale r1 in [0, 1]
and the exponent r2 in [0, 2] (here from eps up). The paper clamps them in place after each step; here they are
parametrised to stay in range whatever the optimiser does: r = eps + softplus(raw), and for the power exponent
r2 = eps + (2 - eps) sigmoid(raw), so a raw value can drift anywhere without leaving the constraint.

The paper defines the causal bias (i - j for j <= i). `direction` chooses the bidirectional attentions' form
(encoder, and cross-attention when on): symmetric (default) |i - j| with one pair, or directional: a second pair
(r1', r2') for keys to the right of the query.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import AttentionEncoding, bidirectional_kinds, check, offsets


def inverse_softplus(y: Tensor) -> Tensor:
    return y + torch.log(-torch.expm1(-y))


class Kerple(AttentionEncoding):
    VARIANTS = ("log", "power")

    def __init__(self, d_model: int, n_heads: int, variant: str = "log", eps: float = 0.01,
                 direction: str = "symmetric", **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(variant in self.VARIANTS, "variant", variant, f"one of {list(self.VARIANTS)}")
        check(isinstance(eps, (int, float)) and 0 < eps < 1, "eps", eps, "a number in (0, 1)")
        self.variant, self.eps = variant, float(eps)
        self.directional = bidirectional_kinds(self.kinds, direction)
        r1_range, r2_range = (2.0, 1.0) if variant == "log" else (1.0, 2.0)
        sides = list(self.kinds) + [f"{kind}_right" for kind in self.directional]
        self.raw_r1 = nn.ParameterDict({side: nn.Parameter(self.unconstrain_r1(self.initial(r1_range)))
                                        for side in sides})
        self.raw_r2 = nn.ParameterDict({side: nn.Parameter(self.unconstrain_r2(self.initial(r2_range)))
                                        for side in sides})

    def initial(self, top: float) -> Tensor:
        """(H, 1, 1) uniform in (eps, top), away from the ends so the inverse maps stay finite."""
        return self.eps + (top - self.eps) * torch.rand(self.n_heads, 1, 1).clamp(1e-3, 1 - 1e-3)

    def r1(self, side: str) -> Tensor:
        return self.eps + F.softplus(self.raw_r1[side])

    def r2(self, side: str) -> Tensor:
        raw = self.raw_r2[side]
        if self.variant == "power":
            return self.eps + (2.0 - self.eps) * torch.sigmoid(raw)
        return self.eps + F.softplus(raw)

    def unconstrain_r1(self, r1: Tensor) -> Tensor:
        return inverse_softplus(r1 - self.eps)

    def unconstrain_r2(self, r2: Tensor) -> Tensor:
        if self.variant == "power":
            return torch.logit((r2 - self.eps) / (2.0 - self.eps))
        return inverse_softplus(r2 - self.eps)

    def kernel(self, side: str, distance: Tensor) -> Tensor:
        """(..., 1, Tq, Tk) distances >= 0 -> (..., H, Tq, Tk) bias."""
        r1, r2 = self.r1(side), self.r2(side)
        if self.variant == "power":
            return -r1 * distance.pow(r2)
        return -r1 * torch.log1p(r2 * distance)

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        relative = offsets(q_positions, k_positions).unsqueeze(-3).float()  # (..., 1, Tq, Tk): j - i
        if kind not in self.directional:
            return AttentionTerms(bias=self.kernel(kind, relative.abs()))
        left = self.kernel(kind, (-relative).clamp(min=0))
        right = self.kernel(f"{kind}_right", relative.clamp(min=0))
        return AttentionTerms(bias=torch.where(relative > 0, right, left))
