"""Contextual position encoding, CoPE (Golovneva, Wang, Weston and Sukhbaatar 2024, "Contextual Position Encoding:
Learning to Count What's Important").

Positions are counted by gates on the context rather than by tokens: query i opens a gate on each key k and the
position of key j is the number of open gates between them,

    g_ik = σ(q_i·k_k / sqrt(Dh)),    p_ij = Σ_{k=j..i} g_ik                      (causal: j <= i)
    logits_ij += q_i · e[p_ij],       e[p] = (1 - (p - ⌊p⌋)) E[⌊p⌋] + (p - ⌊p⌋) E[⌈p⌉]

with E a learned table of `npos_max` embeddings of Dh dims shared by the heads (one per attention layer with
`per_layer: true`, the paper's code), and p clamped to npos_max - 1. The gates are the attention's own logits, so a
query can count words, or sentences, instead of tokens. When every gate is 1, p_ij = i - j + 1: token-based relative
positions. The paper adds q_i·e[p_ij] to the already scaled logits, as here (the term itself is not divided by
sqrt(Dh)); its code starts E at zeros (NoPE): `init: zeros`; `normal` (default) starts it at N(0, 0.02²).

The paper defines the causal form only (decoder self-attention here). Ours for the bidirectional attentions:

    encoder (ours):  p_ij = Σ_{k between j and i, both included} g_ik   (keys to the right count j..i from the other
                     side; with every gate 1, p_ij = |i - j| + 1). `direction: symmetric` (default) reads one table
                     both ways; `directional` gives keys right of the query their own table E' (encoder only).
    cross (ours, `cross_attention: true`; no order joins a target and a source position): p_ij = Σ_{k <= j} g_ik, the
                     gated count of source tokens up to key j (with every gate 1, j + 1).

Counts run over token indices, not position ids, so CoPE reads no position at all (an ablation that changes position
ids has nothing to act on). Padding lies after every real token, so it never falls between two real ones.
"""
from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from translate.encodings.base import AttentionTerms
from translate.encodings.relative import AttentionEncoding, LayerCopies, bidirectional_kinds, check, stacked


class CountEmbeddings(nn.Module):
    """One attention layer's E (npos_max, Dh), and E' for keys right of the query when directional."""

    def __init__(self, npos_max: int, head_dim: int, directional: bool, init: str) -> None:
        super().__init__()
        def table() -> nn.Parameter:
            return nn.Parameter(torch.zeros(npos_max, head_dim) if init == "zeros"
                                else torch.randn(npos_max, head_dim) * 0.02)
        self.left = table()
        self.right = table() if directional else None


def gated_counts(gates: Tensor, kind: str) -> Tensor:
    """gates (B, H, Tq, Tk), queries being the last Tq keys (self-attention) -> p (B, H, Tq, Tk): the sum of the gates
    between key j and the query's own index c (both included); for `cross`, the sum over keys 0..j."""
    cumulative = gates.cumsum(-1)  # C_ij = Σ_{k<=j} g_ik
    if kind == "cross":
        return cumulative
    tq, tk = gates.shape[-2:]
    own = torch.arange(tk - tq, tk, device=gates.device).view(-1, 1)  # c: each query's own index among the keys
    at_own = cumulative.gather(-1, own.expand(*gates.shape[:-1], 1))
    gate_own = gates.gather(-1, own.expand(*gates.shape[:-1], 1))
    left = at_own - cumulative + gates           # Σ_{k=j..c} g_ik, for j <= c
    right = cumulative - at_own + gate_own       # Σ_{k=c..j} g_ik, for j > c
    keys = torch.arange(tk, device=gates.device)
    return torch.where(keys > own, right, left).clamp(min=0)


def interpolated_logits(q: Tensor, table: Tensor, counts: Tensor) -> Tensor:
    """q (B, H, Tq, Dh), table (n, Dh), counts (B, H, Tq, Tk) -> q_i · e[p_ij], e linearly interpolated."""
    counts = counts.clamp(max=table.size(0) - 1)
    per_row = torch.matmul(q, table.transpose(0, 1).to(q.dtype))  # (B, H, Tq, n): q_i · E[p] for every integer p
    floor = counts.floor()
    weight = (counts - floor).to(q.dtype)
    low = per_row.gather(-1, floor.long())
    high = per_row.gather(-1, counts.ceil().long())
    return low * (1 - weight) + high * weight


class CoPE(AttentionEncoding):
    INITS = ("normal", "zeros")

    def __init__(self, d_model: int, n_heads: int, npos_max: int = 64, per_layer: bool = True,
                 direction: str = "symmetric", init: str = "normal", **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        check(isinstance(npos_max, int) and not isinstance(npos_max, bool) and npos_max >= 2, "npos_max", npos_max,
              "an integer >= 2")
        check(init in self.INITS, "init", init, f"one of {list(self.INITS)}")
        # cross-attention's count runs from the source's start: no key lies right of the query there
        self.directional = tuple(kind for kind in bidirectional_kinds(self.kinds, direction) if kind != "cross")
        self.per_layer = per_layer
        self.tables = nn.ModuleDict({
            kind: LayerCopies(lambda d=kind in self.directional: CountEmbeddings(npos_max, self.head_dim, d, init),
                              (kind,), per_layer)
            for kind in self.kinds})

    def use_layers(self, n_encoder_layers: int, n_decoder_layers: int) -> None:
        counts = {"encoder": n_encoder_layers, "decoder": n_decoder_layers, "cross": n_decoder_layers}
        for kind, copies in self.tables.items():
            copies.use_layers({kind: counts[kind]})

    def terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        return stacked([self.layer_terms(kind, copy) for copy in self.tables[kind].of(kind)])

    def layer_terms(self, kind: str, tables: CountEmbeddings) -> AttentionTerms:
        def content_bias(q: Tensor, k: Tensor) -> Tensor:
            gates = torch.sigmoid(torch.matmul(q, k.transpose(-2, -1)).float() / math.sqrt(q.size(-1)))
            counts = gated_counts(gates, kind)
            logits = interpolated_logits(q, tables.left, counts)
            if tables.right is None:
                return logits
            tq, tk = counts.shape[-2:]
            right_of_query = torch.arange(tk, device=q.device) > torch.arange(tk - tq, tk, device=q.device)[:, None]
            return torch.where(right_of_query, interpolated_logits(q, tables.right, counts), logits)

        return AttentionTerms(content_bias=content_bias)
