"""Training throughput: our training step against a plain PyTorch-tutorial Transformer, or our fp32 step against
our bf16 step (--against fp32), in one process.

    python scripts/bench_train.py --model small --steps 8
    python scripts/bench_train.py --model base --steps 4 --rss small base
    python scripts/bench_train.py --against fp32 --model small --steps 16 --profile 3
    python scripts/bench_train.py --against fp32 --ladder --model small --steps 12

Both sides train on the same Tatoeba sentences with the same sizes (d_model, heads, layers, FFN, vocabulary):
  ours      Trainer.train_step: token-budget batches of length-sorted sentences, loss on non-pad rows only,
            fused AdamW, SDPA attention;
  baseline  torch.nn.Transformer + sinusoidal PE + a full-vocabulary CrossEntropyLoss(ignore_index=pad), Adam,
            random batches padded to their longest sentence, as many sentences per batch as ours on average.
Steps alternate between the two so that other processes on the machine slow both alike; absolute numbers on a
shared machine are noisy, the ratios are what to read. FLOPs count only the useful (non-pad) work of the model's
matmuls (attention scores included, causal ones in full), x3 for forward + backward; the share is of the fp32
matmul peak measured here with a large torch.matmul next to every step (the load of a shared machine drifts), so
the share is useful FLOPs / what matmul could have done in the same seconds. Steps alternate ABBA.

--against fp32: two trainers from the same seed and config, one with train.precision=fp32 and one with
train.precision=bf16 (the CPU bf16 path: autocast, the chunked projection loss, packed dropout masks, explicit
attention matmuls), take the same batches in ABBA order. Printed: target tokens/s of each, their ratio (and per step
pair), and each one's share of the fp32 and of the bf16 matmul peak measured next to every step pair (the best of
2048^3 and 4096^3 matmuls in each dtype). --profile N then profiles N steps of each and sorts the time by kind.
--ladder instead adds the bf16 path's parts one at a time (autocast alone, + explicit attention, + packed dropout
masks, + the chunked projection loss), five trainers on the same batches, each against the one before.
"""
from __future__ import annotations

import argparse
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
from torch import nn

from translate.assembly.settings import data_settings, validate_config
from translate.assembly.compose import compose
from translate.model.flops import train_flops

ROOT = Path(__file__).resolve().parents[1]


# -- the machine's peak ---------------------------------------------------------------------------------------------
def matmul_peak(n: int = 4096, repeats: int = 1, dtype: torch.dtype = torch.float32) -> float:
    """Best FLOP/s of an n x n x n matmul in `dtype`."""
    a, b = torch.randn(n, n, dtype=dtype), torch.randn(n, n, dtype=dtype)
    a @ b
    best = 0.0
    for _ in range(repeats):
        started = time.perf_counter()
        a @ b
        best = max(best, 2 * n ** 3 / (time.perf_counter() - started))
    return best


# -- useful model FLOPs ---------------------------------------------------------------------------------------------
# -- the baseline: what a user writes from the PyTorch tutorial -----------------------------------------------------
class TutorialTransformer(nn.Module):
    def __init__(self, vocab: int, m, max_len: int = 512) -> None:
        super().__init__()
        self.src_embed, self.tgt_embed = nn.Embedding(vocab, m.d_model), nn.Embedding(vocab, m.d_model)
        position = torch.arange(max_len)[:, None]
        div = torch.exp(torch.arange(0, m.d_model, 2) * (-math.log(10000.0) / m.d_model))
        pe = torch.zeros(max_len, m.d_model)
        pe[:, 0::2], pe[:, 1::2] = torch.sin(position * div), torch.cos(position * div)
        self.register_buffer("pe", pe)
        self.dropout = nn.Dropout(m.dropout)
        self.transformer = nn.Transformer(m.d_model, m.n_heads, m.n_encoder_layers, m.n_decoder_layers, m.d_ff,
                                          m.dropout, batch_first=True, norm_first=m.norm_position == "pre")
        self.generator = nn.Linear(m.d_model, vocab)
        self.scale = math.sqrt(m.d_model)

    def embed(self, embedding: nn.Embedding, tokens: torch.Tensor) -> torch.Tensor:
        return self.dropout(embedding(tokens) * self.scale + self.pe[: tokens.size(1)])

    def forward(self, src, tgt_in, pad_id: int):
        causal = nn.Transformer.generate_square_subsequent_mask(tgt_in.size(1))
        src_pad, tgt_pad = src.eq(pad_id), tgt_in.eq(pad_id)
        out = self.transformer(self.embed(self.src_embed, src), self.embed(self.tgt_embed, tgt_in), tgt_mask=causal,
                               src_key_padding_mask=src_pad, tgt_key_padding_mask=tgt_pad,
                               memory_key_padding_mask=src_pad, tgt_is_causal=True)
        return self.generator(out)  # (B, T, V): every position, padding included


class Baseline:
    def __init__(self, cfg, vocab: int, pad_id: int, label_smoothing: float) -> None:
        torch.manual_seed(cfg.seed)
        self.model, self.pad_id = TutorialTransformer(vocab, cfg.model), pad_id
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
        self.criterion = nn.CrossEntropyLoss(ignore_index=pad_id, label_smoothing=label_smoothing)

    def step(self, batch) -> int:
        self.model.train()
        logits = self.model(batch.src, batch.tgt_in, self.pad_id)
        loss = self.criterion(logits.reshape(-1, logits.size(-1)), batch.tgt_out.reshape(-1))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return int(batch.tgt_out.ne(self.pad_id).sum())


def random_batches(n: int, size: int, seed: int) -> list[list[int]]:
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return [order[i: i + size] for i in range(0, n, size)]


def padding(lens: list[int], batches: list[list[int]]) -> float:
    real = sum(lens[i] for b in batches for i in b)
    return 1 - real / sum(len(b) * max(lens[i] for i in b) for b in batches)


# -- measurements ---------------------------------------------------------------------------------------------------
def build(model: str, overrides: list[str], precision: str = "fp32", data=None):
    """(config, data, trainer) of `model` on the CPU in `precision`; data: already prepared (the same pairs)."""
    from translate.data.pipeline import prepare_data
    from translate.training.device import make_runtime
    from translate.assembly.trainer import build_trainer

    cfg = compose(f"model={model}", "train.device=cpu", f"train.precision={precision}", *overrides)
    data = data or prepare_data(data_settings(cfg))
    trainer = build_trainer(validate_config(cfg), data, make_runtime("cpu", precision),
                            Path(tempfile.mkdtemp(prefix="bench_train_")), writer=False)
    return cfg, data, trainer


# What each profiled op is, by name (self CPU time): a kind per op, the rest is OTHER_OPS.
OTHER_OPS = "element-wise and other (layer norm, adds, ReLU, sums, ...)"
OP_KINDS = {
    "matmuls (linear layers, vocabulary projection)": ("aten::mm", "aten::addmm"),
    "attention (scores, softmax, weighted sum; fused or explicit)": (
        "aten::bmm", "aten::_softmax", "aten::_softmax_backward_data", "aten::_scaled_dot_product"),
    "vocabulary log-softmax and loss": ("aten::_log_softmax", "aten::gather", "aten::scatter", "aten::exp_",
                                        "aten::div", "aten::fill_"),
    "dropout masks": ("aten::bernoulli_", "aten::random_", "aten::ge"),
    "dtype casts and copies": ("aten::copy_", "aten::_to_copy"),
    "optimizer and gradient clipping": ("aten::_fused_adamw_", "aten::linalg_vector_norm", "aten::_foreach"),
}


def profile_by_kind(trainer, batches) -> tuple[dict[str, float], float]:
    """Seconds of self CPU time per kind of op over `batches`, and the wall seconds of collating them (data)."""
    from torch.profiler import ProfilerActivity, profile

    started = time.perf_counter()
    for indices in batches:
        trainer.load_batch(indices)
    data_seconds = time.perf_counter() - started
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for indices in batches:
            trainer.train_step(indices)
    kinds = {kind: 0.0 for kind in [*OP_KINDS, OTHER_OPS]}
    for event in prof.key_averages():
        kind = next((k for k, prefixes in OP_KINDS.items() if event.key.startswith(prefixes)), OTHER_OPS)
        kinds[kind] += event.self_cpu_time_total / 1e6
    return kinds, data_seconds


def settled_step(trainer, indices) -> tuple[int, float]:
    """(target tokens, wall seconds) of one training step, its numbers read back as the loop does at log steps."""
    started = time.perf_counter()
    record = trainer.train_step(indices)
    trainer.pending = [record]
    trainer.settle()
    return record["tokens"], time.perf_counter() - started


def ladder(args) -> None:
    """The bf16 path built up one part at a time, each rung timed against the one before (module docstring). The
    rungs below the whole path are made by switching its parts on an fp32-built trainer; the attention rule is a
    module function, so it is swapped around each rung's steps."""
    import translate.model.attention as attention
    from translate.model.dropout import use_packed_dropout
    from translate.training.device import make_runtime

    explicit_in_bf16, fused_always = attention.slow_fused_kernel, (lambda q: False)
    cfg, data, fp32 = build(args.model, args.overrides, "fp32")
    rungs = {"fp32": (fp32, fused_always)}
    for name, explicit, packed in (("+ bf16 autocast", False, False), ("+ explicit bf16 attention", True, False),
                                   ("+ packed dropout masks", True, True)):
        _, _, trainer = build(args.model, args.overrides, "fp32", data)
        trainer.runtime = make_runtime("cpu", "bf16")
        use_packed_dropout(trainer.model, packed)
        rungs[name] = (trainer, explicit_in_bf16 if explicit else fused_always)
    _, _, whole = build(args.model, args.overrides, "bf16", data)
    rungs["+ chunked projection loss (= train.precision=bf16)"] = (whole, explicit_in_bf16)
    batches, names = fp32.epoch_batches(0), list(rungs)
    totals = {name: [0, 0.0] for name in names}
    for step in range(2 + args.steps):
        for name in names if step % 2 == 0 else names[::-1]:
            trainer, rule = rungs[name]
            attention.slow_fused_kernel = rule
            tokens, seconds = settled_step(trainer, batches[step])
            if step >= 2:
                totals[name][0] += tokens
                totals[name][1] += seconds
    attention.slow_fused_kernel = explicit_in_bf16
    print(f"model={args.model}, {args.steps} steps each after 2 warm-up steps, rungs in alternating order")
    print("| rung | target tok/s | x fp32 | x the rung before |\n|---|--:|--:|--:|")
    before = None
    for name in names:
        rate = totals[name][0] / totals[name][1]
        print(f"| {name} | {rate:,.0f} | {rate * totals['fp32'][1] / totals['fp32'][0]:.2f}x | "
              f"{'' if before is None else f'{rate / before:.2f}x'} |")
        before = rate


def compare_precisions(args) -> None:
    """fp32 against bf16 training steps, ABBA, on the same batches (module docstring)."""
    cfg, data, fp32 = build(args.model, args.overrides, "fp32")
    _, _, bf16 = build(args.model, args.overrides, "bf16", data)
    trainers = {"fp32": fp32, "bf16": bf16}
    split = data.splits["train"]
    src_lens, tgt_lens = split.lengths()
    batches = fp32.epoch_batches(0)
    assert batches == bf16.epoch_batches(0)
    print(f"model={args.model}: {sum(p.numel() for p in fp32.model.parameters()) / 1e6:.2f}M parameters, "
          f"{len(split)} train pairs, {len(batches)} batches of train.max_tokens={cfg.train.max_tokens}")
    totals = {name: {"tokens": 0, "seconds": 0.0, "flops": 0.0, "fp32": 0.0, "bf16": 0.0} for name in trainers}
    pair_ratios, peaks = [], {"fp32": [], "bf16": []}
    warmup = 2
    for step in range(warmup + args.steps):
        peak = {"fp32": matmul_peak(4096), "bf16": max(matmul_peak(n, dtype=torch.bfloat16) for n in (2048, 4096))}
        seconds_of = {}
        for name in ("fp32", "bf16") if step % 2 == 0 else ("bf16", "fp32"):
            tokens, seconds_of[name] = settled_step(trainers[name], batches[step])
            if step >= warmup:
                total = totals[name]
                total["tokens"] += tokens
                total["seconds"] += seconds_of[name]
                total["flops"] += train_flops(cfg.model, len(data.tokenizer), [src_lens[i] for i in batches[step]],
                                              [tgt_lens[i] for i in batches[step]])
                for dtype in ("fp32", "bf16"):
                    total[dtype] += seconds_of[name] * peak[dtype]
        if step >= warmup:
            pair_ratios.append(seconds_of["fp32"] / seconds_of["bf16"])
            for dtype in peaks:
                peaks[dtype].append(peak[dtype])
    print(f"matmul peaks measured next to each step pair: fp32 {min(peaks['fp32']) / 1e9:.0f} to "
          f"{max(peaks['fp32']) / 1e9:.0f} GFLOP/s, bf16 {min(peaks['bf16']) / 1e9:.0f} to "
          f"{max(peaks['bf16']) / 1e9:.0f} GFLOP/s")
    print(f"{'':6s} {'tgt tok/s':>10s} {'GFLOP/s':>8s} {'of fp32 peak':>13s} {'of bf16 peak':>13s}")
    rates = {}
    for name, total in totals.items():
        rates[name] = total["tokens"] / total["seconds"]
        print(f"{name:6s} {rates[name]:10.0f} {total['flops'] / total['seconds'] / 1e9:8.1f} "
              f"{100 * total['flops'] / total['fp32']:12.1f}% {100 * total['flops'] / total['bf16']:12.1f}%")
    print(f"ratio bf16 / fp32 (non-pad target tokens/s): {rates['bf16'] / rates['fp32']:.2f} "
          f"(per step: {min(pair_ratios):.2f} to {max(pair_ratios):.2f}, median "
          f"{sorted(pair_ratios)[len(pair_ratios) // 2]:.2f}, over {len(pair_ratios)} steps)")
    print(f"load average after {os.getloadavg()[0]:.2f}")
    if args.profile:
        profiled = batches[warmup + args.steps: warmup + args.steps + args.profile]
        kinds = {name: profile_by_kind(trainer, profiled) for name, trainer in trainers.items()}
        print(f"profile of {args.profile} steps (self CPU seconds per kind of op, share of the profiled total):")
        print(f"{'kind':62s} {'fp32 s':>8s} {'share':>6s} {'bf16 s':>8s} {'share':>6s}")
        sums = {name: sum(k.values()) for name, (k, _) in kinds.items()}
        for kind in kinds["fp32"][0]:
            print(f"{kind:62s} " + " ".join(f"{kinds[n][0][kind]:8.3f} {100 * kinds[n][0][kind] / sums[n]:5.1f}%"
                                          for n in ("fp32", "bf16")))
        print(f"{'total (profiled)':62s} {sums['fp32']:8.3f} {'':6s} {sums['bf16']:8.3f}")
        print(f"{'data: collating the same batches (outside the profile)':62s} {kinds['fp32'][1]:8.3f} {'':6s} "
              f"{kinds['bf16'][1]:8.3f}")


def peak_rss_of_training(model: str, steps: int, overrides: list[str]) -> float:
    """GiB; in a fresh process (this script with --rss-child) that only builds and trains ours (data preparation
    included). Call it before this process grows: on Linux a child's ru_maxrss starts from its parent's RSS at the
    fork."""
    command = [sys.executable, __file__, "--rss-child", model, "--steps", str(steps), "--", *overrides]
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1]) / 2 ** 20  # ru_maxrss is in KiB on Linux


def train_for_peak_rss(model: str, steps: int, overrides: list[str]) -> None:
    """The child of peak_rss_of_training: builds and trains `steps` steps of ours, prints its peak RSS in KiB."""
    _, _, trainer = build(model, overrides)
    for indices in trainer.epoch_batches(0)[:steps]:
        trainer.train_step(indices)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def profile_ours(trainer, batches, rows: int = 25) -> None:
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for indices in batches:
            trainer.train_step(indices)
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", choices=("tutorial", "fp32"), default="tutorial",
                        help="tutorial: ours against a tutorial nn.Transformer; fp32: our bf16 step against our fp32")
    parser.add_argument("--ladder", action="store_true", help="with --against fp32: add the bf16 path's parts "
                        "one at a time")
    parser.add_argument("--model", default="small", help="conf/model/<name>.yaml")
    parser.add_argument("--steps", type=int, default=8, help="measured steps per side (after 2 warm-up steps)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument("--profile", type=int, default=0, help="also profile this many of our steps")
    parser.add_argument("--rss", nargs="*", default=[], help="model sizes whose peak RSS of training to print")
    parser.add_argument("--rss-child", metavar="MODEL", help=argparse.SUPPRESS)  # see peak_rss_of_training
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. data.train_limit=50000")
    args = parser.parse_args()
    if args.rss_child:
        train_for_peak_rss(args.rss_child, args.steps, args.overrides)
        return
    if args.threads:
        torch.set_num_threads(args.threads)
    from translate.data.batching import collate

    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, load average before "
          f"{os.getloadavg()[0]:.2f} (other processes share these cores: read the ratios)")
    if args.against == "fp32":
        if args.ladder:
            ladder(args)
        else:
            compare_precisions(args)
        return
    rss = {model: peak_rss_of_training(model, 3, args.overrides) for model in args.rss}
    cfg, data, trainer = build(args.model, args.overrides)
    tok, split = data.tokenizer, data.splits["train"]
    vocab, (src_lens, tgt_lens) = len(tok), split.lengths()
    ours_batches = trainer.epoch_batches(0)
    per_batch = round(len(split) / len(ours_batches))
    base_batches = random_batches(len(split), per_batch, cfg.seed)
    baseline = Baseline(cfg, vocab, tok.pad_id, cfg.train.label_smoothing)
    print(f"model={args.model}: {sum(p.numel() for p in trainer.model.parameters()) / 1e6:.1f}M parameters (ours), "
          f"{sum(p.numel() for p in baseline.model.parameters()) / 1e6:.1f}M (baseline, untied embeddings); "
          f"{len(split)} train pairs, {per_batch} sentences per batch on average")

    def flops(indices):
        return train_flops(cfg.model, vocab, [src_lens[i] for i in indices], [tgt_lens[i] for i in indices])

    totals = {name: {"tokens": 0, "seconds": 0.0, "flops": 0.0, "available": 0.0} for name in ("ours", "baseline")}
    peaks = []
    warmup = 2
    for step in range(warmup + args.steps):
        peak = matmul_peak()
        peaks.append(peak)
        for name in ("ours", "baseline") if step % 2 == 0 else ("baseline", "ours"):
            indices = (ours_batches if name == "ours" else base_batches)[step]
            started = time.perf_counter()
            if name == "ours":
                tokens = trainer.train_step(indices)["tokens"]
            else:
                tokens = baseline.step(collate(split.src, split.tgt, indices, tok.pad_id, tok.bos_id, tok.eos_id))
            seconds = time.perf_counter() - started
            if step >= warmup:
                total = totals[name]
                total["tokens"] += tokens
                total["seconds"] += seconds
                total["flops"] += flops(indices)
                total["available"] += seconds * peak
    # padding of a whole epoch's batches: a property of the batching, steadier than the measured few
    pads = {"ours": (padding(src_lens, ours_batches), padding(tgt_lens, ours_batches)),
            "baseline": (padding(src_lens, base_batches), padding(tgt_lens, base_batches))}
    print(f"fp32 matmul peak measured next to each step: {min(peaks) / 1e9:.1f} to {max(peaks) / 1e9:.1f} GFLOP/s")
    print(f"{'':9s} {'tgt tok/s':>10s} {'pad src':>8s} {'pad tgt':>8s} {'GFLOP/s':>8s} {'of peak':>8s}")
    rates = {}
    for name, total in totals.items():
        rates[name] = total["tokens"] / total["seconds"]
        flop_rate = total["flops"] / total["seconds"]
        print(f"{name:9s} {rates[name]:10.0f} {100 * pads[name][0]:7.1f}% {100 * pads[name][1]:7.1f}% "
              f"{flop_rate / 1e9:8.1f} {100 * total['flops'] / total['available']:7.1f}%")
    print(f"ratio ours / baseline (non-pad target tokens/s): {rates['ours'] / rates['baseline']:.2f}")
    print(f"load average after {os.getloadavg()[0]:.2f}")
    if args.profile:
        profile_ours(trainer, ours_batches[warmup + args.steps: warmup + args.steps + args.profile])
    for model, gib in rss.items():
        print(f"peak RSS of training model={model} (3 steps of ours in a fresh process, data included): {gib:.2f} GiB")


if __name__ == "__main__":
    main()
