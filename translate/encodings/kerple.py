"""KERPLE: kernelized relative positional embedding (Chi, Fan, Ramadge and Rudnicky 2022, "KERPLE: Kernelized
Relative Positional Embedding for Length Extrapolation", NeurIPS).

    power:  logits_ij += -r1_h |i - j|^r2_h          r1 > 0, 0 < r2 <= 2
    log:    logits_ij += -r1_h log(1 + r2_h |i - j|)  r1, r2 > 0

Conditionally positive definite kernels turned into a bias; r1, r2 are learned per head (one pair per attention
kind). As in the paper's code they start uniform in [0, 2] (r1) and [0, 1] (r2) and are clamped into their range
(at `eps`, and r2 at 2 for the power variant) before use. The paper clamps the parameters in place; here the clamp
has a straight-through gradient: the same forward values, without a side effect in forward. The paper's causal
bias uses i - j for j <= i; |i - j| is the same there and makes the encoder's form symmetric.
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import AttentionEncoding, check, offsets


def straight_through(raw: Tensor, clamped: Tensor) -> Tensor:
    """The value of `clamped` with the gradient of `raw`."""
    return raw + (clamped - raw).detach()


class Kerple(AttentionEncoding):
    VARIANTS = ("log", "power")

    def __init__(self, d_model: int, n_heads: int, variant: str = "log", eps: float = 0.01, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(variant in self.VARIANTS, "variant", variant, f"one of {list(self.VARIANTS)}")
        check(isinstance(eps, (int, float)) and 0 < eps < 1, "eps", eps, "a number in (0, 1)")
        self.variant, self.eps = variant, float(eps)
        self.r1 = nn.ParameterDict({kind: nn.Parameter(torch.rand(n_heads, 1, 1) * 2) for kind in self.kinds})
        self.r2 = nn.ParameterDict({kind: nn.Parameter(torch.rand(n_heads, 1, 1)) for kind in self.kinds})

    def project(self, kind: str) -> tuple[Tensor, Tensor]:
        """The (H, 1, 1) parameters of `kind` clamped into their range; gradients pass the clamp unchanged."""
        r1, r2 = self.r1[kind], self.r2[kind]
        r2_max = 2.0 if self.variant == "power" else None
        return straight_through(r1, r1.clamp(min=self.eps)), straight_through(r2, r2.clamp(self.eps, r2_max))

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        r1, r2 = self.project(kind)
        distance = offsets(q_positions, k_positions).abs().unsqueeze(-3).float()  # (..., 1, Tq, Tk)
        if self.variant == "power":
            return AttentionTerms(bias=-r1 * distance.pow(r2))
        return AttentionTerms(bias=-r1 * torch.log1p(r2 * distance))
