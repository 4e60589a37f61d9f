"""Every positional encoding side by side: parameters, training speed against `sinusoidal`, memory, decoding speed.

    python scripts/bench_encodings.py                          # model=small, every conf/encoding/*.yaml
    python scripts/bench_encodings.py --model tiny --steps 2 --rounds 1 sinusoidal rope t5
    python scripts/bench_encodings.py --overrides data.train_limit=20000

All encodings train (Trainer.train_step: forward, label-smoothed loss, backward, clipping, AdamW) on the *same*
batches of real Tatoeba pairs, and decode (greedy, cached) the same validation sentences. Timings on a shared
machine are noisy, so each round runs every encoding once, in turn, and an encoding's time is its best round; the
ratio to `sinusoidal` is taken within this run. Columns:

  params       all model parameters; `enc params` those of the encoding alone
  train tok/s  target tokens per second of training steps (after one warm-up step)
  x sin        step time relative to sinusoidal (sinusoidal tokens/s / this one's); > 1 is slower
  peak MiB     peak RSS growth during the timed training steps, over the RSS after the warm-up step (so weights,
               gradients and optimizer state are excluded: activations and temporaries). Measured with the kernel's
               high-water mark (VmHWM, reset through /proc/self/clear_refs after malloc_trim), first round only.
  dec sent/s   greedy decoding (cached) of --decode-sentences validation sentences, batches of 32; the models are
               untrained, so outputs mostly run to the length limit (`out len`, the mean output length, shows it)
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def compose(*overrides: str):
    from hydra import compose as hydra_compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        return hydra_compose(config_name="config", overrides=list(overrides))


# -- memory: the kernel's high-water mark of this process ------------------------------------------------------------
def release_free_memory() -> None:
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)  # hand freed heap back, so the next baseline is a real one
    except OSError:
        pass


def rss_kib(field: str = "VmRSS") -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def reset_peak() -> bool:
    """Set VmHWM to the current RSS (Linux >= 4.0); False where the kernel does not allow it."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


# -- one encoding ---------------------------------------------------------------------------------------------------
def measure(name: str, args, data, batches, sentences, measure_memory: bool) -> dict:
    from translate.decoding.search import greedy_search
    from translate.training.device import make_runtime
    from translate.training.trainer import Trainer

    cfg = compose(f"model={args.model}", f"encoding={name}", "train.device=cpu", "train.precision=fp32",
                  *args.overrides)
    with tempfile.TemporaryDirectory(prefix="bench_encodings_") as run_dir:
        trainer = Trainer(cfg, data, make_runtime("cpu", "fp32"), Path(run_dir))
        model, tok = trainer.model, data.tokenizer
        trainer.train_step(batches[0])  # warm-up: allocates the optimizer state
        release_free_memory()
        peak_ok = measure_memory and reset_peak()
        baseline = rss_kib()
        tokens, started = 0, time.perf_counter()
        for indices in batches[1:]:
            tokens += trainer.train_step(indices)["tokens"]
        train_seconds = time.perf_counter() - started
        peak_mib = (rss_kib("VmHWM") - baseline) / 1024 if peak_ok else float("nan")
        model.eval()
        started, out_tokens = time.perf_counter(), 0
        for src in sentences:
            out = greedy_search(model, src, tok.bos_id, tok.eos_id, tok.pad_id, use_cache=True)
            out_tokens += sum(map(len, out))
        decode_seconds = time.perf_counter() - started
        result = {"params": sum(p.numel() for p in model.parameters()),
                  "enc_params": sum(p.numel() for p in model.encoding.parameters()),
                  "train_seconds": train_seconds, "tokens": tokens, "peak_mib": peak_mib,
                  "decode_seconds": decode_seconds, "out_len": out_tokens / sum(len(s) for s in sentences)}
        del trainer, model
    release_free_memory()
    return result


def decode_batches(data, count: int, size: int = 32) -> list[torch.Tensor]:
    """The first `count` validation sources, by length, as padded (B, T) id tensors with eos."""
    from translate.data.batching import collate

    split, tok = data.splits["valid"], data.tokenizer
    order = sorted(range(min(count, len(split))), key=lambda i: len(split.src[i]))
    return [collate(split.src, split.tgt, order[i: i + size], tok.pad_id, tok.bos_id, tok.eos_id).src
            for i in range(0, len(order), size)]


def print_table(names: list[str], best: dict, sentences: int) -> None:
    reference = best.get("sinusoidal")
    header = (f"{'encoding':<18} {'params':>9} {'enc params':>10} {'train tok/s':>11} {'x sin':>6} "
              f"{'peak MiB':>8} {'dec sent/s':>10} {'out len':>7}")
    print(header + "\n" + "-" * len(header))
    for name in names:
        r = best[name]
        speed = r["tokens"] / r["train_seconds"]
        ratio = reference["tokens"] / reference["train_seconds"] / speed if reference else float("nan")
        flag = " !" if ratio > 1.5 else ""
        print(f"{name:<18} {r['params'] / 1e6:>8.2f}M {r['enc_params']:>10,} {speed:>11.0f} {ratio:>6.2f} "
              f"{r['peak_mib']:>8.1f} {sentences / r['decode_seconds']:>10.1f} {r['out_len']:>7.1f}{flag}")
    if reference is None:
        print("(sinusoidal was not measured: no ratios)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("encodings", nargs="*", help="conf/encoding names (default: every file there)")
    parser.add_argument("--model", default="small", help="conf/model/<name>.yaml (default: small)")
    parser.add_argument("--steps", type=int, default=3, help="timed training steps per encoding and round")
    parser.add_argument("--rounds", type=int, default=2, help="rounds over all encodings; the best one counts")
    parser.add_argument("--decode-sentences", type=int, default=64, help="validation sentences decoded")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument("--overrides", nargs="*", default=[], help="Hydra overrides, e.g. train.max_tokens=3000")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    available = sorted(p.stem for p in (ROOT / "conf" / "encoding").glob("*.yaml"))
    names = args.encodings or available
    unknown = sorted(set(names) - set(available))
    if unknown:
        raise SystemExit(f"unknown encodings {unknown}; allowed: {available}")
    if "sinusoidal" not in names:
        names = ["sinusoidal", *names]  # the reference of every ratio

    from translate.data.batching import make_batches
    from translate.data.pipeline import prepare_data

    cfg = compose(f"model={args.model}", *args.overrides)
    data = prepare_data(cfg.data)
    src_lens, tgt_lens = data.splits["train"].lengths()
    batches = make_batches(src_lens, tgt_lens, cfg.train.max_tokens, seed=cfg.seed)[: args.steps + 1]
    sentences = decode_batches(data, args.decode_sentences)
    n_sentences = sum(len(s) for s in sentences)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, load average {os.getloadavg()[0]:.2f}; "
          f"model={args.model}; {args.steps} timed steps x {args.rounds} rounds, batches of "
          f"{sum(len(b) for b in batches[1:]) / args.steps:.0f} sentences (train.max_tokens={cfg.train.max_tokens}),"
          f" {sum(tgt_lens[i] for b in batches[1:] for i in b)} target tokens per round")
    results: dict[str, list[dict]] = {name: [] for name in names}
    for round_ in range(args.rounds):
        for name in names:
            result = measure(name, args, data, batches, sentences, measure_memory=round_ == 0)
            results[name].append(result)
            print(f"  round {round_ + 1} {name}: {result['train_seconds']:.2f} s training, "
                  f"{result['decode_seconds']:.2f} s decoding", flush=True)
    best = {name: {**runs[0], "train_seconds": min(r["train_seconds"] for r in runs),
                   "decode_seconds": min(r["decode_seconds"] for r in runs)} for name, runs in results.items()}
    print(f"load average after {os.getloadavg()[0]:.2f}\n")
    print_table(names, best, n_sentences)


if __name__ == "__main__":
    main()
