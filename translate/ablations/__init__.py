"""PE ablations: each wraps a built encoding (`apply`) and composes with any of them. Chosen by `ablation=`."""
from translate.encodings.base import PositionalEncoding


class NoAblation:
    """Leaves the encoding as it is."""

    def __init__(self, name: str = "none") -> None:
        self.name = name

    def apply(self, encoding: PositionalEncoding, d_model: int) -> PositionalEncoding:
        return encoding
