"""tanh absolute encoding: a bounded but monotone alternative to the sine (compared with it in the notes on
Vaswani et al. 2017).

    PE(p, i) = tanh(p / base^(i / d)),   i = 0 .. d-1

Each dimension rises from 0 to 1 and then saturates: the fast dimensions are flat after a few positions and only the
slow ones still separate distant positions, so unlike sin/cos there is no periodic structure and no linear shift map.
"""
from __future__ import annotations

import torch

from translate.encodings.sin_only import SinOnly


class Tanh(SinOnly):
    """Same frequencies as sin_only, with tanh in place of the sine."""

    wave = staticmethod(torch.tanh)
