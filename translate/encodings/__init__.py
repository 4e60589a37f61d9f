"""Positional encodings: one small class per file, each behind the contracts of :mod:`translate.encodings.base`."""
from translate.encodings.base import (
    ATTENTION_KINDS,
    NO_TERMS,
    AbsoluteEncoding,
    AttentionTerms,
    PositionalEncoding,
)

__all__ = ["ATTENTION_KINDS", "NO_TERMS", "AbsoluteEncoding", "AttentionTerms", "PositionalEncoding"]
