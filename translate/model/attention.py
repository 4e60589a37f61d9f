"""Multi-head attention that takes position terms as data (a bias, a q/k transform) and never encoding names.

`attend` is the maths: the fused `scaled_dot_product_attention` kernel when no one needs the probabilities, and an
explicit path that returns them (annotated-transformer style) when they are asked for or an encoding must touch them.
`flex_attend` is the same maths through `torch.nn.attention.flex_attention` (a per-head bias read in the kernel as a
score_mod), used on CUDA under torch.compile when asked for (train.flex_attention), where it becomes one Triton kernel.
"""
from __future__ import annotations

import math
from typing import Optional

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from translate.encodings.base import NO_TERMS, AttentionTerms
from translate.model.cache import KeyValues


def flex_attend(q: Tensor, k: Tensor, v: Tensor, logit_bias: Tensor) -> Tensor:
    """softmax(q k^T / sqrt(Dh) + logit_bias) v through flex_attention; logit_bias broadcastable to (B, H, Tq, Tk)."""
    from torch.nn.attention.flex_attention import flex_attention

    bias = logit_bias.to(q.dtype).expand(q.size(0), q.size(1), q.size(2), k.size(2))  # a view: strides 0

    def add_bias(score, b, h, i, j):
        return score + bias[b, h, i, j]
    return flex_attention(q, k, v, score_mod=add_bias)


def slow_fused_kernel(q: Tensor) -> bool:
    """PyTorch's fused CPU attention is slow in bf16 (torch 2.13, model=small's shapes, q/k/v views of one
    projection): forward and backward 22 ms against 3.3 ms for the explicit matmuls, which run on the bf16 matmul
    units (docs/speed.md). fp32 and CUDA keep the fused kernel."""
    return q.dtype == torch.bfloat16 and q.device.type == "cpu"


def attend(q: Tensor, k: Tensor, v: Tensor, logit_bias: Optional[Tensor], terms: AttentionTerms,
           dropout_p: float, need_weights: bool, flex: bool = False) -> tuple[Tensor, Optional[Tensor]]:
    """q (B, H, Tq, Dh), k and v (B, H, Tk, Dh), logit_bias broadcastable to (B, H, Tq, Tk) (mask + static bias).

    Returns the output (B, H, Tq, Dh) and the probabilities (B, H, Tq, Tk) when needed, else None. flex: use
    flex_attend where it gives the same result (no probabilities needed, no attention dropout).
    """
    if terms.rotate is not None:
        q, k = terms.rotate(q, k)
    if terms.content_bias is not None:
        extra = terms.content_bias(q, k)
        logit_bias = extra if logit_bias is None else logit_bias + extra
    per_head = logit_bias is not None and logit_bias.dim() >= 3 and logit_bias.size(-3) > 1  # a position bias
    if flex and per_head and dropout_p == 0 and not (need_weights or terms.needs_weights):
        return flex_attend(q, k, v, logit_bias), None
    if not (need_weights or terms.needs_weights or slow_fused_kernel(q)):
        if logit_bias is not None:
            logit_bias = logit_bias.to(q.dtype)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=logit_bias, dropout_p=dropout_p), None
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))  # (B, H, Tq, Tk)
    if logit_bias is not None:
        scores = scores + logit_bias
    probs = scores.float().softmax(dim=-1).to(q.dtype)
    if terms.reweight is not None:
        probs = terms.reweight(probs)
    dropped = F.dropout(probs, dropout_p) if dropout_p > 0 else probs
    out = torch.matmul(dropped, v)
    if terms.value_term is not None:
        out = out + terms.value_term(dropped)
    return out, (probs if need_weights or terms.needs_weights else None)


class MultiHeadAttention(nn.Module):
    """Self-attention (source is None) or cross-attention (source is the encoder memory).

    cache: this attention's KeyValues for incremental decoding, owned by the caller. Self-attention appends this
    step's keys and values; cross-attention computes the memory's keys and values once.
    """

    def __init__(self, d_model: int, n_heads: int, dropout: float, cross: bool) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.cross = cross
        self.dropout = dropout
        if cross:
            self.q_proj = nn.Linear(d_model, d_model)
            self.kv_proj = nn.Linear(d_model, 2 * d_model)
        else:
            self.qkv_proj = nn.Linear(d_model, 3 * d_model)
        self.out_proj = nn.Linear(d_model, d_model)
        self.flex = False  # flex_attention on CUDA under torch.compile (set by the trainer: train.flex_attention)

    def _heads(self, x: Tensor) -> Tensor:
        b, t, _ = x.shape  # (B, T, d) -> (B, H, T, Dh)
        return x.view(b, t, self.n_heads, -1).transpose(1, 2)

    def _memory_keys_values(self, source: Tensor) -> tuple[Tensor, Tensor]:
        """source (B, Ts, d) -> k, v (B, H, Ts, Dh)."""
        k, v = (self._heads(t) for t in self.kv_proj(source).chunk(2, dim=-1))
        return k, v

    def forward(self, x: Tensor, source: Optional[Tensor] = None, logit_bias: Optional[Tensor] = None,
                terms: AttentionTerms = NO_TERMS, cache: Optional[KeyValues] = None,
                need_weights: bool = False) -> tuple[Tensor, Optional[Tensor]]:
        if self.cross:
            q = self._heads(self.q_proj(x))
            if cache is None:
                k, v = self._memory_keys_values(source)
            else:
                k, v = cache.computed_once(lambda: self._memory_keys_values(source))
        else:
            q, k, v = (self._heads(t) for t in self.qkv_proj(x).chunk(3, dim=-1))
            if cache is not None:
                k, v = cache.append(k, v)
        dropout_p = self.dropout if self.training else 0.0
        flex = self.flex and q.is_cuda and torch.compiler.is_compiling()  # eager flex_attention is a slow reference
        out, probs = attend(q, k, v, logit_bias, terms, dropout_p, need_weights, flex)
        b, h, t, dh = out.shape
        return self.out_proj(out.transpose(1, 2).reshape(b, t, h * dh)), probs
