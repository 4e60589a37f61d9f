"""How far cross-attention "lines up along the diagonal", as numbers.

diagonal share: the attention mass within +-`band` source tokens of the monotone diagonal j*(i) = i (Ts-1)/(Tt-1),
which joins the first target token to the first source token and eos to eos; averaged over target tokens, heads
and layers. 1.0 for a monotone one-to-one alignment; about (2 band + 1) / Ts for uniform attention.
entropy: -sum_j p_ij log p_ij in nats per query, averaged over queries, heads and layers.
"""
from __future__ import annotations

from typing import Sequence

import torch
from torch import Tensor

from translate.reports.attention_weights import forced_attention


def diagonal_band(tq: int, tk: int, band: int = 1) -> Tensor:
    """(Tq, Tk) bool: True where |j - j*(i)| <= band."""
    scale = (tk - 1) / (tq - 1) if tq > 1 else 0.0
    centre = torch.arange(tq, dtype=torch.float32)[:, None] * scale  # (Tq, 1)
    return (torch.arange(tk, dtype=torch.float32)[None, :] - centre).abs() <= band + 1e-6


def diagonal_share(probs: Tensor, band: int = 1) -> float:
    """probs (..., Tq, Tk), rows summing to 1 -> mean share of each row's mass inside the band."""
    inside = probs * diagonal_band(probs.size(-2), probs.size(-1), band).to(probs.device)
    return float(inside.sum(-1).mean())


def attention_entropy(probs: Tensor) -> float:
    """probs (..., Tq, Tk) -> mean entropy of the rows, in nats (0 log 0 = 0)."""
    return float(-(probs * probs.clamp_min(1e-12).log()).sum(-1).mean())


def mean_by_bucket(values: Sequence[float], bucket_of: Sequence[int], n_buckets: int) -> list:
    """Mean of the values of each bucket (None for an empty one), rounded to 3 decimals."""
    sums, counts = [0.0] * n_buckets, [0] * n_buckets
    for value, b in zip(values, bucket_of):
        sums[b] += value
        counts[b] += 1
    return [round(s / c, 3) if c else None for s, c in zip(sums, counts)]


def sentence_alignment(model, tokenizer, src_ids: list[list[int]], hyp_ids: list[list[int]],
                       batch_tokens: int = 4000) -> tuple[list[float], list[float]]:
    """Per sentence: (diagonal shares, cross-attention entropies) of the model's own hypotheses."""
    shares, entropies = [0.0] * len(src_ids), [0.0] * len(src_ids)
    for i, att in forced_attention(model, tokenizer, src_ids, hyp_ids, batch_tokens):
        shares[i], entropies[i] = diagonal_share(att.cross), attention_entropy(att.cross)
    return shares, entropies
