"""How far cross-attention "lines up along the diagonal", as numbers, read while the model is teacher-forced on the
REFERENCE: every system reads the same target, so its output length, repetitions or omissions cannot move the
numbers (forcing its own hypothesis would let them in).

diagonal share: the attention mass within +-`band` source tokens of the monotone diagonal j*(i) = i (Ts-1)/(Tt-1),
which joins the first target token to the first source token and eos to eos; averaged over target tokens, heads
and layers. 1.0 for a monotone one-to-one alignment; about (2 band + 1) / Ts for uniform attention.
entropy: -sum_j p_ij log p_ij in nats per query, averaged over queries, heads and layers.
normalised share: (s - c) / (1 - c), c the share of uniform attention on the same (Tt, Ts) grid: 1.0 for a monotone
alignment and 0 for uniform attention at every length (the raw chance level falls from ~0.3 to ~0.07 with length);
None where the band covers every source token (c = 1).
monotonicity: Kendall's tau-b between target position and the most attended source position (head- and
layer-averaged attention): 1 for a monotone alignment, 0 for none, -1 for a reversed one.
The diagonal share falls with length even for a correct alignment: every insertion, omission or reordering shifts
the rest of the sentence off the straight corner-to-corner line, so a longer sentence strays further from it, while
the band stays +-1 token wide. Normalising removes the chance level, not that. AER against silver word links
(translate.analysis.run.alignment_error) does not assume a diagonal.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np
import torch
from torch import Tensor

from translate.analysis.run.forced_attention import forced_attention


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


def chance_share(tq: int, tk: int, band: int = 1) -> float:
    """The diagonal share of uniform attention on a (Tq, Tk) grid."""
    return float(diagonal_band(tq, tk, band).float().sum(-1).mean() / tk)


def normalised_share(share: float, chance: float) -> Optional[float]:
    return None if chance >= 1.0 else (share - chance) / (1.0 - chance)


def kendall_tau(values: Sequence[float]) -> float:
    """tau-b of (position, value) pairs; positions have no ties, values may. 0 when all values are equal."""
    v = np.asarray(values, dtype=np.float64)
    n = len(v)
    if n < 2:
        return 0.0
    upper = np.triu_indices(n, 1)
    signs = np.sign(v[None, :] - v[:, None])[upper]     # pairs i < j: target order is +1
    pairs = n * (n - 1) / 2
    untied = pairs - float((signs == 0).sum())
    return 0.0 if untied == 0 else float(signs.sum() / math.sqrt(pairs * untied))


@dataclass
class SentenceAlignment:
    """Per sentence: shares per layer (raw and normalised), their means, monotonicity and entropy."""

    share: float
    normalised: Optional[float]
    by_layer: list[Optional[float]]      # normalised share of each layer
    monotonicity: float
    entropy: float
    aer: Optional[float] = None          # against silver links, when asked for (alignment_error.SentenceAer)
    token_accuracy: Optional[float] = None   # teacher-forced, read in the same pass (SentenceAttention)


def align_one(cross: Tensor, band: int = 1) -> SentenceAlignment:
    """cross (L, H, Tt, Ts) -> SentenceAlignment."""
    tq, tk = cross.shape[-2:]
    chance = chance_share(tq, tk, band)
    layers = [diagonal_share(cross[layer], band) for layer in range(cross.size(0))]
    share = sum(layers) / len(layers)
    argmax = cross.mean((0, 1)).argmax(-1).tolist()       # (Tt,) most attended source position per target token
    return SentenceAlignment(share, normalised_share(share, chance), [normalised_share(v, chance) for v in layers],
                             kendall_tau(argmax), attention_entropy(cross))


def sentence_alignment(model, tokenizer, src_ids: list[list[int]], ref_ids: list[list[int]],
                       batch_tokens: int = 4000,
                       aer_of: Optional[Callable[[int, Tensor], Optional[float]]] = None) -> list[SentenceAlignment]:
    """One SentenceAlignment per sentence, the model teacher-forced on the reference ids (no specials).
    aer_of(index, cross (L, H, Tt, Ts)): the sentence's AER, read in the same forced pass."""
    out: list[Optional[SentenceAlignment]] = [None] * len(src_ids)
    for i, att in forced_attention(model, tokenizer, src_ids, ref_ids, batch_tokens, token_accuracy=True):
        out[i] = align_one(att.cross)
        out[i].token_accuracy = att.token_accuracy
        if aer_of is not None:
            out[i].aer = aer_of(i, att.cross)
    return out


def mean_interval(values: Sequence[Optional[float]], samples: int = 1000, seed: int = 12345
                  ) -> tuple[Optional[float], Optional[float], Optional[float]]:
    """(mean, 2.5th, 97.5th percentile of the bootstrap mean over sentences), None values left out."""
    v = np.asarray([x for x in values if x is not None], dtype=np.float64)
    if not len(v):
        return None, None, None
    if not samples:
        return round(float(v.mean()), 3), None, None
    means = v[np.random.default_rng(seed).integers(0, len(v), size=(samples, len(v)))].mean(1)
    return (round(float(v.mean()), 3), round(float(np.percentile(means, 2.5)), 3),
            round(float(np.percentile(means, 97.5)), 3))


def alignment_by_bucket(aligned: list[SentenceAlignment], bucket_of: Sequence[int], n_buckets: int,
                        samples: int, seed: int, with_aer: bool = False) -> list[dict]:
    """Per bucket: raw share, normalised share with its 95% interval, per-layer normalised shares, monotonicity,
    entropy and the teacher-forced token accuracy with its 95% interval; with_aer: the mean AER with its 95%
    interval too."""
    out = []
    for b in range(n_buckets):
        members = [a for a, k in zip(aligned, bucket_of) if k == b]
        mean, low, high = mean_interval([a.normalised for a in members], samples, seed)
        layers = len(members[0].by_layer) if members else 0
        out.append({"diagonal_share": mean_by_bucket([a.share for a in members], [0] * len(members), 1)[0],
                    "diagonal_share_normalised": mean, "diagonal_share_normalised_low": low,
                    "diagonal_share_normalised_high": high,
                    "diagonal_share_normalised_by_layer": [mean_interval([a.by_layer[k] for a in members], 0)[0]
                                                           for k in range(layers)],
                    "monotonicity": mean_by_bucket([a.monotonicity for a in members], [0] * len(members), 1)[0],
                    "attention_entropy": mean_by_bucket([a.entropy for a in members], [0] * len(members), 1)[0]})
        accuracy, accuracy_low, accuracy_high = mean_interval([a.token_accuracy for a in members], samples, seed)
        out[-1].update(token_accuracy=accuracy, token_accuracy_low=accuracy_low, token_accuracy_high=accuracy_high)
        if with_aer:
            aer, aer_low, aer_high = mean_interval([a.aer for a in members], samples, seed)
            out[-1].update(aer=aer, aer_low=aer_low, aer_high=aer_high)
    return out


def per_sentence(aligned: list[SentenceAlignment], with_aer: bool = False) -> dict[str, list]:
    """The per-sentence values, as stored in metrics.json (4 decimals)."""
    def r(x):
        return None if x is None else round(x, 4)
    values = {"diagonal_share": [r(a.share) for a in aligned],
              "diagonal_share_normalised": [r(a.normalised) for a in aligned],
              "monotonicity": [r(a.monotonicity) for a in aligned],
              "attention_entropy": [r(a.entropy) for a in aligned],
              "token_accuracy": [r(a.token_accuracy) for a in aligned]}
    if with_aer:
        values["aer"] = [r(a.aer) for a in aligned]
    return values
