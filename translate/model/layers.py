"""Encoder and decoder layers, pre-LN (Xiong et al. 2020) or post-LN (Vaswani et al. 2017)."""
from __future__ import annotations

from typing import Optional

from torch import Tensor, nn

from translate.encodings.base import NO_TERMS, AttentionTerms
from translate.model.attention import MultiHeadAttention
from translate.model.cache import LayerCache
from translate.model.dropout import Dropout

NORM_POSITIONS = ("pre", "post")


class FeedForward(nn.Sequential):
    def __init__(self, d_model: int, d_ff: int, dropout: float) -> None:
        super().__init__(nn.Linear(d_model, d_ff), nn.ReLU(), Dropout(dropout), nn.Linear(d_ff, d_model))


class Residual(nn.Module):
    """x + dropout(f(norm(x))) for pre-LN, norm(x + dropout(f(x))) for post-LN."""

    def __init__(self, d_model: int, dropout: float, norm_position: str) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = Dropout(dropout)
        self.pre = norm_position == "pre"

    def forward(self, x: Tensor, sublayer) -> tuple[Tensor, Optional[Tensor]]:
        out = sublayer(self.norm(x) if self.pre else x)
        out, weights = out if isinstance(out, tuple) else (out, None)
        y = x + self.dropout(out)
        return (y if self.pre else self.norm(y)), weights


class EncoderLayer(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float, attention_dropout: float,
                 norm_position: str) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads, attention_dropout, cross=False)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.res_attn = Residual(d_model, dropout, norm_position)
        self.res_ff = Residual(d_model, dropout, norm_position)

    def forward(self, x: Tensor, logit_bias: Optional[Tensor], terms: AttentionTerms = NO_TERMS,
                need_weights: bool = False) -> tuple[Tensor, Optional[Tensor]]:
        x, weights = self.res_attn(x, lambda h: self.self_attn(h, logit_bias=logit_bias, terms=terms,
                                                               need_weights=need_weights))
        x, _ = self.res_ff(x, self.ff)
        return x, weights


class DecoderLayer(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float, attention_dropout: float,
                 norm_position: str) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads, attention_dropout, cross=False)
        self.cross_attn = MultiHeadAttention(d_model, n_heads, attention_dropout, cross=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.res_self = Residual(d_model, dropout, norm_position)
        self.res_cross = Residual(d_model, dropout, norm_position)
        self.res_ff = Residual(d_model, dropout, norm_position)

    def forward(self, x: Tensor, memory: Tensor, self_bias: Optional[Tensor], cross_bias: Optional[Tensor],
                self_terms: AttentionTerms = NO_TERMS, cross_terms: AttentionTerms = NO_TERMS,
                cache: Optional[LayerCache] = None, need_weights: bool = False):
        """Returns (x, self-attention weights, cross-attention weights); weights are None unless asked for."""
        self_cache = None if cache is None else cache.self_attention
        cross_cache = None if cache is None else cache.cross_attention
        x, self_w = self.res_self(x, lambda h: self.self_attn(h, logit_bias=self_bias, terms=self_terms,
                                                              cache=self_cache, need_weights=need_weights))
        x, cross_w = self.res_cross(x, lambda h: self.cross_attn(h, memory, logit_bias=cross_bias,
                                                                 terms=cross_terms, cache=cross_cache,
                                                                 need_weights=need_weights))
        x, _ = self.res_ff(x, self.ff)
        return x, self_w, cross_w
