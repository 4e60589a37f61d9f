"""Complex-order embeddings (Wang, Zhao, Lioma, Li, Zhang and Simonsen 2020, "Encoding word order in complex
embeddings"): word j at position p is a complex wave whose amplitude r, frequency w and initial phase theta belong
to the word,

    f(j, p) = r_j * exp(i (w_j p + theta_j))      (per complex dimension)

Here the token embedding x_j (width d) is read as d/2 complex numbers c_j = x_j[:d/2] + i x_j[d/2:], which holds
both r_j = |c_j| and theta_j = arg c_j, so f(j, p) = c_j * exp(i w_j p): a rotation of each complex dimension by
the word's own angle w_j p. The frequencies are a learned linear function of the word's embedding,

    w_j = W x_j + b,   W initialised at 0 and b at the sinusoidal frequencies base^(-2k/d),

which keeps every word's frequencies distinct once trained while the class needs neither the token ids nor the
vocabulary (it works inside `embed(x, positions, side)`); the paper stores w and theta as vocabulary-sized tables.
The result is the real and imaginary parts side by side, width d. Position 0 leaves the embedding unchanged.
"""
from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from translate.encodings.base import PositionalEncoding


class ComplexOrder(PositionalEncoding):
    def __init__(self, d_model: int, n_heads: int, base: float = 10000.0, **kw) -> None:
        super().__init__(d_model, n_heads, **kw)
        if d_model % 2:
            raise ValueError(f"complex_order needs an even d_model (d/2 complex dimensions), got {d_model}")
        half = d_model // 2
        self.frequency = nn.Linear(d_model, half)  # x_j -> w_j, (d,) -> (d/2,)
        with torch.no_grad():
            self.frequency.weight.zero_()
            self.frequency.bias.copy_(torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(base) / d_model)))

    def embed(self, x: Tensor, positions: Tensor, side: str) -> Tensor:
        real, imag = x.chunk(2, dim=-1)  # (B, T, d/2) each
        angle = self.frequency(x) * positions.to(x.dtype).unsqueeze(-1)  # (B, T, d/2); positions (T,) or (B, T)
        cos, sin = angle.cos(), angle.sin()
        return torch.cat([real * cos - imag * sin, real * sin + imag * cos], dim=-1)  # c_j * exp(i w_j p)
