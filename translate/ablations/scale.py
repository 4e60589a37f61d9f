"""scale: multiply the positional encoding by `factor`.

Scaled: the absolute table (through AbsoluteEncoding's table hook, so every merge mode sees factor * PE) and the
additive attention terms: the logit bias (T5, ALiBi, ...), the content-to-position logits (Shaw, XL, DeBERTa) and
Shaw's value term. Not scaled: rotations (RoPE, xPos) and probability reweighting (URPE), which have no magnitude
to scale; an encoding with nothing scalable is refused.
"""
from __future__ import annotations

import torch
from torch import Tensor, nn

from translate.ablations.wrapper import EncodingWrapper
from translate.config import ConfigError
from translate.encodings.base import ATTENTION_KINDS, AbsoluteEncoding, AttentionTerms, PositionalEncoding


class TableScale(nn.Module):
    def __init__(self, factor: float) -> None:
        super().__init__()
        self.factor = factor

    def forward(self, table: Tensor) -> Tensor:
        return table * self.factor


def times(factor: float, fn):
    return None if fn is None else (lambda *args: factor * fn(*args))


class ScaledTermsEncoding(EncodingWrapper):
    def __init__(self, inner: PositionalEncoding, factor: float) -> None:
        super().__init__(inner)
        self.factor = factor

    def scaled(self, terms: AttentionTerms) -> AttentionTerms:
        layers = None if terms.layers is None else [self.scaled(t) for t in terms.layers]
        return AttentionTerms(bias=None if terms.bias is None else self.factor * terms.bias, rotate=terms.rotate,
                              content_bias=times(self.factor, terms.content_bias), reweight=terms.reweight,
                              value_term=times(self.factor, terms.value_term), layers=layers)

    def attention_terms(self, kind: str, q_positions: Tensor, k_positions: Tensor) -> AttentionTerms:
        return self.scaled(self.inner.attention_terms(kind, q_positions, k_positions))


def has_additive_terms(encoding: PositionalEncoding) -> bool:
    """Probe every kind of attention on two positions: does any give a bias, content or value term?"""
    positions = torch.arange(2)
    with torch.no_grad():
        for kind in ATTENTION_KINDS:
            terms = encoding.attention_terms(kind, positions, positions)
            if any(t is not None for t in (terms.bias, terms.content_bias, terms.value_term)):
                return True
    return False


class Scale:
    def __init__(self, name: str = "scale", factor: float = 0.5) -> None:
        self.name = name
        self.factor = factor

    def apply(self, encoding: PositionalEncoding, d_model: int) -> PositionalEncoding:
        factor = self.factor
        if not (isinstance(factor, (int, float)) and not isinstance(factor, bool) and abs(factor) < float("inf")):
            raise ConfigError(f"ablation.factor={factor!r} is not allowed: expected a finite number")
        has_table, has_terms = isinstance(encoding, AbsoluteEncoding), has_additive_terms(encoding)
        if not (has_table or has_terms):
            raise ConfigError(f"ablation=scale: encoding {type(encoding).__name__} has no PE table and no additive "
                              f"attention term to multiply by ablation.factor={factor}; allowed: table or bias "
                              f"encodings")
        if has_table:
            encoding.table_transform = TableScale(float(factor))
        return ScaledTermsEncoding(encoding, float(factor)) if has_terms else encoding
