"""Label-smoothed cross-entropy computed only at non-pad target positions.

Projecting only the real tokens to the vocabulary skips the padded rows of the largest matmul and softmax.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch.nn.functional as F
from torch import Tensor

from translate.model.transformer import Transformer


@dataclass
class LossResult:
    loss: Tensor      # summed label-smoothed loss (for backward)
    nll: Tensor       # summed negative log-likelihood (for perplexity), detached
    tokens: int       # non-pad target tokens


def sequence_loss(model: Transformer, hidden: Tensor, tgt_out: Tensor, pad_id: int,
                  label_smoothing: float) -> LossResult:
    """hidden (B, T, d), tgt_out (B, T) -> summed losses over non-pad positions."""
    keep = tgt_out.ne(pad_id)
    logits = model.project(hidden[keep]).float()  # (N, V)
    targets = tgt_out[keep]
    loss = F.cross_entropy(logits, targets, label_smoothing=label_smoothing, reduction="sum")
    nll = F.cross_entropy(logits.detach(), targets, reduction="sum") if label_smoothing else loss.detach()
    return LossResult(loss, nll, int(targets.numel()))
