"""The three contracts a positional encoding can fulfil.

An encoding is an ``nn.Module`` built with ``d_model`` and ``n_heads`` (plus its own hyperparameters) that offers:

1. ``embed(x, positions, side)``: an absolute term merged into the token embeddings (the *table* contract);
2. ``attention_terms(kind, q_positions, k_positions)``: an :class:`AttentionTerms` for one kind of attention
   (``"encoder"``, ``"decoder"`` self-attention or ``"cross"``), holding an additive logit *bias* and/or a
   *rotation* of q and k (and, for relative encodings, a content-dependent logit term and a value term).

The model calls each once per forward pass and shares the result across all layers. An encoding with parameters per
layer (Shaw, Transformer-XL, DeBERTa with ``per_layer: true``) still answers once per forward: its ``AttentionTerms``
lists one entry per layer in ``layers`` and each layer reads ``terms.for_layer(index)``; the model tells it the
layer counts once, with ``use_layers``. Attention only ever sees an ``AttentionTerms``; it never knows the encoding's
name. The base class contributes nothing (that is NoPE).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import torch
from torch import Tensor, nn

SIDES = ("encoder", "decoder")
ATTENTION_KINDS = ("encoder", "decoder", "cross")


@dataclass
class AttentionTerms:
    """Position terms for one kind of attention. Every field is optional; None means "contributes nothing".

    Shapes: q is (B, H, Tq, Dh), k is (B, H, Tk, Dh), probabilities are (B, H, Tq, Tk).
    """

    # Additive logit bias broadcastable to (B, H, Tq, Tk); independent of content (T5, ALiBi, ...).
    bias: Optional[Tensor] = None
    # (q, k) -> (q, k): rotations and scalings applied after projection (RoPE, xPos).
    rotate: Optional[Callable[[Tensor, Tensor], tuple[Tensor, Tensor]]] = None
    # (q, k) -> logits (B, H, Tq, Tk) added before softmax: content-to-position terms (Shaw, XL, DeBERTa).
    content_bias: Optional[Callable[[Tensor, Tensor], Tensor]] = None
    # probs -> probs: reweighting after softmax (URPE).
    reweight: Optional[Callable[[Tensor], Tensor]] = None
    # probs -> (B, H, Tq, Dh) added to the attention output (Shaw's value term).
    value_term: Optional[Callable[[Tensor], Tensor]] = None
    # One AttentionTerms per layer when the encoding has parameters per layer; the fields above are then layer 0's.
    # The bias is the shared one: per-layer entries differ in their callables only.
    layers: Optional[Sequence["AttentionTerms"]] = None

    def for_layer(self, index: int) -> "AttentionTerms":
        """The terms layer `index` of the stack uses: its own entry when there are per-layer terms, else these."""
        return self if self.layers is None else self.layers[index]

    @property
    def needs_weights(self) -> bool:
        """True when the attention probabilities must be materialised (no fused kernel)."""
        return self.reweight is not None or self.value_term is not None


NO_TERMS = AttentionTerms()


class PositionalEncoding(nn.Module):
    """Base class: no positional information (NoPE). Subclasses override the contract(s) they fulfil.

    ``positions`` are LongTensors of shape (T,) shared by the batch, or (B, T) when an ablation permutes them.
    """

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.d_model = d_model
        self.n_heads = n_heads

    # -- contract 1: absolute term at the embeddings ---------------------------------------------------------------
    def embed(self, x: Tensor, positions: Tensor, side: str) -> Tensor:
        """x: (B, T, d_model) scaled token embeddings -> (B, T, d_model)."""
        return x

    # -- contracts 2 and 3: bias on logits / transform of q and k --------------------------------------------------
    def attention_terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        return NO_TERMS

    def use_layers(self, n_encoder_layers: int, n_decoder_layers: int) -> None:
        """Called once by the model with its layer counts, before training: encodings with per-layer parameters
        create them here. The default has none."""

    @classmethod
    def position_kind(cls) -> str:
        """What the class gives the model, read from the contracts it fulfils, never its name: "absolute" (a table
        merged into the embeddings), "relative" (terms inside attention: a logit bias, a content term or a rotation
        of q and k), "absolute + relative", or "none". Written into metrics.json (`encoding_kind`) when a run ends."""
        absolute = issubclass(cls, AbsoluteEncoding)
        relative = cls.attention_terms is not PositionalEncoding.attention_terms
        return {(True, True): "absolute + relative", (True, False): "absolute", (False, True): "relative",
                (False, False): "none"}[absolute, relative]

    def kind(self) -> str:
        """This encoding's position_kind (a wrapper's: the kind of the encoding it wraps)."""
        return self.position_kind()

    def record_training_length(self, tokens: int) -> None:
        """Called once by the trainer with the longest source sentence of the training split, in tokens. An encoding
        that behaves differently beyond it (RoPE's test-time `scaling`) keeps it in its state dict, so every
        checkpoint records it. The default ignores it."""

    # -- the positions this encoding sees ---------------------------------------------------------------------------
    def sentence_positions(self, positions: Tensor, source_lengths: Tensor, side: str) -> Tensor:
        """Token indices (T,) of one side -> the positions passed to `embed` and `attention_terms`.

        source_lengths (B,) counts the source tokens of each sentence (no padding); it is known on both sides, also
        while decoding. The default is the indices themselves. Overridden where a position depends on the sentence
        (`normalized`: p / (L - 1), giving (B, T) floats) or by ablations (`shuffle`: a permutation per sentence).
        The model calls this once per side and forward; masks always use the plain indices. On the decoder side the
        mapping must be position-wise (an index gives the same value whatever the prefix), or cached decoding would
        differ from uncached decoding.
        """
        return positions

    # -- introspection, for ablations, checks and pictures ---------------------------------------------------------
    def table(self, positions: Tensor) -> Optional[Tensor]:
        """The (T, d_model) absolute table at these positions, or None if the encoding has none."""
        return None

    @property
    def max_positions(self) -> Optional[int]:
        """Longest sequence the encoding can represent, or None when unbounded."""
        return None

    def check_length(self, length: int, what: str) -> None:
        """Raise a clear error when `length` tokens cannot be represented."""
        limit = self.max_positions
        if limit is not None and length > limit:
            raise ValueError(
                f"{type(self).__name__} represents at most {limit} positions, but {what} has {length} tokens; "
                f"raise encoding.max_positions or drop longer pairs (data.corpus.max_words, data.train_max_words)."
            )


class AbsoluteEncoding(PositionalEncoding):
    """An encoding that is a (positions x d_model) table merged into the embeddings.

    merge: "add" (x + PE, Vaswani 2017), "mul" (x * (1 + PE)) or "concat" (the last ``d_pe`` dims of x replaced
    by PE, so the width stays d_model; bert4keras' concat mode on a narrower token embedding).
    """

    MERGES = ("add", "mul", "concat")

    def __init__(self, d_model: int, n_heads: int, merge: str = "add", d_pe: Optional[int] = None) -> None:
        super().__init__(d_model, n_heads)
        if merge not in self.MERGES:
            raise ValueError(f"encoding.merge={merge!r} is not allowed; choose one of {list(self.MERGES)}")
        self.merge = merge
        self.d_pe = d_model if merge != "concat" else (d_pe or d_model // 2)
        if not 0 < self.d_pe <= d_model:
            raise ValueError(f"encoding.d_pe={d_pe} must be in [1, d_model={d_model}]")
        self.table_transform: Optional[Callable[[Tensor], Tensor]] = None  # set by ablations (zero_dims, scale)

    def compute_table(self, positions: Tensor) -> Tensor:
        """positions (..., T) -> (..., T, width) where width = d_pe for concat, else d_model."""
        raise NotImplementedError

    def table(self, positions: Tensor) -> Tensor:
        pe = self.compute_table(positions)
        if self.table_transform is not None:
            pe = self.table_transform(pe)
        return pe

    def embed(self, x: Tensor, positions: Tensor, side: str) -> Tensor:
        pe = self.table(positions).to(x.dtype)  # (T, d) or (B, T, d)
        if self.merge == "add":
            return x + pe
        if self.merge == "mul":
            return x * (1 + pe)
        return torch.cat([x[..., : self.d_model - self.d_pe], pe.expand(*x.shape[:-1], self.d_pe)], dim=-1)
