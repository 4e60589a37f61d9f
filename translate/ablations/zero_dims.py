"""zero_dims: zero some dimensions of an absolute PE table, to see which dimensions the model uses.

Zeroes table dimensions `from` .. width-1 (default 400: the source notes' experiment on a 512-wide model) and any
half-open `ranges` [a, b). `from` counts dimensions, so it does not scale with the width: on a narrower table the
default is refused with the value of the notes' fraction there (400/512 of 256 is 200 at model=small). The width is the table's: d_model, or d_pe with merge=concat. Works through the table
hook of AbsoluteEncoding, so every merge mode sees the changed table (add: nothing added there; mul: x * 1; concat:
zeros in those dimensions).

fill: "zero" sets the chosen dimensions to 0; "mean" sets each to its mean over the positions of the table
(0 .. max(T, `mean_positions`) - 1, the same constant at every position): position information is removed but the
constant vector the model saw in training is kept, so a change in BLEU is not just the loss of an offset.
"""
from __future__ import annotations

from typing import Optional, Sequence

import torch
from torch import Tensor, nn

from translate.config import ConfigError
from translate.encodings.base import AbsoluteEncoding, PositionalEncoding


FILLS = ("zero", "mean")
NOTES_FROM, NOTES_WIDTH = 400, 512  # the source notes' experiment: dims >= 400 of a 512-wide table


class ZeroDimsMask(nn.Module):
    """table (..., width) -> the table with the masked dimensions set to 0 (a module, so the mask follows .to())."""

    def __init__(self, zeroed: Tensor) -> None:
        super().__init__()
        self.register_buffer("keep", (~zeroed).float(), persistent=False)  # (width,)

    def forward(self, table: Tensor) -> Tensor:
        return table * self.keep.to(table.dtype)


class MeanDimsFill(ZeroDimsMask):
    """table (..., T, width) -> the masked dimensions replaced by their mean over positions 0 .. T-1 of the
    encoding's own table (computed with `compute`, so the mean does not depend on the batch's positions)."""

    def __init__(self, zeroed: Tensor, compute, positions: int) -> None:
        super().__init__(zeroed)
        self.compute, self.positions = compute, positions

    def forward(self, table: Tensor) -> Tensor:
        with torch.no_grad():
            reference = self.compute(torch.arange(self.positions, device=table.device))  # (P, width)
        mean = reference.reshape(-1, reference.size(-1)).mean(0).to(table.dtype)       # (width,)
        keep = self.keep.to(table.dtype)
        return table * keep + mean * (1 - keep)


def is_index(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class ZeroDims:
    """Checks its keys in `apply` (still at start-up: the builder runs before training)."""

    def __init__(self, name: str = "zero_dims", ranges: Sequence[Sequence[int]] = (), fill: str = "zero",
                 mean_positions: int = 256, **options) -> None:
        self.name = name
        self.fill, self.mean_positions = fill, mean_positions
        self.options = dict(options)
        self.zero_from: Optional[int] = options.get("from", 400)
        self.ranges = [tuple(r) for r in (ranges or [])]

    def check_keys(self) -> None:
        unknown = set(self.options) - {"from"}
        if unknown:
            raise ConfigError(f"ablation={self.name} has no key(s) {sorted(unknown)}; allowed: from, ranges, fill, "
                              f"mean_positions")
        if self.fill not in FILLS:
            raise ConfigError(f"ablation.fill={self.fill!r} is not allowed: expected one of {list(FILLS)}")
        if not (is_index(self.mean_positions) and self.mean_positions >= 1):
            raise ConfigError(f"ablation.mean_positions={self.mean_positions!r} is not allowed: expected an "
                              f"integer >= 1")
        if self.zero_from is not None and not (is_index(self.zero_from) and self.zero_from >= 0):
            raise ConfigError(f"ablation.from={self.zero_from!r} is not allowed: expected an integer >= 0 or null")
        for r in self.ranges:
            if not (len(r) == 2 and all(is_index(v) for v in r) and 0 <= r[0] < r[1]):
                raise ConfigError(f"ablation.ranges entry {list(r)} is not allowed: expected [a, b) with "
                                  f"integers 0 <= a < b")
        if self.zero_from is None and not self.ranges:
            raise ConfigError("ablation.from=None and ablation.ranges=[] zero nothing: set at least one of them")

    def zeroed_dims(self, width: int, owner: str) -> Tensor:
        """(width,) bool: True where the table is zeroed; raises when a key points outside the table."""
        zeroed = torch.zeros(width, dtype=torch.bool)
        if self.zero_from is not None:
            if self.zero_from >= width:
                same_share = NOTES_FROM * width // NOTES_WIDTH
                raise ConfigError(f"ablation.from={self.zero_from} is not allowed: expected an integer in "
                                  f"[0, {width}) (the PE table width of {owner}); `from` counts dimensions, so set "
                                  f"it for this width: ablation.from={same_share} zeroes the same share as the "
                                  f"notes' {NOTES_FROM} of {NOTES_WIDTH}")
            zeroed[self.zero_from:] = True
        for a, b in self.ranges:
            if b > width:
                raise ConfigError(f"ablation.ranges entry [{a}, {b}) is not allowed: expected 0 <= a < b <= {width} "
                                  f"(the PE table width of {owner})")
            zeroed[a:b] = True
        return zeroed

    def apply(self, encoding: PositionalEncoding, d_model: int) -> PositionalEncoding:
        self.check_keys()
        owner = type(encoding).__name__
        if not isinstance(encoding, AbsoluteEncoding):
            raise ConfigError(f"ablation=zero_dims needs an encoding with a PE table, but encoding {owner} has none; "
                              f"allowed: table encodings (sinusoidal, learned, shape, ...)")
        width = encoding.d_pe
        zeroed = self.zeroed_dims(width, f"{owner}, d_model={d_model}")
        if self.fill == "mean":
            positions = min(self.mean_positions, encoding.max_positions or self.mean_positions)
            encoding.table_transform = MeanDimsFill(zeroed, encoding.compute_table, positions)
        else:
            encoding.table_transform = ZeroDimsMask(zeroed)
        return encoding

