"""Label-smoothed cross-entropy computed only at non-pad target positions.

Projecting only the real tokens to the vocabulary skips the padded rows of the largest matmul and softmax. One
log-softmax serves both the smoothed loss and the reported NLL (the vocabulary softmax is the costliest
non-matmul op of a step).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Protocol

import torch
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


class ProjectedLoss(Protocol):
    def __call__(self, model: Transformer, rows: Tensor, targets: Tensor,
                 label_smoothing: float) -> tuple[Tensor, Tensor]:
        """rows (N, d) decoder states, targets (N,) -> (summed smoothed loss, summed NLL detached)."""


def logits_then_loss(model: Transformer, rows: Tensor, targets: Tensor,
                     label_smoothing: float) -> tuple[Tensor, Tensor]:
    """The reference: the (N, V) logits, then smoothed_cross_entropy on them in fp32."""
    return smoothed_cross_entropy(model.project(rows).float(), targets, label_smoothing)


class _ChunkedProjection(torch.autograd.Function):
    """smoothed_cross_entropy(rows @ weight^T) a few hundred rows at a time, matmuls in `dtype`, softmax in fp32.

    The gradient of the summed loss with respect to the logits, softmax(z) - eps / V - (1 - eps) onehot(t), does not
    depend on the incoming gradient but for a scalar factor, so the forward writes it (in `dtype`) while each chunk's
    log-probabilities are at hand, and the backward is two matmuls scaled by that factor. No (N, V) fp32 tensor is
    ever made: each chunk's temporaries stay small and are reused, where whole-batch ones cost fresh pages of
    memory and several passes each (docs/speed.md)."""

    @staticmethod
    def forward(ctx, rows: Tensor, weight: Tensor, targets: Tensor, eps: float, dtype: torch.dtype,
                rows_per_chunk: int) -> tuple[Tensor, Tensor]:
        x, w = rows.to(dtype), weight.to(dtype)      # (N, d), (V, d)
        (n, vocab), softmax_dtype = (x.size(0), w.size(0)), torch.promote_types(dtype, torch.float32)
        nll = torch.zeros((), dtype=softmax_dtype, device=rows.device)
        uniform = torch.zeros_like(nll)
        wants_grad = ctx.needs_input_grad[0] or ctx.needs_input_grad[1]
        grad_logits = torch.empty(n, vocab, dtype=dtype, device=x.device) if wants_grad else None   # (N, V)
        for start in range(0, n, rows_per_chunk):
            chunk = slice(start, start + rows_per_chunk)
            log_probs = (x[chunk] @ w.t()).to(softmax_dtype).log_softmax(-1)   # (c, V)
            nll -= log_probs.gather(1, targets[chunk, None]).sum()
            uniform -= log_probs.sum() / vocab
            if wants_grad:
                probs = log_probs.exp_().sub_(eps / vocab)
                probs.scatter_add_(1, targets[chunk, None], probs.new_full((probs.size(0), 1), eps - 1))
                grad_logits[chunk] = probs
        ctx.save_for_backward(x, w, grad_logits)
        ctx.dtypes = rows.dtype, weight.dtype
        return (1 - eps) * nll + eps * uniform, nll

    @staticmethod
    def backward(ctx, grad_loss: Tensor, _grad_nll: Tensor):
        x, w, grad_logits = ctx.saved_tensors
        rows_dtype, weight_dtype = ctx.dtypes
        grad_rows = (grad_logits @ w).to(rows_dtype).mul_(grad_loss)          # (N, d)
        grad_weight = (grad_logits.t() @ x).to(weight_dtype).mul_(grad_loss)  # (V, d)
        return grad_rows, grad_weight, None, None, None, None


class ChunkedProjectionLoss:
    """The CPU bf16 path's loss: logits_then_loss's value and gradient (tested equal in float64), with the output
    projection inside it, in chunks of rows (_ChunkedProjection). Reads the projection's weight directly: the model's
    output layer is a bias-free Linear."""

    def __init__(self, dtype: torch.dtype, rows_per_chunk: int = 256) -> None:
        self.dtype, self.rows_per_chunk = dtype, rows_per_chunk

    def __call__(self, model: Transformer, rows: Tensor, targets: Tensor,
                 label_smoothing: float) -> tuple[Tensor, Tensor]:
        with torch.autocast(rows.device.type, enabled=False):  # the dtypes are chosen here, not by autocast
            loss, nll = _ChunkedProjection.apply(rows, model.output.weight, targets, label_smoothing, self.dtype,
                                                 self.rows_per_chunk)
        return loss, nll.detach()


def sequence_loss(model: Transformer, hidden: Tensor, tgt_out: Tensor, pad_id: int,
                  label_smoothing: float, positions: Optional[Tensor] = None,
                  projected_loss: ProjectedLoss = logits_then_loss) -> LossResult:
    """hidden (B, T, d), tgt_out (B, T) -> summed losses over non-pad positions.

    positions (N,): the flat indices of the non-pad positions when the caller knows them (Batch.target_positions);
    a boolean mask would make the host wait for the device to learn N. projected_loss: from the rows to the
    summed losses (logits_then_loss, or ChunkedProjectionLoss on the CPU bf16 path)."""
    if positions is None:
        keep = tgt_out.ne(pad_id)
        rows, targets = hidden[keep], tgt_out[keep]
    else:
        rows, targets = hidden.flatten(0, 1).index_select(0, positions), tgt_out.view(-1).index_select(0, positions)
    loss, nll = projected_loss(model, rows, targets, label_smoothing)
    return LossResult(loss, nll, int(targets.numel()))
