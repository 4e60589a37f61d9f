"""remove: no positional information at all, whatever the encoding (the same model as encoding=none; a separate
ablation so that sweeps over ablations can include it)."""
from __future__ import annotations

from translate.encodings.base import PositionalEncoding
from translate.encodings.none import NoEncoding


class Remove:
    def __init__(self, name: str = "remove") -> None:
        self.name = name

    def apply(self, encoding: PositionalEncoding, d_model: int) -> PositionalEncoding:
        return NoEncoding(d_model, encoding.n_heads)
