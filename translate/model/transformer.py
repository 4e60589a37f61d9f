"""Encoder-decoder Transformer whose positional encoding is a plug-in (see translate.encodings.base).

Position terms and masks are computed once per forward pass and shared by every layer.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import torch
from torch import Tensor, nn

from translate.encodings.base import AttentionTerms, PositionalEncoding
from translate.model.cache import DecoderCache
from translate.model.config import ModelConfig
from translate.model.dropout import Dropout
from translate.model.layers import DecoderLayer, EncoderLayer


@dataclass
class Encoded:
    """The encoder's output, reused by every decoding step."""

    memory: Tensor            # (B, Ts, d)
    key_bias: Tensor          # (B, 1, 1, Ts): 0 for tokens, -inf for padding
    positions: Tensor         # (Ts,), or (B, Ts) when they depend on the sentence: what the encoding saw
    weights: list = field(default_factory=list)  # per layer (B, H, Ts, Ts) when asked for
    lengths: Optional[Tensor] = None  # (B,) source tokens per sentence, without padding

    def select(self, index: Tensor) -> "Encoded":
        """Rows `index` of the batch (beam search expands and reorders hypotheses)."""
        positions = self.positions.index_select(0, index) if self.positions.dim() == 2 else self.positions
        lengths = None if self.lengths is None else self.lengths.index_select(0, index)
        return Encoded(self.memory.index_select(0, index), self.key_bias.index_select(0, index), positions,
                       lengths=lengths)

    def source_lengths(self) -> Tensor:
        """(B,) source tokens per sentence (recomputed from the padding bias when not stored)."""
        return self.lengths if self.lengths is not None else self.key_bias.isfinite().sum(-1).view(-1)


@dataclass
class Decoded:
    hidden: Tensor                                        # (B, Tt, d), before the output projection
    self_weights: list = field(default_factory=list)      # per layer (B, H, Tt, Tt_total)
    cross_weights: list = field(default_factory=list)     # per layer (B, H, Tt, Ts)


def padding_bias(tokens: Tensor, pad_id: int) -> Tensor:
    """(B, T) token ids -> (B, 1, 1, T) additive bias: 0 for tokens, -inf for padding."""
    bias = torch.zeros(tokens.shape, dtype=torch.float32, device=tokens.device)
    return bias.masked_fill(tokens.eq(pad_id), float("-inf"))[:, None, None, :]


def causal_bias(q_positions: Tensor, k_positions: Tensor) -> Tensor:
    """(Tq, Tk) additive bias: -inf where a key lies in a query's future."""
    future = k_positions[None, :] > q_positions[:, None]
    return torch.zeros(future.shape, device=future.device).masked_fill(future, float("-inf"))


def add_bias(mask: Optional[Tensor], terms: AttentionTerms) -> Optional[Tensor]:
    if terms.bias is None:
        return mask
    return terms.bias if mask is None else mask + terms.bias


class Transformer(nn.Module):
    def __init__(self, vocab_size: int, pad_id: int, encoding: PositionalEncoding, shape: ModelConfig) -> None:
        super().__init__()
        d_model = shape.d_model
        self.pad_id = pad_id
        self.d_model = d_model
        self.encoding = encoding
        self.src_embed = nn.Embedding(vocab_size, d_model, padding_idx=pad_id)
        self.tgt_embed = (self.src_embed if shape.tie_embeddings
                          else nn.Embedding(vocab_size, d_model, padding_idx=pad_id))
        layer_args = (d_model, shape.n_heads, shape.d_ff, shape.dropout, shape.attention_dropout, shape.norm_position)
        self.encoder_layers = nn.ModuleList(EncoderLayer(*layer_args) for _ in range(shape.n_encoder_layers))
        self.decoder_layers = nn.ModuleList(DecoderLayer(*layer_args) for _ in range(shape.n_decoder_layers))
        # Pre-LN stacks need a final norm; post-LN layers already end with one.
        final_norm = (lambda: nn.LayerNorm(d_model)) if shape.norm_position == "pre" else nn.Identity
        self.encoder_norm, self.decoder_norm = final_norm(), final_norm()
        self.dropout = Dropout(shape.dropout)
        self.output = nn.Linear(d_model, vocab_size, bias=False)
        encoding.use_layers(shape.n_encoder_layers, shape.n_decoder_layers)  # per-layer position parameters, if any
        self._init_weights()
        if shape.tie_embeddings:
            self.output.weight = self.src_embed.weight

    def _init_weights(self) -> None:
        for name, p in self.named_parameters():
            if name.startswith("encoding."):
                continue  # encodings initialise themselves
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        for emb in {self.src_embed, self.tgt_embed}:
            nn.init.normal_(emb.weight, std=self.d_model ** -0.5)
            with torch.no_grad():
                emb.weight[self.pad_id].zero_()

    def _embed(self, embedding: nn.Embedding, tokens: Tensor, positions: Tensor, side: str) -> Tensor:
        x = embedding(tokens) * math.sqrt(self.d_model)
        return self.dropout(self.encoding.embed(x, positions, side))

    def encode(self, src: Tensor, need_weights: bool = False) -> Encoded:
        """src (B, Ts) token ids."""
        lengths = src.ne(self.pad_id).sum(1)  # (B,)
        positions = self.encoding.sentence_positions(torch.arange(src.size(1), device=src.device), lengths, "encoder")
        key_bias = padding_bias(src, self.pad_id)
        terms = self.encoding.attention_terms("encoder", positions, positions)
        bias = add_bias(key_bias, terms)
        x = self._embed(self.src_embed, src, positions, "encoder")
        weights = []
        for i, layer in enumerate(self.encoder_layers):
            x, w = layer(x, bias, terms.for_layer(i), need_weights)
            weights.append(w)
        return Encoded(self.encoder_norm(x), key_bias, positions, weights if need_weights else [], lengths)

    def decode(self, tgt_in: Tensor, encoded: Encoded, cache: Optional[DecoderCache] = None, start: int = 0,
               need_weights: bool = False) -> Decoded:
        """tgt_in (B, Tt) token ids starting at position `start` (> 0 only with a cache of earlier steps)."""
        k_index = torch.arange(start + tgt_in.size(1), device=tgt_in.device)
        q_index = k_index[start:]
        # What the encoding sees: position-wise on this side, so the queries' are the keys' last Tt entries.
        k_positions = self.encoding.sentence_positions(k_index, encoded.source_lengths(), "decoder")
        q_positions = k_positions[..., start:]
        self_terms = self.encoding.attention_terms("decoder", q_positions, k_positions)
        cross_terms = self.encoding.attention_terms("cross", q_positions, encoded.positions)
        causal = causal_bias(q_index, k_index) if tgt_in.size(1) > 1 else None
        self_bias = add_bias(causal, self_terms)
        cross_bias = add_bias(encoded.key_bias, cross_terms)
        x = self._embed(self.tgt_embed, tgt_in, q_positions, "decoder")
        out = Decoded(x)
        for i, layer in enumerate(self.decoder_layers):
            layer_cache = None if cache is None else cache.for_layer(i)
            x, self_w, cross_w = layer(x, encoded.memory, self_bias, cross_bias, self_terms.for_layer(i),
                                       cross_terms.for_layer(i), layer_cache, need_weights)
            if need_weights:
                out.self_weights.append(self_w)
                out.cross_weights.append(cross_w)
        out.hidden = self.decoder_norm(x)
        return out

    def project(self, hidden: Tensor) -> Tensor:
        """(..., d) -> (..., vocab) logits."""
        return self.output(hidden)

    def forward(self, src: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher-forced decoder states (B, Tt, d); project them (only where needed) for logits."""
        return self.decode(tgt_in, self.encode(src)).hidden
