"""The CPU bf16 training path: its loss equals the reference in value and gradient, its dropout has the reference's
distribution, its attention the reference's values; fp32 keeps the reference kernels; runs repeat bit for bit."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from translate.model.attention import attend
from translate.model.dropout import Dropout, keep_mask, use_packed_dropout
from translate.encodings.base import NO_TERMS
from translate.training.device import make_runtime
from translate.training.loss import ChunkedProjectionLoss, logits_then_loss, smoothed_cross_entropy


class Projection(torch.nn.Module):
    """What the losses read of a model: a bias-free output layer."""

    def __init__(self, d: int, vocab: int, dtype: torch.dtype) -> None:
        super().__init__()
        self.output = torch.nn.Linear(d, vocab, bias=False, dtype=dtype)

    def project(self, hidden):
        return self.output(hidden)


@pytest.mark.parametrize("eps, rows_per_chunk", [(0.0, 7), (0.1, 7), (0.1, 64), (0.3, 1)])
def test_the_chunked_projection_loss_equals_the_reference_in_value_and_gradient(eps, rows_per_chunk):
    torch.manual_seed(0)
    model = Projection(16, 50, torch.float64)
    rows = torch.randn(37, 16, dtype=torch.float64, requires_grad=True)  # 37: the chunks do not divide the rows
    targets = torch.randint(0, 50, (37,))
    expected, expected_nll = smoothed_cross_entropy(model.project(rows), targets, eps)
    loss, nll = ChunkedProjectionLoss(torch.float64, rows_per_chunk)(model, rows, targets, eps)
    assert float(loss) == pytest.approx(float(expected), rel=1e-12)
    assert float(nll) == pytest.approx(float(expected_nll), rel=1e-12) and not nll.requires_grad
    weight = model.output.weight
    ours = torch.autograd.grad(3.0 * loss, (rows, weight))   # a factor: the backward scales by the incoming gradient
    theirs = torch.autograd.grad(3.0 * expected, (rows, weight))
    for a, b in zip(ours, theirs):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)


def test_the_chunked_loss_in_bf16_is_the_fp32_reference_to_bf16_precision_with_or_without_gradients():
    torch.manual_seed(1)
    model = Projection(32, 300, torch.float32)
    rows = torch.randn(90, 32, requires_grad=True)
    targets = torch.randint(0, 300, (90,))
    expected, _ = logits_then_loss(model, rows, targets, 0.1)
    loss, _ = ChunkedProjectionLoss(torch.bfloat16, 16)(model, rows, targets, 0.1)
    assert float(loss) == pytest.approx(float(expected), rel=2e-2)
    grad, = torch.autograd.grad(loss, rows)
    reference, = torch.autograd.grad(expected, rows)
    assert grad.dtype == torch.float32  # the gradients come back in the inputs' dtypes
    assert F.cosine_similarity(grad.flatten(), reference.flatten(), dim=0) > 0.99
    with torch.no_grad():  # validation: the value alone
        value, _ = ChunkedProjectionLoss(torch.bfloat16, 16)(model, rows, targets, 0.1)
    assert float(value) == float(loss)


def test_torch_dropout_is_kept_bit_for_bit_where_masks_are_not_packed():
    x = torch.randn(64, 48)
    torch.manual_seed(3)
    ours = Dropout(0.1).train()(x)
    torch.manual_seed(3)
    assert torch.equal(ours, torch.nn.Dropout(0.1).train()(x))
    assert torch.equal(Dropout(0.1).eval()(x), x)


@pytest.mark.parametrize("p", [0.1, 0.3])
def test_packed_masks_drop_with_probability_p_in_every_slice_of_the_random_words(p):
    torch.manual_seed(4)
    n = 400_000
    keep, scale = keep_mask(torch.Size([n]), p, torch.device("cpu"))
    # each 64-bit word gives 4 slices: a slice that used fewer bits (the sign bit of a non-negative int64) would
    # keep far more or far fewer than 1 - p
    for slot in range(4):
        kept = keep.view(-1, 4)[:, slot].double().mean().item()
        assert abs(kept - (1 - p)) < 5 * ((p * (1 - p)) / (n / 4)) ** 0.5, (slot, kept)
    assert scale * (1 - round(p * 65536) / 65536) == pytest.approx(1.0, abs=1e-12)  # unbiased: E[mask * scale] = 1


def test_packed_dropout_keeps_the_expectation_repeats_by_seed_and_passes_gradients_through_the_mask():
    dropout = Dropout(0.2).train()
    use_packed_dropout(torch.nn.Sequential(dropout), True)
    x = torch.ones(200_000, dtype=torch.bfloat16, requires_grad=True)
    torch.manual_seed(5)
    y = dropout(x)
    torch.manual_seed(5)
    assert torch.equal(y, dropout(x))
    assert y.dtype == torch.bfloat16 and abs(y.float().mean().item() - 1.0) < 0.01
    y.float().sum().backward()
    assert torch.equal(x.grad, y.detach())  # d(x * mask)/dx = mask: the same zeros, the same scale
    assert torch.equal(dropout.eval()(x), x)


def test_bf16_attention_on_the_cpu_takes_the_explicit_matmuls_and_matches_fp32():
    torch.manual_seed(6)
    q, k, v = (torch.randn(3, 4, 9, 16) for _ in range(3))
    bias = torch.zeros(3, 1, 1, 9).masked_fill(torch.arange(9) >= 7, float("-inf"))  # padding
    reference, _ = attend(q, k, v, bias, NO_TERMS, 0.0, need_weights=False)
    out, probs = attend(q.bfloat16(), k.bfloat16(), v.bfloat16(), bias, NO_TERMS, 0.0, need_weights=False)
    assert probs is None and out.dtype == torch.bfloat16  # no weights unless asked for
    torch.testing.assert_close(out.float(), reference, rtol=2e-2, atol=2e-2)


def test_only_the_cpu_bf16_runtime_takes_the_new_kernels(tiny_config, tiny_data, tmp_path):
    from translate.assembly.settings import validate_config
    from translate.assembly.trainer import build_trainer

    assert make_runtime("cpu", "bf16").cpu_bf16 and not make_runtime("cpu", "fp32").cpu_bf16
    assert not make_runtime("cpu", "auto").cpu_bf16  # fp32 stays the CPU default
    for precision, packed in (("fp32", False), ("bf16", True)):
        settings = validate_config(tiny_config(f"train.precision={precision}"))
        trainer = build_trainer(settings, tiny_data, make_runtime("cpu", precision), tmp_path / precision,
                                writer=False)
        dropouts = [m for m in trainer.model.modules() if isinstance(m, Dropout)]
        assert dropouts and all(m.packed_masks == packed for m in dropouts)
        assert isinstance(trainer.projected_loss, ChunkedProjectionLoss) == packed
        assert (trainer.projected_loss is logits_then_loss) == (not packed)


def test_a_bf16_run_repeats_bit_for_bit_learns_and_names_its_precision(tmp_path, tiny_config):
    from translate.cli.train import run

    overrides = ("train.precision=bf16", "train.max_steps=16", "train.valid_every=8")
    first = run(tiny_config(*overrides), tmp_path / "a")
    again = run(tiny_config(*overrides), tmp_path / "b")
    assert first["weights_sha256"] == again["weights_sha256"]
    assert first["device"] == "CPU, bf16"
    (_, _, loss_at_8), (_, _, loss_at_16) = first["valid_curve"]  # [step, valid BLEU, valid loss]
    assert loss_at_16 < loss_at_8
