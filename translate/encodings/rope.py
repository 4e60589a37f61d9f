"""Rotary position embedding (Su et al. 2021, "RoFormer: Enhanced Transformer with Rotary Position Embedding").

    f(x, m)[2t, 2t+1] = R(m θ_t) (x[2t], x[2t+1]),   θ_t = base^(-2t / r),   R(a) = [[cos a, -sin a], [sin a, cos a]]

applied to q at its position and k at its own after projection, so q_mᵀ k_n = Re[Σ_t q̃_t k̃_t* e^{i(m-n)θ_t}]
depends on the offset m - n only. Pairs are interleaved as in the paper. Only the first r = `rotary_fraction` x Dh
dimensions of each head rotate (GPT-NeoX's partial rotary); the rest pass through. Self-attention caches unrotated
keys, so every decoding step rotates them at their own positions. RoFormer does not define cross-attention.
"""
from __future__ import annotations

from typing import Callable

import torch
from torch import Tensor

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import AttentionEncoding, check


def rotate_pairs(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    """x (..., T, r) with interleaved pairs, cos and sin (..., T, r/2) -> x rotated pair by pair."""
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)


class RoPE(AttentionEncoding):
    def __init__(self, d_model: int, n_heads: int, base: float = 10000.0, rotary_fraction: float = 1.0,
                 **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(isinstance(base, (int, float)) and base > 1, "base", base, "a number > 1")
        self.rotated = int(self.head_dim * rotary_fraction) // 2 * 2
        check(isinstance(rotary_fraction, (int, float)) and 0 < rotary_fraction <= 1 and self.rotated >= 2,
              "rotary_fraction", rotary_fraction, f"a number in (0, 1] leaving >= 2 of the head's {self.head_dim} "
              f"dims to rotate")
        inv_freq = float(base) ** (-torch.arange(0, self.rotated, 2, dtype=torch.float32) / self.rotated)
        self.register_buffer("inv_freq", inv_freq, persistent=False)  # (r/2,)

    def angles(self, positions: Tensor) -> tuple[Tensor, Tensor]:
        """(T,) or (B, T) -> cos, sin broadcastable to (B, H, T, r/2)."""
        angles = positions.float().unsqueeze(-1) * self.inv_freq
        if angles.dim() == 3:
            angles = angles.unsqueeze(1)  # per-sentence positions: (B, 1, T, r/2)
        return angles.cos(), angles.sin()

    def transform(self, positions: Tensor) -> Callable[[Tensor], Tensor]:
        """x (B, H, T, Dh) at `positions` -> x with its first r dims rotated."""
        cos, sin = self.angles(positions)
        r = self.rotated
        return lambda x: torch.cat([rotate_pairs(x[..., :r], cos.to(x.dtype), sin.to(x.dtype)), x[..., r:]], dim=-1)

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        rotate_q, rotate_k = self.transform(q_positions), self.transform(k_positions)
        return AttentionTerms(rotate=lambda q, k: (rotate_q(q), rotate_k(k)))
