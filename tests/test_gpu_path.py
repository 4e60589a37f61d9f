"""The GPU path, checked on CPU where it can be: the gpu preset, batches of a few fixed shapes, torch.compile with a
bounded number of graphs and an eager fallback, a stop signal during a long step. CUDA-only tests are skipped
without a GPU."""
from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch

from translate.assembly.builders import Component
from conftest import make_config
from translate.assembly.settings import validate_config
from translate.config import ConfigError
from translate.data.batching import FixedShapes, collate
from translate.training import compilation
from translate.training.checkpoint import load_checkpoint
from translate.training.device import make_runtime
from translate.training.interruption import Interrupted
from translate.assembly.trainer import build_trainer, model_from_config

ROOT = Path(__file__).resolve().parents[1]
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def make_trainer(tiny_config, tiny_data, run_dir, *overrides, device="cpu", precision="fp32"):
    cfg = tiny_config("train.valid_every=1000", "train.save_every=1000", "train.valid_bleu_limit=4",
                      "train.max_tokens=600", "model.dropout=0.0", *overrides)
    return build_trainer(validate_config(cfg), tiny_data, make_runtime(device, precision), run_dir)


def test_gpu_preset_composes_and_validates():
    cfg = make_config("train=gpu", "model=base")
    validate_config(cfg)
    t = cfg.train
    assert 16_000 <= t.max_tokens <= 32_000 and t.precision == "bf16" and t.compile and t.device == "cuda"
    assert t.max_minutes is None and t.max_steps == 4000 and t.warmup_steps < 1000 and t.label_smoothing == 0.1  # the rest from default


def test_bad_pad_shapes_names_the_key():
    with pytest.raises(ConfigError, match="train.pad_shapes='sometimes' is not allowed"):
        validate_config(make_config("model=tiny", "train.pad_shapes=sometimes"))


def test_fixed_shapes_pad_lengths_and_rows_and_add_no_loss(tiny_data):
    split, tok = tiny_data.splits["train"], tiny_data.tokenizer
    shapes = FixedShapes(multiple=8, max_tokens=600, max_sentences=1000)
    seen = set()
    for indices in ([0], [1, 2, 3], list(range(10, 40)), list(range(100, 107))):
        plain = collate(split.src, split.tgt, indices, tok.pad_id, tok.bos_id, tok.eos_id)
        batch = collate(split.src, split.tgt, indices, tok.pad_id, tok.bos_id, tok.eos_id, shapes)
        rows, length = batch.src.shape
        assert length % 8 == 0 and batch.tgt_in.shape == batch.tgt_out.shape == (rows, length)
        assert rows == min(1000, 600 // length) and rows >= len(indices)
        assert torch.equal(batch.src[: len(indices), : plain.src.size(1)], plain.src)
        assert torch.equal(batch.tgt_out[: len(indices), : plain.tgt_out.size(1)], plain.tgt_out)
        assert batch.tgt_out[len(indices):].eq(tok.pad_id).all()          # filler rows: no target tokens
        assert batch.src[len(indices):].ne(tok.pad_id).any(1).all()       # ... but a real source (no NaN rows)
        assert torch.equal(batch.target_positions, batch.tgt_out.ne(tok.pad_id).view(-1).nonzero().view(-1))
        seen.add((rows, length))
    assert len(seen) <= shapes.count(max(max(len(s), len(t)) for s, t in zip(split.src, split.tgt)) + 1)


def batches_of_distinct_lengths(trainer, count):
    """Training batches whose longest sentences all differ (one per length)."""
    src_lens, tgt_lens = trainer.train_lens
    by_length = {}
    for indices in trainer.epoch_batches(0):
        by_length.setdefault(max(max(src_lens[i], tgt_lens[i]) for i in indices), indices)
    assert len(by_length) >= count
    return [by_length[n] for n in sorted(by_length)][:count]


def test_compiled_training_makes_at_most_one_graph_per_shape(tiny_config, tiny_data, tmp_path):
    """aot_eager traces and differentiates the model like inductor without generating C++ (45 s a graph here)."""
    trainer = make_trainer(tiny_config, tiny_data, tmp_path, "encoding=t5", "train.compile=true",
                           "train.compile_backend=aot_eager")
    longest = max(max(lens) for lens in trainer.train_lens)
    bound = trainer.shapes.count(longest)
    batches = batches_of_distinct_lengths(trainer, 2 * bound)
    lengths = set()
    for indices in batches + batches[::-1]:
        record = trainer.train_step(indices)
        lengths.add(trainer.load_batch(indices).src.shape)
        assert torch.isfinite(record.loss)
    assert not trainer.compiled.failed
    assert len(lengths) <= bound < len(batches)
    assert 1 <= trainer.compiled.graphs <= bound
    assert trainer.compiled.seconds > 0


@pytest.mark.parametrize("backend", ["aot_eager", pytest.param("inductor", marks=pytest.mark.slow)])
def test_compile_on_and_off_give_the_same_loss_and_gradients(tiny_config, tiny_data, tmp_path, backend):
    eager = make_trainer(tiny_config, tiny_data, tmp_path / "a", "encoding=t5", "train.pad_shapes=true")
    compiled = make_trainer(tiny_config, tiny_data, tmp_path / "b", "encoding=t5", "train.compile=true",
                            f"train.compile_backend={backend}")
    indices = eager.epoch_batches(0)[0]
    assert compiled.epoch_batches(0)[0] == indices
    a, b = eager.train_step(indices), compiled.train_step(indices)
    assert not compiled.compiled.failed and compiled.compiled.graphs >= 1
    assert float(b.loss) == pytest.approx(float(a.loss), rel=1e-5)
    assert float(b.grad_norm) == pytest.approx(float(a.grad_norm), rel=1e-4)
    # Gradients, not weights: Adam's first step is lr * sign(g) for every weight, so the key biases (whose exact
    # gradient is 0: softmax ignores a shift shared by all keys) would move by +-lr on rounding noise.
    for (name, p), q in zip(eager.model.named_parameters(), compiled.model.parameters()):
        torch.testing.assert_close(q.grad, p.grad, rtol=1e-4, atol=1e-6, msg=name)


def test_an_encoding_that_cannot_compile_trains_eagerly_with_a_warning_naming_it(tiny_config, tiny_data, tmp_path,
                                                                                   monkeypatch, caplog):
    def fail(self, graph_module, example_inputs):
        raise RuntimeError("this backend cannot compile the graph")
    monkeypatch.setattr(compilation.CountingBackend, "__call__", fail)
    trainer = make_trainer(tiny_config, tiny_data, tmp_path, "encoding=alibi", "train.compile=true",
                           "train.max_steps=3", "train.log_every=1")
    with caplog.at_level(logging.WARNING):
        trainer.train()
    assert trainer.compiled.failed and trainer.progress.step == 3
    assert "train.compile: encoding=alibi cannot be compiled" in caplog.text and "training eagerly" in caplog.text


def test_compile_time_and_graphs_are_in_the_checkpoint(tiny_config, tiny_data, tmp_path):
    trainer = make_trainer(tiny_config, tiny_data, tmp_path, "train.compile=true", "train.compile_backend=eager",
                           "train.max_steps=4", "train.log_every=2")
    trainer.train()
    progress = load_checkpoint(tmp_path / "last.pt")["progress"]
    assert progress["compiled_graphs"] == trainer.compiled.graphs >= 1 and progress["compile_seconds"] > 0


def test_sigterm_during_a_slow_step_stops_within_10_s(tiny_config, tiny_data, tmp_path):
    """The step would take 120 s; the run stops a few seconds after the signal with the last finished step saved."""
    trainer = make_trainer(tiny_config, tiny_data, tmp_path, "train.max_steps=50", "train.log_every=1")
    calls, sent = {"n": 0}, {}

    def slow_third_step(module, inputs, output):
        calls["n"] += module.training
        if calls["n"] == 3 and module.training:
            threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM)).start()
            sent["at"] = time.perf_counter() + 0.5
            for _ in range(1200):  # Python-level waiting, like compiling
                time.sleep(0.1)
    trainer.model.decoder_norm.register_forward_hook(slow_third_step)
    with pytest.raises(Interrupted) as caught:
        trainer.train()
    assert time.perf_counter() - sent["at"] < 10
    assert caught.value.step == 2 and load_checkpoint(tmp_path / "last.pt")["progress"]["step"] == 2
    assert load_checkpoint(tmp_path / "last.pt")["progress"]["batch_in_epoch"] == 2  # the dropped batch comes again


@pytest.mark.slow
def test_bench_gpu_quick_runs_and_writes_json_and_markdown(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_gpu.py"), "--quick", "--encodings", "sinusoidal",
                          "t5", "--profile", "1", "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    results = json.loads((tmp_path / "bench_gpu.json").read_text())
    profile = (tmp_path / "profile_sinusoidal_300_eager.txt").read_text()
    assert "1 steps profiled" in profile and "aten::" in profile  # the ops of a real step, as a table
    assert results["device"] and results["matmul_peak_tflops"] > 0
    assert {r["encoding"] for r in results["train"]} == {"sinusoidal", "t5"}  # a table and a bias: both paths
    assert all(r["target_tokens_per_s"] > 0 and 0 < r["mfu"] < 1 for r in results["train"])
    assert {r["search"] for r in results["decode"]} == {"greedy", "beam4"}
    assert results["device"] in (tmp_path / "bench_gpu.md").read_text()


def test_picking_cuda_turns_cudnn_attention_off_and_cpu_leaves_it(monkeypatch):
    """cuDNN's attention rebuilds a graph for each new shape (our batches and decoding steps change shape): whatever
    asks for a CUDA device gets FlashAttention or the memory-efficient kernel instead; a CPU run changes nothing."""
    from translate.training import device as device_module

    torch.backends.cuda.enable_cudnn_sdp(True)
    try:
        assert device_module.pick_device("cpu").type == "cpu" and torch.backends.cuda.cudnn_sdp_enabled()
        monkeypatch.setattr(device_module, "_device_named", lambda name: torch.device("cuda", 0))
        assert device_module.pick_device("cuda").type == "cuda"
        assert not torch.backends.cuda.cudnn_sdp_enabled()
    finally:
        torch.backends.cuda.enable_cudnn_sdp(True)


@needs_cuda
def test_cuda_training_step_runs_no_cudnn_attention(tiny_config, tiny_data, tmp_path):
    from torch.profiler import ProfilerActivity, profile

    trainer = make_trainer(tiny_config, tiny_data, tmp_path, "encoding=sinusoidal", "train.device=cuda",
                           device="cuda", precision="bf16")
    batches = trainer.epoch_batches(0)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for indices in batches[:2]:
            trainer.train_step(indices)
    names = {e.key for e in prof.key_averages()}
    assert "aten::scaled_dot_product_attention" in names
    assert not any("cudnn_attention" in n for n in names), sorted(n for n in names if "attention" in n)


@needs_cuda
def test_cuda_bf16_compiled_training_skips_nan_steps_on_the_device(tiny_config, tiny_data, tmp_path):
    trainer = make_trainer(tiny_config, tiny_data, tmp_path, "encoding=t5", "train.compile=true",
                           "train.max_steps=6", "train.log_every=3", "train.device=cuda", device="cuda",
                           precision="bf16")
    calls = {"n": 0}

    def nan_on_second(module, inputs, output):
        calls["n"] += module.training
        return output * float("nan") if calls["n"] == 2 and module.training else output
    trainer.model.decoder_norm.register_forward_hook(nan_on_second)
    trainer.train()
    assert trainer.progress.step == 6 and trainer.progress.skipped_steps == 1
    assert all(torch.isfinite(p).all() for p in trainer.model.parameters())
    assert trainer.runtime.fused_adamw and not trainer.compiled.failed


@pytest.mark.parametrize("encoding", ["t5", "alibi"])
@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_flex_attention_path_equals_the_sdpa_path(encoding, kind):
    """flex_attention runs eagerly on CPU (a reference implementation, forward only): same output as today's path,
    with the padding (encoder) or causal (decoder) mask added to the encoding's per-head bias."""
    from translate.model.attention import attend
    from translate.assembly.builders import build_encoding
    from translate.model.transformer import add_bias, causal_bias, padding_bias

    torch.manual_seed(0)
    cfg = make_config("model=tiny", f"encoding={encoding}")
    enc = build_encoding(Component.of(cfg.encoding, "encoding"), Component.of(cfg.ablation, "ablation"),
                         cfg.model.d_model, cfg.model.n_heads)
    b, h, t, dh = 3, cfg.model.n_heads, 13, cfg.model.d_model // cfg.model.n_heads
    positions = torch.arange(t)
    terms = enc.attention_terms(kind, positions, positions)
    tokens = torch.randint(4, 50, (b, t))
    tokens[1, 9:] = tokens[2, 5:] = 0
    mask = padding_bias(tokens, 0) if kind == "encoder" else causal_bias(positions, positions)
    bias = add_bias(mask, terms)
    q, k, v = (torch.randn(b, h, t, dh) for _ in range(3))  # no backward on CPU (the CUDA test has it)
    reference, _ = attend(q, k, v, bias, terms, 0.0, False)
    flexed, _ = attend(q, k, v, bias, terms, 0.0, False, flex=True)
    torch.testing.assert_close(flexed, reference, rtol=1e-5, atol=1e-5)


def test_shaw_and_deberta_use_every_table_row_when_compiling_with_the_same_result(monkeypatch):
    """Under torch.compile (or on a GPU) the relative tables are read whole instead of finding the used rows."""
    from translate.assembly.trainer import model_from_config

    src, tgt = torch.randint(4, 50, (2, 7)), torch.randint(4, 50, (2, 6))
    for encoding in ("shaw", "deberta"):
        torch.manual_seed(0)
        model = model_from_config(make_config("model=tiny", f"encoding={encoding}"), 60, 0).eval()
        used_rows = model(src, tgt)
        monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
        torch.testing.assert_close(model(src, tgt), used_rows, rtol=1e-5, atol=1e-5)
        monkeypatch.undo()


@needs_cuda
def test_cuda_compiled_flex_attention_matches_sdpa_for_t5_in_value_and_gradient():
    from translate.assembly.trainer import model_from_config

    torch.manual_seed(0)
    model = model_from_config(make_config("model=tiny", "encoding=t5", "model.dropout=0.0"), 60, 0).cuda()
    src, tgt = torch.randint(4, 50, (4, 16), device="cuda"), torch.randint(4, 50, (4, 16), device="cuda")
    src[1, 10:] = 0
    reference = model(src, tgt)
    reference_grads = torch.autograd.grad(reference.square().sum(), list(model.parameters()), allow_unused=True)
    for module in model.modules():
        if hasattr(module, "flex"):
            module.flex = True
    compiled = torch.compile(model, dynamic=False)(src, tgt)
    torch.testing.assert_close(compiled, reference, rtol=1e-3, atol=1e-3)
    grads = torch.autograd.grad(compiled.square().sum(), list(model.parameters()), allow_unused=True)
    for g, r in zip(grads, reference_grads):
        if r is not None:
            torch.testing.assert_close(g, r, rtol=1e-2, atol=1e-3)


@pytest.mark.slow
def test_bench_gpu_concurrency_quick_sums_the_jobs_it_started(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_gpu_concurrency.py"), "--quick", "--jobs", "1",
                          "2", "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = json.loads((tmp_path / "bench_gpu_concurrency.json").read_text())["rows"]
    assert [r["jobs"] for r in rows] == [1, 2]
    for r in rows:
        per_job = [json.loads((tmp_path / f"jobs{r['jobs']}" / f"job{i}" / "bench_gpu.json").read_text())["train"][0]
                   for i in range(r["jobs"])]
        window = max(j["timed_to"] for j in per_job) - min(j["timed_from"] for j in per_job)
        assert r["total_target_tokens_per_s"] == pytest.approx(sum(j["target_tokens"] for j in per_job) / window)
        # started together: every job began timing before any other had finished
        assert max(j["timed_from"] for j in per_job) <= min(j["timed_to"] for j in per_job)
        assert r["total_target_tokens_per_s"] <= r["sum_of_job_rates"] * (1 + 1e-4)  # epoch-time rounding
    assert "| 2 |" in (tmp_path / "bench_gpu_concurrency.md").read_text()


@pytest.mark.slow
def test_bench_gpu_decodes_with_a_trained_checkpoint(tmp_path):
    run = tmp_path / "run"
    trained = subprocess.run([sys.executable, "-m", "translate.train", "+debug=tiny", "data.test_limit=40",
                              "train.max_steps=2", "report.alignment_error_rate=false", f"hydra.run.dir={run}"],
                             cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert trained.returncode == 0, trained.stderr[-2000:]
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_gpu.py"), "--quick", "--encodings",
                          "--checkpoint", str(run / "last.pt"), "--decode-batch-tokens", "100", "400",
                          "--out", str(tmp_path / "bench")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    results = json.loads((tmp_path / "bench" / "bench_gpu.json").read_text())
    assert results["train"] == [] and results["decode_checkpoint"].endswith("(step 2)")
    assert [(r["search"], r["batch_tokens"]) for r in results["decode"]] == [
        ("greedy", 100), ("greedy", 400), ("beam4", 100), ("beam4", 400)]  # a row per search and batch size
    assert all(r["sentences_per_s"] > 0 for r in results["decode"])
    assert "| greedy | 400 |" in (tmp_path / "bench" / "bench_gpu.md").read_text()
