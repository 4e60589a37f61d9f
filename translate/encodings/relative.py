"""What the encodings inside attention share: a base class and the maths of relative logits.

Relative logits never hold a (B, H, Tq, Tk, Dh) tensor: queries meet the relative embeddings of the *distances
present* (q·Rᵀ, (B, H, Tq, n)), and a gather (or Dai et al.'s relative shift) places them at each (i, j) pair.
Shaw's value term is the mirror image: probabilities summed per distance, (B, H, Tq, n), times the table.

Positions are LongTensors (T,), or (B, T) when an ablation permutes them; pairwise tensors are then (..., Tq, Tk).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from translate.encodings.base import ATTENTION_KINDS, NO_TERMS, AttentionTerms, PositionalEncoding


def check(ok: bool, key: str, value, allowed: str) -> None:
    """Refuse a bad hyperparameter, naming the key, the value and what is allowed."""
    if not ok:
        raise ValueError(f"encoding.{key}={value!r} is not allowed: expected {allowed}")


class AttentionEncoding(PositionalEncoding):
    """Base of the encodings that act inside attention (bias, rotation or attention term).

    None of their papers defines decoder-to-source attention, so `cross_attention` (default false) decides whether
    cross-attention gets the terms too. `kinds` lists the attentions that do, for per-kind parameters.
    """

    def __init__(self, d_model: int, n_heads: int, cross_attention: bool = False, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(isinstance(cross_attention, bool), "cross_attention", cross_attention, "true or false")
        check(d_model % n_heads == 0, "n_heads", n_heads, f"a divisor of d_model={d_model}")
        self.cross_attention = cross_attention
        self.head_dim = d_model // n_heads
        self.kinds = ATTENTION_KINDS if cross_attention else ("encoder", "decoder")

    def use_layers(self, n_encoder_layers: int, n_decoder_layers: int) -> None:
        counts = {"encoder": n_encoder_layers, "decoder": n_decoder_layers, "cross": n_decoder_layers}
        for module in self.children():
            if isinstance(module, LayerCopies):
                module.use_layers({kind: counts[kind] for kind in self.kinds})

    def attention_terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        if kind not in ATTENTION_KINDS:
            raise ValueError(f"attention kind {kind!r} is not allowed: expected one of {list(ATTENTION_KINDS)}")
        if kind not in self.kinds:
            return NO_TERMS
        return self.terms(kind, q_positions, k_positions)

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        raise NotImplementedError


DIRECTIONS = ("symmetric", "directional")


def bidirectional_kinds(kinds: tuple, direction: str) -> tuple:
    """The kinds that get a separate bias for keys to the right of the query: encoder self-attention (and
    cross-attention when on) with `direction: directional`; none with `symmetric`. Decoder self-attention is causal,
    so it only ever sees keys to the left."""
    check(direction in DIRECTIONS, "direction", direction,
          f"one of {list(DIRECTIONS)} (symmetric: a function of |i - j|; directional: separate left and right)")
    return tuple(kind for kind in kinds if kind != "decoder") if direction == "directional" else ()


def offsets(q_positions: Tensor, k_positions: Tensor) -> Tensor:
    """j - i, the key's position minus the query's: (Tq,), (Tk,) -> (Tq, Tk), or (B, Tq, Tk) for batched ids."""
    return k_positions.unsqueeze(-2) - q_positions.unsqueeze(-1)


def per_head(values: Tensor) -> Tensor:
    """(..., Tq, Tk, H) -> (..., H, Tq, Tk), the layout of a logit bias."""
    return values.movedim(-1, -3)


def expand_index(index: Tensor, shape: torch.Size) -> Tensor:
    """(Tq, Tk) or (B, Tq, Tk) -> a (B, H, Tq, Tk) view, without copying."""
    return (index.unsqueeze(1) if index.dim() == 3 else index).expand(shape)


def sinusoid_table(distances: Tensor, width: int, base: float) -> Tensor:
    """(n,) -> (n, width), interleaved sin/cos of distance / base^(2i / width) (Vaswani et al. 2017)."""
    inv_freq = torch.exp(torch.arange(0, width, 2, dtype=torch.float32, device=distances.device)
                         * (-math.log(base) / width))
    angles = distances.float().unsqueeze(-1) * inv_freq
    return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(-2)


@dataclass
class DistanceIndex:
    """Which row of a relative table each (i, j) pair reads; only rows lo..hi occur, so only they are used."""

    index: Tensor   # (..., Tq, Tk) rows, counted from lo
    lo: int
    hi: int         # inclusive

    @classmethod
    def of(cls, rows: Tensor, table_rows: int) -> "DistanceIndex":
        """rows: indices into a table of `table_rows` rows. Eagerly on CPU only the rows that occur are used; on a
        GPU or under torch.compile all of them, since finding the used ones reads the device (a sync, a graph
        break)."""
        if rows.device.type != "cpu" or torch.compiler.is_compiling():
            return cls(rows, 0, table_rows - 1)
        lo, hi = int(rows.min()), int(rows.max())
        return cls(rows - lo, lo, hi)

    @property
    def size(self) -> int:
        return self.hi - self.lo + 1

    def used(self, table: Tensor) -> Tensor:
        """(N, ...) -> (size, ...): the rows that occur."""
        return table[self.lo: self.hi + 1]


def logits_by_distance(q: Tensor, table: Tensor, where: DistanceIndex) -> Tensor:
    """q (B, H, Tq, Dh) against used rows (n, Dh) or (H, n, Dh) -> (B, H, Tq, Tk) logits q_i · R[row(i, j)]."""
    scores = torch.matmul(q, table.transpose(-2, -1).to(q.dtype))  # (B, H, Tq, n)
    shape = scores.shape[:-1] + where.index.shape[-1:]
    return scores.gather(-1, expand_index(where.index, shape))


def sum_by_distance(probs: Tensor, table: Tensor, where: DistanceIndex) -> Tensor:
    """Σ_j p_ij R[row(i, j)]: probs (B, H, Tq, Tk) summed per row, (B, H, Tq, n), times the used rows (n, Dh)
    -> (B, H, Tq, Dh)."""
    per_row = probs.new_zeros(probs.shape[:-1] + (where.size,))
    per_row = per_row.scatter_add(-1, expand_index(where.index, probs.shape), probs)
    return torch.matmul(per_row, table.to(probs.dtype))


def relative_shift(scores: Tensor, tk: int) -> Tensor:
    """Dai et al. 2019's shift. scores (..., Tq, Tq + Tk - 1) over distances i - j in *descending* order (the
    first column is last query minus first key) -> (..., Tq, Tk) with out[i, j] = scores[i, Tq - 1 - i + j].

    Valid when query and key positions are contiguous ranges. One padded column turns the row-dependent offset
    into a fixed stride, so this is a view of the padded tensor, not a gather.
    """
    tq, length = scores.shape[-2:]
    flat = F.pad(scores, (0, 1)).flatten(-2)  # rows of length + 1
    return flat[..., tq - 1: tq - 1 + tq * length].unflatten(-1, (tq, length))[..., :tk]


def is_range(positions: Tensor) -> bool:
    """True for (T,) positions p, p + 1, ..., p + T - 1."""
    return positions.dim() == 1 and (positions.numel() < 2 or bool((positions.diff() == 1).all()))


class LayerCopies(nn.Module):
    """The position parameters of one attention layer, shared or per layer (``per_layer``).

    shared: one copy read by every layer of every kind. Per layer: one copy per attention layer of each kind
    (encoder self-attention, decoder self-attention, cross-attention), as in the papers of Shaw, Transformer-XL and
    DeBERTa. Until the model calls `use_layers` (an encoding used alone) each kind counts one layer.
    `make` builds one freshly initialised copy.
    """

    def __init__(self, make: Callable[[], nn.Module], kinds: tuple, per_layer: bool) -> None:
        super().__init__()
        check(isinstance(per_layer, bool), "per_layer", per_layer, "true or false")
        self.per_layer, self.kinds = per_layer, tuple(kinds)
        self.make = make
        self.counts = {kind: 1 for kind in self.kinds}
        self.copies = nn.ModuleList(make() for _ in range(len(self.kinds) if per_layer else 1))

    def use_layers(self, counts: dict) -> None:
        """Recreate the copies for these layer counts; they keep the existing copies' requires_grad (an ablation
        such as `freeze` may have set it before the model calls this)."""
        if self.per_layer and counts != self.counts:
            trainable = {name: p.requires_grad for name, p in self.copies[0].named_parameters()}
            self.counts = dict(counts)
            self.copies = nn.ModuleList(self.make() for _ in range(sum(counts.values())))
            for copy in self.copies:
                for name, p in copy.named_parameters():
                    p.requires_grad_(trainable[name])

    def of(self, kind: str) -> list:
        """The copy each layer of `kind` reads, in layer order."""
        if not self.per_layer:
            return [self.copies[0]]
        start = sum(self.counts[k] for k in self.kinds[: self.kinds.index(kind)])
        return list(self.copies[start: start + self.counts[kind]])


def stacked(layers: list) -> AttentionTerms:
    """One AttentionTerms per layer -> the terms the model passes down (layer 0's fields, plus the list)."""
    return layers[0] if len(layers) == 1 else replace(layers[0], layers=layers)
