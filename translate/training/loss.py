"""Label-smoothed cross-entropy computed only at non-pad target positions.

Projecting only the real tokens to the vocabulary skips the padded rows of the largest matmul and softmax. One
log-softmax serves both the smoothed loss and the reported NLL (the vocabulary softmax is the costliest
non-matmul op of a step).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from torch import Tensor

from translate.model.transformer import Transformer


@dataclass
class LossResult:
    loss: Tensor      # summed label-smoothed loss (for backward)
    nll: Tensor       # summed negative log-likelihood (for perplexity), detached
    tokens: int       # non-pad target tokens


def smoothed_cross_entropy(logits: Tensor, targets: Tensor, label_smoothing: float) -> tuple[Tensor, Tensor]:
    """logits (N, V), targets (N,) -> (summed smoothed loss, summed NLL detached).

    Same definition as F.cross_entropy(label_smoothing=eps): (1 - eps) * nll + eps * mean over the V classes of
    -log p (the uniform part includes the target class).
    """
    log_probs = logits.log_softmax(-1)  # (N, V)
    nll = -log_probs.gather(1, targets[:, None]).sum()
    if not label_smoothing:
        return nll, nll.detach()
    uniform = -log_probs.mean(-1).sum()
    return (1 - label_smoothing) * nll + label_smoothing * uniform, nll.detach()


def sequence_loss(model: Transformer, hidden: Tensor, tgt_out: Tensor, pad_id: int,
                  label_smoothing: float, positions: Optional[Tensor] = None) -> LossResult:
    """hidden (B, T, d), tgt_out (B, T) -> summed losses over non-pad positions.

    positions (N,): the flat indices of the non-pad positions when the caller knows them (Batch.target_positions);
    a boolean mask would make the host wait for the device to learn N."""
    if positions is None:
        keep = tgt_out.ne(pad_id)
        rows, targets = hidden[keep], tgt_out[keep]
    else:
        rows, targets = hidden.flatten(0, 1).index_select(0, positions), tgt_out.view(-1).index_select(0, positions)
    logits = model.project(rows).float()  # (N, V)
    loss, nll = smoothed_cross_entropy(logits, targets, label_smoothing)
    return LossResult(loss, nll, int(targets.numel()))
