"""FIRE: functional interpolation for relative positions (Li et al. 2023, "Functional Interpolation for Relative
Positions Improves Long Context Transformers", ICLR 2024).

    logits_ij += f_θ( ψ(|i - j|) / ψ(max(L, i)) ),   ψ(x) = log(c x + 1)

f_θ is a small MLP (1 -> `mlp_width` -> H, ReLU), c a learned scale (init 0.1) and L a learned threshold (init
512): below L the bias depends on the distance only; beyond it the distance is normalised by the query position,
which maps any length into [0, 1] (progressive interpolation). One function per attention kind.

The paper's code takes |i - j|. `direction` chooses the bidirectional attentions' form (encoder, and
cross-attention when on): symmetric (default) one f_θ of |i - j|, or directional: a second function (its own MLP,
c and L) for keys to the right of the query. The decoder's future keys are masked anyway.
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import AttentionEncoding, bidirectional_kinds, check, offsets, per_head


class FireFunction(nn.Module):
    """(Tq,), (Tk,) positions -> (..., H, Tq, Tk) bias."""

    def __init__(self, n_heads: int, mlp_width: int, init_c: float, init_threshold: float, eps: float) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(1, mlp_width), nn.ReLU(), nn.Linear(mlp_width, n_heads))
        self.c = nn.Parameter(torch.tensor(float(init_c)))
        self.register_buffer("init_threshold", torch.tensor(float(init_threshold)), persistent=False)
        self.threshold_multiplier = nn.Parameter(torch.tensor(1.0))  # L = |multiplier| * init_threshold
        self.eps = eps

    def psi(self, x: Tensor) -> Tensor:
        return torch.log(torch.abs(self.c * x) + 1)

    def forward(self, q_positions: Tensor, k_positions: Tensor) -> Tensor:
        distance = offsets(q_positions, k_positions).abs().float()  # (..., Tq, Tk)
        threshold = torch.abs(self.threshold_multiplier * self.init_threshold)
        normaliser = self.psi(torch.maximum(q_positions.float(), threshold)) + self.eps  # (..., Tq)
        normalised = self.psi(distance) / normaliser.unsqueeze(-1)  # (..., Tq, Tk), in [0, 1] below L
        return per_head(self.mlp(normalised.unsqueeze(-1)))  # (..., H, Tq, Tk)


class Fire(AttentionEncoding):
    def __init__(self, d_model: int, n_heads: int, mlp_width: int = 32, init_c: float = 0.1,
                 init_threshold: float = 512.0, eps: float = 1e-6, direction: str = "symmetric", **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(isinstance(mlp_width, int) and mlp_width >= 1, "mlp_width", mlp_width, "an integer >= 1")
        check(isinstance(init_c, (int, float)) and init_c > 0, "init_c", init_c, "a number > 0")
        check(isinstance(init_threshold, (int, float)) and init_threshold >= 1, "init_threshold", init_threshold,
              "a number >= 1 (positions)")
        self.directional = bidirectional_kinds(self.kinds, direction)
        sides = list(self.kinds) + [f"{kind}_right" for kind in self.directional]
        self.functions = nn.ModuleDict({side: FireFunction(n_heads, mlp_width, init_c, init_threshold, eps)
                                        for side in sides})

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        left = self.functions[kind](q_positions, k_positions)  # (..., H, Tq, Tk)
        if kind not in self.directional:
            return AttentionTerms(bias=left)
        right = self.functions[f"{kind}_right"](q_positions, k_positions)
        to_the_right = offsets(q_positions, k_positions).unsqueeze(-3) > 0  # (..., 1, Tq, Tk)
        return AttentionTerms(bias=torch.where(to_the_right, right, left))
