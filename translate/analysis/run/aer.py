"""Alignment error rate (AER, Och & Ney 2003) of cross-attention against word links: the pure computation.

Reading (Shift-Att, Chen et al. 2020, "Accurate Word Alignment Induction from Neural Machine Translation"): with the
reference forced through the decoder, the alignment of target token y_k is read from the decoder step whose INPUT is
y_k (row k + 1 of the cross-attention, after bos), not from the step that predicts it (row k), which attends to
where the NEXT word comes from. Pieces to words: a SentencePiece piece starting with ▁ starts a whitespace word;
a word's attention on a source word is the sum over the source word's pieces (the mass that lands on it) and the
mean over its own pieces (so each target word's row still sums to at most 1 and one threshold fits every word).
Heads are averaged. Predicted links: every (source word, target word) whose attention reaches the threshold.

AER = 1 - (|A∩S| + |A∩P|) / (|A| + |S|); with silver links as sure links only (S = P): 1 - 2|A∩S| / (|A| + |S|).
0 when the predicted links are the silver ones, 1 when they share none.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np
import torch
from torch import Tensor

Link = tuple[int, int]   # (source word, target word), from 0
THRESHOLDS = tuple(round(0.05 * k, 2) for k in range(1, 20))   # 0.05, 0.10, ..., 0.95: the grid searched on valid


def piece_words(pieces: Sequence[str]) -> list[int]:
    """Whitespace word of each piece: ["▁le", "▁chat", "on", "."] -> [0, 1, 1, 1]."""
    words, current = [], -1
    for k, piece in enumerate(pieces):
        if k == 0 or piece.startswith("▁"):
            current += 1
        words.append(current)
    return words


def pieces_to_words(words: Sequence[int]) -> Tensor:
    """(P, W) 0/1: piece p belongs to word w."""
    index = torch.as_tensor(list(words), dtype=torch.long)
    return torch.nn.functional.one_hot(index, int(index.max()) + 1 if len(index) else 0).float()


def word_attention(cross: Tensor, source_words: Sequence[int], target_words: Sequence[int]) -> Tensor:
    """cross (L, H, Tt, Ts): the reference forced through the decoder, Tt = bos + reference pieces, Ts = source pieces
    + eos; source_words / target_words: the word of each piece (piece_words). -> (L, Wt, Ws), per layer."""
    probs = cross.float().mean(1)[:, 1:, :-1]             # (L, Tt-1, Ts-1): row k has input piece k; eos column out
    to_source = pieces_to_words(source_words)              # (Ps, Ws): sum over a source word's pieces
    to_target = pieces_to_words(target_words).T            # (Wt, Pt)
    to_target = to_target / to_target.sum(1, keepdim=True)  # mean over a target word's pieces
    return to_target @ probs @ to_source                  # (Wt, Pt) @ (L, Pt, Ps) @ (Ps, Ws) -> (L, Wt, Ws)


def predicted_links(attention: Tensor, threshold: float) -> set[Link]:
    """attention (Wt, Ws) of one layer -> {(source word, target word)} where it reaches the threshold."""
    target, source = torch.nonzero(attention >= threshold, as_tuple=True)
    return set(zip(source.tolist(), target.tolist()))


def alignment_error_rate(predicted: set[Link], sure: set[Link], possible: Optional[set[Link]] = None
                         ) -> Optional[float]:
    """Och & Ney: 1 - (|A∩S| + |A∩P|) / (|A| + |S|), P the possible links (sure ones included; without them P = S:
    1 - 2|A∩S| / (|A| + |S|)); None when both are empty (nothing to score)."""
    total = len(predicted) + len(sure)
    possible = sure if possible is None else possible | sure
    return None if total == 0 else 1.0 - (len(predicted & sure) + len(predicted & possible)) / total


def link_grid(links: set[Link], shape: torch.Size) -> Tensor:
    """(Wt, Ws) bool: True at every (source word, target word) link."""
    grid = torch.zeros(shape, dtype=torch.bool)
    for s, t in links:
        grid[t, s] = True
    return grid


def aer_grid(attention: Tensor, sure: set[Link], thresholds: Sequence[float] = THRESHOLDS,
             possible: Optional[set[Link]] = None) -> np.ndarray:
    """attention (L, Wt, Ws) -> (L, K) AER of every layer at every threshold (nan where undefined); `possible` as in
    alignment_error_rate."""
    gold = link_grid(sure, attention.shape[1:])                                    # (Wt, Ws)
    maybe = gold | link_grid(possible or set(), attention.shape[1:])
    cut = torch.as_tensor(thresholds, dtype=attention.dtype)
    predicted = attention[:, None] >= cut[None, :, None, None]  # (L, K, Wt, Ws)
    both = (predicted & gold).sum((-2, -1)).double() + (predicted & maybe).sum((-2, -1)).double()   # (L, K)
    total = predicted.sum((-2, -1)).double() + float(gold.sum())
    grid = torch.where(total > 0, 1.0 - both / total.clamp_min(1.0), torch.full_like(total, float("nan")))
    return grid.numpy()


@dataclass(frozen=True)
class AerChoice:
    """The decoder layer (from 0, as in the *_by_layer lists) and threshold that minimise the mean per-sentence AER
    on the validation links, and that AER."""

    layer: int
    threshold: float
    valid_aer: float
    valid_sentences: int


def choose_layer_threshold(grids: Sequence[np.ndarray], thresholds: Sequence[float] = THRESHOLDS) -> AerChoice:
    """grids: one (L, K) aer_grid per validation sentence -> the (layer, threshold) of the lowest mean AER (ties: the
    lower layer, then the lower threshold)."""
    scored = [g for g in grids if not np.isnan(g).all()]
    if not scored:
        raise ValueError("no validation sentence has silver links or predicted links: cannot choose the AER layer and "
                         "threshold")
    mean = np.nanmean(np.stack(scored), axis=0)                 # (L, K)
    layer, k = np.unravel_index(int(np.nanargmin(mean)), mean.shape)
    return AerChoice(int(layer), float(thresholds[k]), round(float(mean[layer, k]), 4), len(scored))


def sentence_aer(attention: Tensor, sure: set[Link], choice: AerChoice, possible: Optional[set[Link]] = None
                 ) -> Optional[float]:
    """attention (L, Wt, Ws) of one sentence -> its AER at the chosen layer and threshold."""
    return alignment_error_rate(predicted_links(attention[choice.layer], choice.threshold), set(sure), possible)
