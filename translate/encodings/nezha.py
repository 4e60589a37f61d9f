"""Functional relative positions of NEZHA (Wei et al. 2019, "NEZHA: Neural Contextualized Representation for
Chinese Language Understanding", section 3.2).

Shaw et al.'s key and value terms (see shaw.py) with fixed sinusoidal tables instead of learned ones:

    a_ij[2t] = sin((j - i) / base^(2t / Dh)),   a_ij[2t + 1] = cos((j - i) / base^(2t / Dh)),
    j - i clipped to [-k, k]; the released model uses k = 64, base = 10000. No parameters.
"""
from __future__ import annotations

from translate.encodings.relative import sinusoid_table
from translate.encodings.shaw import ClippedRelative


class Nezha(ClippedRelative):
    def __init__(self, d_model: int, n_heads: int, max_relative_position: int = 64, base: float = 10000.0,
                 **kw) -> None:
        super().__init__(d_model, n_heads, max_relative_position, **kw)
        table = sinusoid_table(self.distances(), self.head_dim, base)  # (2k + 1, Dh)
        self.register_buffer("key_table", table, persistent=False)
        self.register_buffer("value_table", table, persistent=False)
