"""The one rule for how long a translation may get, and its inverse.

A source of n tokens (its eos counted, as the encoder sees it) may produce int(n * ratio) + extra output tokens (eos
included), never more than an encoding with a table (max_positions) can represent. Search stops there, the config
check refuses data whose translations would not fit, and the command line truncates inputs so that they do.
"""
from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor


def max_output_tokens(source_tokens: int, ratio: float, extra: int) -> int:
    """Most output tokens (eos included) for a source of `source_tokens` tokens (eos included)."""
    return int(source_tokens * ratio) + extra


def max_output_tokens_per_sentence(source_tokens: Tensor, ratio: float, extra: int,
                                   max_positions: Optional[int] = None) -> Tensor:
    """(B,) source tokens -> (B,) most output tokens, capped at max_positions (None: no table, no cap).

    Applies max_output_tokens to each sentence in Python floats, so that a batch never gets a different limit than
    the config check computed (float32 tensor arithmetic rounds some products, e.g. 90 * 1.3, below the integer).
    """
    limits = [max_output_tokens(n, ratio, extra) for n in source_tokens.tolist()]
    if max_positions is not None:
        limits = [min(limit, max_positions) for limit in limits]
    return torch.tensor(limits, dtype=torch.long, device=source_tokens.device)


def longest_source_fitting(max_positions: Optional[int], ratio: float, extra: int, cap: int) -> int:
    """Most source tokens (eos excluded, at most `cap`) whose sentence and longest translation both fit a table of
    max_positions positions (None: no table, so `cap`)."""
    if max_positions is None:
        return cap
    n = min(cap, max_positions - 1)  # the source's eos takes one position
    while n >= 1 and max_output_tokens(n + 1, ratio, extra) > max_positions:
        n -= 1
    if n < 1:
        raise ValueError(f"the encoding represents only {max_positions} positions: too few for any input with up to "
                         f"int(source tokens * {ratio}) + {extra} output tokens")
    return n
