"""Relative position representations (Shaw, Uszkoreit and Vaswani 2018, "Self-Attention with Relative Position
Representations", NAACL).

    e_ij = q_i · (k_j + a^K_ij) / sqrt(Dh)          z_i = Σ_j α_ij (v_j + a^V_ij)
    a^K_ij = w^K[clip(j - i, -k, k)],   a^V_ij = w^V[clip(j - i, -k, k)]

Two learned tables of 2k + 1 rows of width Dh, shared by the heads. `per_layer: true` (the paper, default): each
attention layer has its own pair of tables; false: one pair shared by every layer (and by encoder and decoder).
q·w^K over the distances present plus a gather gives the key term; the value term is the attention probabilities
summed per distance times w^V. The paper uses k = 16 for translation.
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import (AttentionEncoding, DistanceIndex, LayerCopies, check, logits_by_distance,
                                          offsets, stacked, sum_by_distance)


class ClippedRelative(AttentionEncoding):
    """Shaw's terms over `key_table` and `value_table` (2k + 1, Dh), set by the subclass (learned or fixed)."""

    key_table: Tensor
    value_table: Tensor

    def layer_tables(self, kind: str) -> list[tuple[Tensor, Tensor]]:
        """(key, value) tables read by each layer of `kind`; one pair for all layers unless overridden."""
        return [(self.key_table, self.value_table)]

    def __init__(self, d_model: int, n_heads: int, max_relative_position: int = 16, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(isinstance(max_relative_position, int) and max_relative_position >= 1, "max_relative_position",
              max_relative_position, "an integer >= 1 (the clipping distance k)")
        self.max_relative_position = max_relative_position

    def distances(self) -> Tensor:
        """(2k + 1,) the clipped distances -k..k, in table order."""
        k = self.max_relative_position
        return torch.arange(-k, k + 1)

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        k = self.max_relative_position
        where = DistanceIndex.of(offsets(q_positions, k_positions).clamp(-k, k) + k, 2 * k + 1)  # (..., Tq, Tk)
        return stacked([self.layer_terms(where, key_table, value_table)
                        for key_table, value_table in self.layer_tables(kind)])

    def layer_terms(self, where: DistanceIndex, key_table: Tensor, value_table: Tensor) -> AttentionTerms:
        keys, values = where.used(key_table), where.used(value_table)  # (n, Dh)
        scale = self.head_dim ** -0.5
        return AttentionTerms(content_bias=lambda q, _k: logits_by_distance(q * scale, keys, where),
                              value_term=lambda probs: sum_by_distance(probs, values, where))


class ShawTables(nn.Module):
    """One layer's learned key and value tables (2k + 1, Dh)."""

    def __init__(self, rows: int, width: int, init_std: float) -> None:
        super().__init__()
        self.key_table = nn.Parameter(torch.randn(rows, width) * init_std)
        self.value_table = nn.Parameter(torch.randn(rows, width) * init_std)


class Shaw(ClippedRelative):
    """Learned key and value tables (normal init, std `init_std`), per layer or shared (`per_layer`)."""

    def __init__(self, d_model: int, n_heads: int, max_relative_position: int = 16, init_std: float = 0.02,
                 per_layer: bool = True, **kw) -> None:
        super().__init__(d_model, n_heads, max_relative_position, **kw)
        rows = 2 * max_relative_position + 1
        self.tables = LayerCopies(lambda: ShawTables(rows, self.head_dim, init_std), self.kinds, per_layer)

    @property
    def key_table(self) -> Tensor:
        """Layer 0's key table (of the encoder, when per layer)."""
        return self.tables.copies[0].key_table

    @property
    def value_table(self) -> Tensor:
        return self.tables.copies[0].value_table

    def layer_tables(self, kind: str) -> list[tuple[Tensor, Tensor]]:
        return [(t.key_table, t.value_table) for t in self.tables.of(kind)]
