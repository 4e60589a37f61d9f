"""xPos: extrapolatable position embedding (Sun et al. 2023, "A Length-Extrapolatable Transformer", ACL; the
torchscale implementation).

    q_n -> R(n θ) q_n · ζ^(n/γ),   k_m -> R(m θ) k_m · ζ^(-m/γ),   ζ_t = (2t/r + a) / (1 + a)

RoPE (rope.py) plus a per-pair scale, so the logit of pair t carries ζ_t^((n - m)/γ): an exponential decay with
the offset (γ = `scale_base` = 512, a = `gamma` = 0.4). Positions are centred on the keys' midpoint before
scaling, which keeps ζ^(±n/γ) in range and, as the offset is all that counts, changes no logit.

The decay is defined for causal attention (n >= m), where decoder self-attention always gets it. `encoder_scaling`
decides the bidirectional attentions (encoder, and cross-attention when on): `none` (default) the rotation alone;
`xpos` the same q-up / k-down scaling as the decoder, as torchscale applies it in an encoder configured with
`xpos_rel_pos` (its `scale_base` is the same γ): keys to the right of the query then get ζ^((n - m)/γ) > 1, an
amplification that grows with the distance. The paper trains decoder-only language models.

Near-equality with `rope`: at the defaults the factor ζ_t^(offset/512) lies between 0.88 (t = 0) and 0.998 (last
pair) at offset 50, and is closer to 1 at sentence-level offsets, so `xpos` behaves almost like `rope` on
translation; a smaller `scale_base` (e.g. 16) makes the decay visible.
"""
from __future__ import annotations

from typing import Callable

import torch
from torch import Tensor

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import check
from translate.encodings.rope import RoPE


class XPos(RoPE):
    ENCODER_SCALINGS = ("none", "xpos")
    TEST_TIME_SETTINGS = ()  # RoPE's test-time scalings are not defined on xPos's decay

    def __init__(self, d_model: int, n_heads: int, base: float = 10000.0, rotary_fraction: float = 1.0,
                 scale_base: float = 512.0, gamma: float = 0.4, encoder_scaling: str = "none", **kw) -> None:
        super().__init__(d_model, n_heads, base, rotary_fraction, **kw)
        check(self.scaling == "none", "scaling", self.scaling, "none (RoPE's scalings are not defined for xPos)")
        check(encoder_scaling in self.ENCODER_SCALINGS, "encoder_scaling", encoder_scaling,
              f"one of {list(self.ENCODER_SCALINGS)} (none: the rotation alone; xpos: the decoder's scaling)")
        self.scaled_kinds = ("decoder",) if encoder_scaling == "none" else self.kinds
        check(isinstance(scale_base, (int, float)) and scale_base > 0, "scale_base", scale_base, "a number > 0")
        check(isinstance(gamma, (int, float)) and gamma > 0, "gamma", gamma, "a number > 0")
        self.scale_base = float(scale_base)
        zeta = (torch.arange(0, self.rotated, 2, dtype=torch.float32) / self.rotated + gamma) / (1 + gamma)
        self.register_buffer("zeta", zeta, persistent=False)  # (r/2,)

    def scale(self, positions: Tensor, centre: Tensor, sign: float) -> Tensor:
        """ζ^(sign (p - centre) / γ) per dim: (T,) -> (T, Dh), or (B, T) -> (B, 1, T, Dh); unrotated dims get 1."""
        exponent = sign * (positions.float() - centre).unsqueeze(-1) / self.scale_base
        per_pair = self.zeta ** exponent  # (..., T, r/2)
        ones = per_pair.new_ones(per_pair.shape[:-1] + (self.head_dim - self.rotated,))
        scale = torch.cat([per_pair.repeat_interleave(2, dim=-1), ones], dim=-1)
        return scale.unsqueeze(1) if scale.dim() == 3 else scale

    def scaled_transform(self, positions: Tensor, centre: Tensor, sign: float) -> Callable[[Tensor], Tensor]:
        rotate, scale = self.transform(positions), self.scale(positions, centre, sign)
        return lambda x: rotate(x) * scale.to(x.dtype)

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        if kind not in self.scaled_kinds:
            return super().terms(kind, q_positions, k_positions)
        centre = torch.div(k_positions.max() + 1, 2, rounding_mode="floor").float()
        scale_q = self.scaled_transform(q_positions, centre, 1.0)
        scale_k = self.scaled_transform(k_positions, centre, -1.0)
        return AttentionTerms(rotate=lambda q, k: (scale_q(q), scale_k(k)))
