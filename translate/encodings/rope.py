"""Rotary position embedding (Su et al. 2021, "RoFormer: Enhanced Transformer with Rotary Position Embedding").

    f(x, m)[2t, 2t+1] = R(m θ_t) (x[2t], x[2t+1]),   θ_t = base^(-2t / r),   R(a) = [[cos a, -sin a], [sin a, cos a]]

applied to q at its position and k at its own after projection, so q_mᵀ k_n = Re[Σ_t q̃_t k̃_t* e^{i(m-n)θ_t}]
depends on the offset m - n only. Pairs are interleaved as in the paper. Only the first r = `rotary_fraction` x Dh
dimensions of each head rotate (GPT-NeoX's partial rotary); the rest pass through. Self-attention caches unrotated
keys, so every decoding step rotates them at their own positions. RoFormer does not define cross-attention.

Scaling at test time (`scaling`), for sentences longer than the longest training one. Training records L, the
longest training source sentence in tokens, in the state (`trained_length`, so in every checkpoint); a sentence of
n > L source tokens is then read with the factor s = n / L (or `scaling_factor`), on both sides (the decoder's
translation is about as long as its source, and a factor fixed by the source keeps cached decoding exact). A sentence
of n <= L tokens, and every sentence in training, gets plain RoPE: s = 1 is the identity in every formula below.

    interpolation  (Chen et al. 2023, "Extending Context Window of Large Language Models via Positional
                    Interpolation"):  angle = (m / s) θ_t, every frequency slowed by s
    ntk            (NTK-aware base scaling, bloc97 2023):  base' = base · s^(r / (r - 2)), so
                    angle = m θ_t s^(-2t / (r - 2)): the fastest pair (t = 0) keeps its speed, the slowest is
                    slowed by exactly s
    yarn           (Peng et al. 2023, "YaRN: Efficient Context Window Extension of Large Language Models"):
                    angle = m θ_t ((1 - γ_t) / s + γ_t),  γ_t = clamp((L / λ_t - α) / (β - α), 0, 1), λ_t = 2π / θ_t
                    (pairs turning more than β times within L keep their speed, fewer than α times are
                    interpolated, a ramp between), and q, k both scaled by 0.1 ln s + 1 (its attention
                    temperature; on the rotated dims). α = `yarn_alpha` 1, β = `yarn_beta` 32, the paper's values.

`trained_length` given in the config replaces the recorded L (checkpoints written before L was recorded hold none).
Evaluate one trained model with each scaling: `python -m translate.evaluate checkpoint=... encoding.scaling=yarn`.
A scaled sentence's positions travel as the complex numbers m + i·s (the positions contract carries one tensor per
side; a complex one keeps its (B, T) shape through beam search's row selection and the decoder's slicing).
"""
from __future__ import annotations

import math
from typing import Callable, Optional

import torch
from torch import Tensor

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import AttentionEncoding, check

SCALINGS = ("none", "interpolation", "ntk", "yarn")


def rotate_pairs(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    """x (..., T, r) with interleaved pairs, cos and sin (..., T, r/2) -> x rotated pair by pair."""
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)


class RoPE(AttentionEncoding):
    # Settings `translate.evaluate` may change on a trained model: they change no weight.
    TEST_TIME_SETTINGS = ("scaling", "scaling_factor", "trained_length", "yarn_alpha", "yarn_beta")

    def __init__(self, d_model: int, n_heads: int, base: float = 10000.0, rotary_fraction: float = 1.0,
                 scaling: str = "none", scaling_factor: Optional[float] = None, trained_length: Optional[int] = None,
                 yarn_alpha: float = 1.0, yarn_beta: float = 32.0, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(isinstance(base, (int, float)) and base > 1, "base", base, "a number > 1")
        self.rotated = int(self.head_dim * rotary_fraction) // 2 * 2
        check(isinstance(rotary_fraction, (int, float)) and 0 < rotary_fraction <= 1 and self.rotated >= 2,
              "rotary_fraction", rotary_fraction, f"a number in (0, 1] leaving >= 2 of the head's {self.head_dim} "
              f"dims to rotate")
        check(scaling in SCALINGS, "scaling", scaling, f"one of {list(SCALINGS)}")
        check(scaling_factor is None or (isinstance(scaling_factor, (int, float)) and not isinstance(
            scaling_factor, bool) and scaling_factor >= 1), "scaling_factor", scaling_factor,
              "null (n / L for a sentence of n tokens) or a number >= 1")
        check(trained_length is None or (isinstance(trained_length, int) and not isinstance(trained_length, bool)
                                         and trained_length >= 1), "trained_length", trained_length,
              "null (the length training recorded) or an integer >= 1")
        check(isinstance(yarn_alpha, (int, float)) and isinstance(yarn_beta, (int, float))
              and 0 <= yarn_alpha < yarn_beta, "yarn_beta", yarn_beta, f"a number > yarn_alpha={yarn_alpha!r} >= 0")
        self.scaling, self.scaling_factor, self.given_length = scaling, scaling_factor, trained_length
        inv_freq = float(base) ** (-torch.arange(0, self.rotated, 2, dtype=torch.float32) / self.rotated)
        self.register_buffer("inv_freq", inv_freq, persistent=False)  # (r/2,) θ_t
        t = torch.arange(self.rotated // 2, dtype=torch.float32)
        self.register_buffer("ntk_exponent", 2 * t / max(self.rotated - 2, 1), persistent=False)  # 2t / (r - 2)
        self.yarn_alpha, self.yarn_beta = float(yarn_alpha), float(yarn_beta)
        self.register_buffer("trained_length", torch.zeros((), dtype=torch.long))  # L; 0: not recorded

    # -- the training length, kept in the state dict --------------------------------------------------------------
    def record_training_length(self, tokens: int) -> None:
        self.trained_length.fill_(int(tokens))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)
        if prefix + "trained_length" in missing_keys:  # a checkpoint from before L was recorded: L stays unknown
            missing_keys.remove(prefix + "trained_length")

    def longest_trained(self) -> int:
        """L: the configured trained_length, else the recorded one; ValueError when neither is known."""
        if self.given_length is not None:
            return self.given_length
        recorded = int(self.trained_length)
        if recorded < 1:
            raise ValueError(f"encoding.scaling={self.scaling} needs the longest training sentence, which this model "
                             f"does not record (trained before it was recorded): give encoding.trained_length=N, "
                             f"the longest training source sentence in tokens")
        return recorded

    def sentence_positions(self, positions: Tensor, source_lengths: Tensor, side: str) -> Tensor:
        """Plain positions, or m + i·s for the sentences longer than L when a scaling is on (evaluation only)."""
        if self.scaling == "none" or self.training:
            return positions
        longest = self.longest_trained()
        longer = source_lengths > longest  # (B,)
        if not bool(longer.any()):
            return positions
        factor = (source_lengths.float() / longest if self.scaling_factor is None
                  else torch.full(source_lengths.shape, float(self.scaling_factor), device=positions.device))
        factor = torch.where(longer, factor, torch.ones_like(factor))
        return torch.complex(positions.float().expand(source_lengths.size(0), -1).contiguous(),
                             factor[:, None].expand(-1, positions.size(-1)).contiguous())  # (B, T)

    # -- the rotation -------------------------------------------------------------------------------------------------
    def frequencies(self, factor: Tensor) -> tuple[Tensor, Tensor]:
        """factor s (..., 1) -> each pair's frequency (..., r/2) and the amplitude of cos and sin (..., 1)."""
        one = torch.ones_like(factor)
        if self.scaling == "interpolation":
            return self.inv_freq / factor, one
        if self.scaling == "ntk":
            return self.inv_freq * factor ** -self.ntk_exponent, one
        turns = self.longest_trained() * self.inv_freq / (2 * math.pi)  # L / λ_t
        keep = ((turns - self.yarn_alpha) / (self.yarn_beta - self.yarn_alpha)).clamp(0, 1)  # γ_t
        return self.inv_freq * ((1 - keep) / factor + keep), 0.1 * torch.log(factor) + 1

    def angles(self, positions: Tensor) -> tuple[Tensor, Tensor]:
        """(T,) or (B, T), real or m + i·s -> cos, sin broadcastable to (B, H, T, r/2)."""
        if positions.is_complex():
            frequencies, amplitude = self.frequencies(positions.imag.unsqueeze(-1))
            angles = positions.real.unsqueeze(-1) * frequencies
            cos, sin = angles.cos() * amplitude, angles.sin() * amplitude
        else:
            angles = positions.float().unsqueeze(-1) * self.inv_freq
            cos, sin = angles.cos(), angles.sin()
        if cos.dim() == 3:  # per-sentence positions: (B, 1, T, r/2)
            cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        return cos, sin

    def transform(self, positions: Tensor) -> Callable[[Tensor], Tensor]:
        """x (B, H, T, Dh) at `positions` -> x with its first r dims rotated."""
        cos, sin = self.angles(positions)
        r = self.rotated
        return lambda x: torch.cat([rotate_pairs(x[..., :r], cos.to(x.dtype), sin.to(x.dtype)), x[..., r:]], dim=-1)

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        rotate_q, rotate_k = self.transform(q_positions), self.transform(k_positions)
        return AttentionTerms(rotate=lambda q, k: (rotate_q(q), rotate_k(k)))
