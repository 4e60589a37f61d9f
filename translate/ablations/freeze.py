"""freeze: keep the encoding's parameters (a learned table, FLOATER's dynamics, a bias table, ...) at their
initial values: requires_grad is turned off, so the optimiser leaves them untouched."""
from __future__ import annotations

from translate.config import ConfigError
from translate.encodings.base import PositionalEncoding


class Freeze:
    def __init__(self, name: str = "freeze") -> None:
        self.name = name

    def apply(self, encoding: PositionalEncoding, d_model: int) -> PositionalEncoding:
        parameters = list(encoding.parameters())
        if not parameters:
            raise ConfigError(f"ablation=freeze: encoding {type(encoding).__name__} has no parameters to freeze; "
                              f"allowed: encodings with learned parameters (learned, hierarchical, floater, ...)")
        for p in parameters:
            p.requires_grad_(False)
        return encoding
