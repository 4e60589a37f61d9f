"""GPU training and decoding throughput: target tokens/s, MFU and peak memory of our training step for
model=base at three batch sizes x compile off / on x {sinusoidal, rope, t5, shaw}, then greedy and beam-4 decoding
sentences/s on 8,000 sentences. Writes bench_gpu.json and bench_gpu.md (a table naming the device) to --out.

    python scripts/bench_gpu.py                       # on a GPU: bf16, model=base, 16k / 32k / 64k tokens
    python scripts/bench_gpu.py --quick               # anywhere, in a few minutes: model=tiny, small batches

MFU: useful FLOPs (translate/model/flops.py: non-pad matmul work, x3 for forward and backward) per second over
the peak of a large matmul in the step's dtype (bf16 on CUDA) measured in the same run. --quick on a CPU compiles with
the `eager` backend (dynamo only; inductor takes ~45 s a graph on 2 cores) and its figures only show that it runs.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import tempfile
import time
from pathlib import Path

import torch

from translate.assembly.settings import data_settings, validate_config
from translate.assembly.compose import compose
from translate.model.flops import train_flops

ENCODINGS = ("sinusoidal", "rope", "t5", "shaw")


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def matmul_peak(device: torch.device, dtype: torch.dtype, n: int, repeats: int = 5) -> float:
    """Best FLOP/s of an n x n x n matmul in `dtype` on `device`."""
    a, b = torch.randn(n, n, device=device, dtype=dtype), torch.randn(n, n, device=device, dtype=dtype)
    a @ b
    sync(device)
    best = 0.0
    for _ in range(repeats):
        started = time.perf_counter()
        a @ b
        sync(device)
        best = max(best, 2 * n ** 3 / (time.perf_counter() - started))
    return best


def peak_memory_gib(device: torch.device) -> float:
    """Peak GPU memory allocated since the last reset; on CPU the process's peak RSS (it only grows)."""
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2 ** 30
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20


def bench_training(data, args, device, precision, encoding: str, max_tokens: int, compile_on: bool, peak: float):
    from translate.training.device import make_runtime
    from translate.assembly.trainer import build_trainer

    cfg = compose(*args.overrides_for_model, f"encoding={encoding}", f"train.max_tokens={max_tokens}",
                  f"train.max_sentences={max_tokens}", f"train.compile={str(compile_on).lower()}",
                  f"train.compile_backend={args.backend}", f"train.device={device.type}",
                  f"train.precision={precision}")
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    torch._dynamo.reset()
    trainer = build_trainer(validate_config(cfg), data, make_runtime(device.type, precision),
                            Path(tempfile.mkdtemp(prefix="bench_gpu_")))
    batches = trainer.epoch_batches(0)
    warmup, steps = batches[: args.warmup], batches[args.warmup: args.warmup + args.steps]
    started = time.perf_counter()
    for indices in warmup:  # compiles every shape these batches take
        trainer.train_step(indices)
    sync(device)
    warmup_seconds = time.perf_counter() - started
    if args.barrier:
        wait_for_the_others(Path(args.barrier), args.barrier_jobs, f"{encoding}_{max_tokens}_{compile_on}")
    src_lens, tgt_lens = trainer.train_lens
    tokens, flops = 0, 0.0
    timed_from = time.time()
    started = time.perf_counter()
    for i, indices in enumerate(steps):
        trainer.train_step(indices)
        if i + 1 < len(steps):
            trainer.prefetch(steps[i + 1])
        tokens += sum(tgt_lens[j] for j in indices)
        flops += train_flops(cfg.model, len(data.tokenizer), [src_lens[j] for j in indices],
                             [tgt_lens[j] for j in indices])
    sync(device)
    seconds = time.perf_counter() - started
    if args.profile:
        profile_steps(trainer, batches[args.warmup + args.steps: args.warmup + args.steps + args.profile],
                      Path(args.out) / f"profile_{encoding}_{max_tokens}_{'compiled' if compile_on else 'eager'}.txt")
    row = {"encoding": encoding, "max_tokens": max_tokens, "compile": compile_on, "steps": len(steps),
           "target_tokens": tokens, "timed_from": timed_from, "timed_to": timed_from + seconds,
           "step_ms": 1000 * seconds / max(len(steps), 1), "target_tokens_per_s": tokens / seconds,
           "tflops": flops / seconds / 1e12, "mfu": flops / seconds / peak, "peak_memory_gib": peak_memory_gib(device),
           "warmup_seconds": warmup_seconds,
           "graphs": trainer.compiled.graphs if trainer.compiled else 0,
           "compile_failed": bool(trainer.compiled and trainer.compiled.failed)}
    model = trainer.model
    del trainer
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return row, model


def wait_for_the_others(folder: Path, jobs: int, setting: str, patience_s: float = 600) -> None:
    """Start line of --barrier: jobs sharing a GPU time their steps over the same wall-clock window, not one after
    another while the others still import torch or warm up. Each job marks itself ready, then waits for all."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{setting}.{os.getpid()}").touch()
    deadline = time.monotonic() + patience_s
    while len(list(folder.glob(f"{setting}.*"))) < jobs:
        if time.monotonic() > deadline:
            raise SystemExit(f"--barrier {folder}: {jobs} jobs expected, {len(list(folder.glob(setting + '.*')))} "
                             f"ready after {patience_s:.0f} s")
        time.sleep(0.02)


def profile_steps(trainer, batches, out: Path, rows: int = 30) -> None:
    """torch.profiler over a few training steps after the timed ones: the ops that take the device's (or, on CPU,
    the host's) time, summarised as a table for docs/speed.md."""
    from torch.profiler import ProfilerActivity, profile

    cuda = torch.cuda.is_available()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities) as prof:
        for indices in batches:
            trainer.train_step(indices)
        if cuda:
            torch.cuda.synchronize()
    out.parent.mkdir(parents=True, exist_ok=True)
    sort = "cuda_time_total" if cuda else "cpu_time_total"
    out.write_text(f"{len(batches)} steps profiled, sorted by {sort}\n"
                   + prof.key_averages().table(sort_by=sort, row_limit=rows, max_name_column_width=60))


def bench_decoding(model, data, args, device, precision) -> list[dict]:
    """Greedy and beam-4 sentences/s, once per --decode-batch-tokens (default: each search's configured batch)."""
    from dataclasses import replace

    from translate.assembly.settings import typed
    from translate.decoding.settings import DecodeSettings

    sources = (data.splits["test"].src + data.splits["valid"].src + data.splits["train"].src)[: args.sentences]
    model.eval()
    rows = []
    for name, beam in (("greedy", 1), ("beam4", 4)):
        settings = typed(compose(f"decode={'greedy' if beam == 1 else 'beam'}"), "decode", DecodeSettings)
        for batch_tokens in args.decode_batch_tokens or [settings.batch_tokens]:
            rows.append(decode_all(model, sources, data.tokenizer, device, precision, name,
                                   replace(settings, beam_size=beam, batch_tokens=batch_tokens)))
    return rows


def decode_all(model, sources, tok, device, precision, name: str, settings) -> dict:
    """Sentences/s of decoding every source, in length-sorted batches of settings.batch_tokens source tokens."""
    from translate.data.batching import pad_rows
    from translate.decoding.search import search
    from translate.decoding.settings import SpecialIds
    from translate.decoding.translator import length_batches

    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=precision == "bf16")
    specials = SpecialIds.of(tok)
    out_tokens, started = 0, time.perf_counter()
    with torch.no_grad(), autocast:
        for batch in length_batches([len(s) + 1 for s in sources], settings.batch_tokens):
            src = pad_rows([sources[i] for i in batch], tok.pad_id, last=tok.eos_id).to(device)
            out = search(model, src, specials=specials, settings=settings)
            out_tokens += sum(len(h) for h in out)
    sync(device)
    seconds = time.perf_counter() - started
    return {"search": name, "batch_tokens": settings.batch_tokens, "sentences": len(sources),
            "sentences_per_s": len(sources) / seconds, "mean_output_tokens": out_tokens / len(sources)}


def markdown(results: dict) -> str:
    lines = [f"Device: **{results['device']}**, torch {results['torch']}, {results['precision']}, "
             f"{results['model']}, compile backend {results['backend']}; matmul peak "
             f"{results['matmul_peak_tflops']:.1f} TFLOP/s ({results['peak_dtype']}, {results['peak_n']}³).", "",
             "| encoding | batch tokens | compile | step ms | target tok/s | TFLOP/s | MFU | peak mem GiB | graphs | "
             "× sinusoidal step |", "|---|---|---|---|---|---|---|---|---|---|"]
    base = {(r["max_tokens"], r["compile"]): r["step_ms"] for r in results["train"] if r["encoding"] == "sinusoidal"}
    for r in results["train"]:
        ratio = r["step_ms"] / base[(r["max_tokens"], r["compile"])] if (r["max_tokens"], r["compile"]) in base else 0
        compiled = ("on (failed: eager)" if r["compile_failed"] else "on") if r["compile"] else "off"
        lines.append(f"| {r['encoding']} | {r['max_tokens']} | {compiled} | {r['step_ms']:.1f} | "
                     f"{r['target_tokens_per_s']:,.0f} | {r['tflops']:.2f} | {100 * r['mfu']:.1f}% | "
                     f"{r['peak_memory_gib']:.2f} | {r['graphs']} | {ratio:.2f} |")
    lines += ["", f"Decoding with {results.get('decode_checkpoint', 'the first benched model (a few training steps)')}:",
              "", "| decoding | batch source tokens | sentences | sentences/s | mean output tokens |",
              "|---|---|---|---|---|"]
    for r in results["decode"]:
        lines.append(f"| {r['search']} | {r['batch_tokens']} | {r['sentences']} | {r['sentences_per_s']:,.1f} | "
                     f"{r['mean_output_tokens']:.1f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="model=tiny, small batches, few steps (CPU test)")
    parser.add_argument("--model", default="base")
    parser.add_argument("--batch-tokens", type=int, nargs="+", default=[16000, 32000, 64000])
    parser.add_argument("--compile", choices=("off", "on", "both"), default="both",
                        help="time eager, compiled or both (a piece of the bench that fits one GPU command)")
    parser.add_argument("--encodings", nargs="*", default=list(ENCODINGS), help="none: decoding only (--checkpoint)")
    parser.add_argument("--warmup", type=int, default=10, help="steps before timing (compiling included)")
    parser.add_argument("--steps", type=int, default=30, help="timed steps per setting")
    parser.add_argument("--sentences", type=int, default=8000, help="sentences decoded (0: no decoding)")
    parser.add_argument("--decode-batch-tokens", type=int, nargs="+",
                        help="source tokens per decoding batch, one row each (default: decode=greedy's and beam's)")
    parser.add_argument("--backend", default="inductor", help="train.compile_backend")
    parser.add_argument("--threads", type=int, default=0, help="torch host threads (0: torch's default on a GPU, 1 on CPU)")
    parser.add_argument("--checkpoint", help="decode with this trained model (outputs of real lengths) instead of "
                        "the first benched one, which has trained a few steps; its data settings must be the bench's")
    parser.add_argument("--profile", type=int, default=0,
                        help="also profile this many steps after the timed ones of each setting (profile_*.txt)")
    parser.add_argument("--barrier", help="folder where jobs started together wait for each other before timing")
    parser.add_argument("--barrier-jobs", type=int, default=1, help="how many jobs share --barrier")
    parser.add_argument("--out", default="bench_gpu", help="folder for bench_gpu.json and bench_gpu.md")
    args = parser.parse_args()
    from translate.training.device import pick_device

    device = pick_device("cuda" if torch.cuda.is_available() else "cpu")
    precision = "bf16" if device.type == "cuda" else "fp32"
    args.overrides_for_model = [f"model={args.model}"]
    if args.quick:
        args.model, args.batch_tokens, args.warmup, args.steps, args.sentences = "tiny", [300, 1200], 1, 2, 40
        args.overrides_for_model = ["+debug=tiny", "data.test_limit=40"]  # conf/debug/tiny.yaml
        if device.type == "cpu":
            args.backend = "eager"
    if device.type == "cpu" or args.threads:
        torch.set_num_threads(args.threads or 1)  # many jobs on one GPU: one host thread each, as in a GPU sweep
    from translate.data.pipeline import prepare_data

    data = prepare_data(data_settings(compose(*args.overrides_for_model)))
    peak_dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    peak_n = 8192 if device.type == "cuda" else 1024
    peak = matmul_peak(device, peak_dtype, peak_n)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU ({platform.processor() or 'cpu'}, " \
        f"{torch.get_num_threads()} thread)"
    print(f"{name}: {peak_dtype} matmul peak {peak / 1e12:.2f} TFLOP/s", flush=True)
    results = {"device": name, "torch": torch.__version__, "precision": precision, "model": f"model={args.model}",
               "backend": args.backend, "peak_dtype": str(peak_dtype).replace("torch.", ""), "peak_n": peak_n,
               "matmul_peak_tflops": peak / 1e12, "train": [], "decode": []}
    decode_model = None
    for encoding in args.encodings:
        for max_tokens in args.batch_tokens:
            for compile_on in {"off": (False,), "on": (True,), "both": (False, True)}[args.compile]:
                row, model = bench_training(data, args, device, precision, encoding, max_tokens, compile_on, peak)
                results["train"].append(row)
                print(json.dumps(row), flush=True)
                if encoding == args.encodings[0] and decode_model is None:
                    decode_model = model
    if args.sentences:
        if args.checkpoint:
            from translate.assembly.trained import load_model

            loaded = load_model(args.checkpoint, device)
            if loaded.tokenizer.model_proto != data.tokenizer.model_proto:
                raise SystemExit(f"--checkpoint {args.checkpoint}: its SentencePiece model is not the one of the "
                                 f"bench's data ({args.overrides_for_model}); give the overrides it was trained with")
            decode_model = loaded.model
            results["decode_checkpoint"] = f"{args.checkpoint} (step {loaded.step})"
        if decode_model is None:
            raise SystemExit("nothing to decode with: give --encodings or --checkpoint")
        results["decode"] = bench_decoding(decode_model, data, args, device, precision)
    print(json.dumps(results["decode"]), flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_gpu.json").write_text(json.dumps(results, indent=1))
    (out / "bench_gpu.md").write_text(markdown(results))
    print(markdown(results))
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
