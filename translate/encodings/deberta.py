"""Disentangled attention of DeBERTa (He, Liu, Gao and Chen 2021, "DeBERTa: Decoding-enhanced BERT with
Disentangled Attention", ICLR; log buckets from DeBERTa-v2/v3).

    Ã_ij = [ q_i·k_j  +  q_i·K^r_δ(i,j)  +  k_j·Q^r_δ(j,i) ] / sqrt(3 Dh)
             content    content-to-position  position-to-content

K^r = P W_{k,r} and Q^r = P W_{q,r} project a learned table P of 2k relative embeddings (k = `position_buckets`),
shared by the layers. δ(i, j) is the bucket of i - j: exact up to k/2, logarithmic up to `max_relative_positions`,
clipped to [0, 2k). Both terms are q·Rᵀ or k·Rᵀ over the buckets present plus a gather. The content term's extra
1/sqrt(3) is a scaling of q. The enhanced mask decoder (absolute positions before the MLM head) is not used.

Options: `per_layer: true` (the paper's code, default): W_{k,r}, W_{q,r} per attention layer, P shared; false: one
pair shared by every layer. `p2c_delta: j_i` (the paper's equation, default) reads Q^r at δ(j, i); `i_j` at δ(i, j)
as the authors' code does. `relative_norm: layer_norm` applies v2's LayerNorm to P before the projections
(`norm_rel_ebd`); `none` (v1, default) does not.
"""
from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import (AttentionEncoding, DistanceIndex, LayerCopies, check, logits_by_distance,
                                          offsets, stacked)


def log_bucket(relative: Tensor, buckets: int, max_position: int) -> Tensor:
    """DeBERTa-v2's make_log_bucket_position: exact for |d| <= buckets/2, then log-spaced up to max_position."""
    mid = buckets // 2
    sign = torch.sign(relative)
    magnitude = torch.where(relative.abs() < mid, torch.full_like(relative, mid - 1), relative.abs())
    log_position = torch.ceil(torch.log(magnitude.float() / mid) / math.log((max_position - 1) / mid)
                              * (mid - 1)).long() + mid
    return torch.where(magnitude <= mid, relative, log_position * sign)


class PositionProjections(nn.Module):
    """One layer's W_{k,r} and W_{q,r}."""

    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.key_proj, self.query_proj = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)


class DeBERTa(AttentionEncoding):
    P2C_DELTAS = ("j_i", "i_j")
    RELATIVE_NORMS = ("none", "layer_norm")

    def __init__(self, d_model: int, n_heads: int, position_buckets: int = 256, max_relative_positions: int = 512,
                 init_std: float = 0.02, per_layer: bool = True, p2c_delta: str = "j_i",
                 relative_norm: str = "none", **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(isinstance(position_buckets, int) and position_buckets >= 4, "position_buckets", position_buckets,
              "an integer >= 4")
        least = position_buckets // 2 + 1
        check(isinstance(max_relative_positions, int) and max_relative_positions > least, "max_relative_positions",
              max_relative_positions, f"an integer > position_buckets / 2 + 1 = {least}")
        check(p2c_delta in self.P2C_DELTAS, "p2c_delta", p2c_delta,
              f"one of {list(self.P2C_DELTAS)} (j_i: the paper's δ(j, i); i_j: the authors' code)")
        check(relative_norm in self.RELATIVE_NORMS, "relative_norm", relative_norm,
              f"one of {list(self.RELATIVE_NORMS)}")
        self.span, self.max_relative_positions = position_buckets, max_relative_positions
        self.p2c_delta = p2c_delta
        self.embeddings = nn.Parameter(torch.randn(2 * position_buckets, d_model) * init_std)  # P
        self.norm = nn.LayerNorm(d_model) if relative_norm == "layer_norm" else nn.Identity()
        self.projections = LayerCopies(lambda: PositionProjections(d_model), self.kinds, per_layer)

    @property
    def key_proj(self) -> nn.Linear:
        """Layer 0's W_{k,r} (of the encoder, when per layer)."""
        return self.projections.copies[0].key_proj

    @property
    def query_proj(self) -> nn.Linear:
        return self.projections.copies[0].query_proj

    def rows(self, relative: Tensor) -> DistanceIndex:
        """Relative distances -> the rows of P they read."""
        bucket = log_bucket(relative, self.span, self.max_relative_positions)
        return DistanceIndex.of((bucket + self.span).clamp(0, 2 * self.span - 1), 2 * self.span)

    def heads(self, proj: nn.Linear, where: DistanceIndex) -> Tensor:
        """Used rows of P (normalised if so configured), projected: (H, n, Dh)."""
        rows = self.norm(where.used(self.embeddings))
        return proj(rows).unflatten(-1, (self.n_heads, self.head_dim)).transpose(0, 1)

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        c2p = self.rows(-offsets(q_positions, k_positions))  # (..., Tq, Tk): δ(i, j), i - j
        # (..., Tk, Tq), row j and column i: δ(j, i) = bucket of j - i (paper), or δ(i, j) = bucket of i - j (code)
        key_to_query = offsets(q_positions, k_positions).transpose(-2, -1)  # [j, i] = j - i
        p2c = self.rows(key_to_query if self.p2c_delta == "j_i" else -key_to_query)
        return stacked([self.layer_terms(self.heads(layer.key_proj, c2p), self.heads(layer.query_proj, p2c), c2p, p2c)
                        for layer in self.projections.of(kind)])

    def layer_terms(self, key_r: Tensor, query_r: Tensor, c2p: DistanceIndex, p2c: DistanceIndex) -> AttentionTerms:
        scale = (3 * self.head_dim) ** -0.5

        def content_bias(q: Tensor, k: Tensor) -> Tensor:
            # q arrives scaled by 1/sqrt(3) (rotate); k does not
            return (logits_by_distance(q, key_r, c2p) * self.head_dim ** -0.5
                    + logits_by_distance(k, query_r, p2c).transpose(-2, -1) * scale)

        return AttentionTerms(rotate=lambda q, k: (q * 3 ** -0.5, k), content_bias=content_bias)
