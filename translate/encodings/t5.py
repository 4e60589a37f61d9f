"""Relative position bias of T5 (Raffel et al. 2020, "Exploring the Limits of Transfer Learning with a Unified
Text-to-Text Transformer", section 2.1).

    logits_ij += b_h[bucket(j - i)]

A learned scalar per head and bucket, computed once per forward and shared by the layers of a stack (the encoder
and the decoder each have their own table). Buckets: distances below half the buckets are exact, larger ones fall
in logarithmically wider buckets up to `max_distance`, beyond which they share the last. The encoder is
bidirectional (half the buckets per direction); the decoder's buckets are causal (all buckets for j <= i).
T5 puts no bias on cross-attention; `cross_attention: true` gives it a bidirectional table of its own.
"""
from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import AttentionEncoding, check, offsets, per_head


def t5_bucket(relative_position: Tensor, bidirectional: bool, num_buckets: int, max_distance: int) -> Tensor:
    """j - i (any shape) -> bucket ids in [0, num_buckets), as in the T5 code base."""
    buckets = torch.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        buckets += (relative_position > 0).long() * num_buckets
        distance = relative_position.abs()
    else:
        distance = (-relative_position).clamp(min=0)  # keys in the future share bucket 0 (they are masked)
    max_exact = num_buckets // 2
    log_ratio = torch.log(distance.float().clamp(min=1) / max_exact) / math.log(max_distance / max_exact)
    large = (max_exact + (log_ratio * (num_buckets - max_exact)).long()).clamp(max=num_buckets - 1)
    return buckets + torch.where(distance < max_exact, distance, large)


class T5(AttentionEncoding):
    def __init__(self, d_model: int, n_heads: int, num_buckets: int = 32, max_distance: int = 128, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(isinstance(num_buckets, int) and num_buckets >= 4, "num_buckets", num_buckets, "an integer >= 4")
        check(isinstance(max_distance, int) and max_distance > num_buckets // 2, "max_distance", max_distance,
              f"an integer > num_buckets / 2 = {num_buckets // 2}")
        self.num_buckets, self.max_distance = num_buckets, max_distance
        self.tables = nn.ModuleDict({kind: nn.Embedding(num_buckets, n_heads) for kind in self.kinds})
        for table in self.tables.values():
            nn.init.normal_(table.weight, std=d_model ** -0.5)  # T5's initialisation

    def buckets(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> Tensor:
        """(..., Tq, Tk) bucket ids; causal only in decoder self-attention."""
        return t5_bucket(offsets(q_positions, k_positions), kind != "decoder", self.num_buckets, self.max_distance)

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        bias = per_head(self.tables[kind](self.buckets(kind, q_positions, k_positions)))  # (..., H, Tq, Tk)
        return AttentionTerms(bias=bias)
