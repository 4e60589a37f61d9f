"""The training loss: one log-softmax, the same definition as F.cross_entropy, only non-pad positions."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from translate.training.loss import sequence_loss, smoothed_cross_entropy


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.3])
def test_smoothed_cross_entropy_equals_torch_in_value_and_gradient(eps):
    torch.manual_seed(0)
    logits = torch.randn(40, 57, dtype=torch.float64, requires_grad=True)
    targets = torch.randint(0, 57, (40,))
    loss, nll = smoothed_cross_entropy(logits, targets, eps)
    reference = F.cross_entropy(logits, targets, label_smoothing=eps, reduction="sum")
    assert float(loss.detach()) == pytest.approx(float(reference.detach()), rel=1e-12)
    assert float(nll) == pytest.approx(float(F.cross_entropy(logits, targets, reduction="sum").detach()), rel=1e-12)
    assert not nll.requires_grad
    ours, = torch.autograd.grad(loss, logits)
    theirs, = torch.autograd.grad(reference, logits)
    torch.testing.assert_close(ours, theirs, rtol=1e-10, atol=1e-12)


def test_sequence_loss_ignores_padded_positions():
    class Projection(torch.nn.Module):
        def project(self, hidden):
            return hidden @ torch.eye(4, 6)  # (N, 4) -> (N, 6)

    torch.manual_seed(1)
    hidden = torch.randn(2, 3, 4)
    tgt_out = torch.tensor([[4, 5, 0], [3, 0, 0]])  # pad id 0
    result = sequence_loss(Projection(), hidden, tgt_out, pad_id=0, label_smoothing=0.1)
    keep = tgt_out.ne(0)
    expected = F.cross_entropy(hidden[keep] @ torch.eye(4, 6), tgt_out[keep], label_smoothing=0.1, reduction="sum")
    assert result.tokens == 3
    assert float(result.loss) == pytest.approx(float(expected), rel=1e-6)
    hidden[0, 2] = 1e4  # a padded position changes nothing
    assert float(sequence_loss(Projection(), hidden, tgt_out, 0, 0.1).loss) == pytest.approx(float(expected), rel=1e-6)
