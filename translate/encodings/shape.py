"""SHAPE, shifted absolute position embedding (Kiyono, Kobayashi, Suzuki and Inui 2021, "SHAPE: Shifted Absolute
Position Embedding for Transformers").

In training every sentence's positions are shifted by its own random offset, drawn separately for the encoder and the
decoder, before the sinusoidal table is read:

    PE(p) = PE_sin(p + k),   k ~ U{0, ..., max_shift}   (training);    k = eval_shift (evaluation, decoding)

The model can then only rely on differences of positions (shift invariance) while keeping the absolute table's
speed. The paper's configurations use max_shift in {40, 100, 500}; its code evaluates at k = max_shift, which
`eval_shift` reproduces (default 0, the unshifted table).
"""
from __future__ import annotations

import torch
from torch import Tensor

from translate.encodings.sinusoidal import Sinusoidal


class Shape(Sinusoidal):
    def __init__(self, d_model: int, n_heads: int, max_shift: int = 100, eval_shift: int = 0, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        for key, value in (("max_shift", max_shift), ("eval_shift", eval_shift)):
            if not (isinstance(value, int) and value >= 0):
                raise ValueError(f"encoding.{key}={value} is not allowed: expected an integer >= 0")
        self.max_shift = max_shift
        self.eval_shift = eval_shift

    def embed(self, x: Tensor, positions: Tensor, side: str) -> Tensor:
        if self.training:
            shift = torch.randint(0, self.max_shift + 1, (x.size(0), 1), device=positions.device)  # (B, 1)
            positions = positions + shift  # (B, T)
        elif self.eval_shift:
            positions = positions + self.eval_shift
        return super().embed(x, positions, side)
