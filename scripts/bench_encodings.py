"""Every positional encoding side by side: parameters, training speed against `sinusoidal`, memory, decoding speed.

    python scripts/bench_encodings.py                          # model=small, every conf/encoding/*.yaml
    python scripts/bench_encodings.py --model tiny --steps 2 sinusoidal rope t5
    python scripts/bench_encodings.py --threads 1 --overrides train.max_tokens=3000
    python scripts/bench_encodings.py sinusoidal:ablation=randomized alibi:encoding.biased_heads=4   # with options

All encodings train (Trainer.train_step: forward, label-smoothed loss, backward, clipping, AdamW) on the *same*
batches of real Tatoeba pairs, and decode (greedy, cached) the same validation sentences. Timings on a shared
machine drift with the load, so every step of an encoding is paired with a step of one `sinusoidal` model kept for
the whole run, in ABBA order on the same batch, and the ratio is taken within those pairs; the `sinusoidal` row
compares that model with a fresh copy of itself, which shows the noise. Columns:

  params       all model parameters; `enc params` those of the encoding alone
  train tok/s  target tokens per second of the timed training steps (after one warm-up step)
  x sin        step time over the paired sinusoidal step time (summed over the steps); > 1 is slower
  peak MiB     largest RSS growth during one timed training step, over the RSS just before it (weights, gradients
               and optimizer state already exist then: this is activations and temporaries). Measured with the
               kernel's high-water mark (VmHWM, reset through /proc/self/clear_refs after gc and malloc_trim).
  dec sent/s   greedy decoding (cached) of --decode-sentences validation sentences, batches of 32; `dec x sin` the
               paired time ratio. The models are untrained, so outputs mostly run to the length limit (`out len`,
               the mean output length, shows it): all encodings decode the same number of steps.
"""
from __future__ import annotations

import argparse
import copy
import ctypes
import gc
import os
import tempfile
import time
from pathlib import Path

import torch

from translate.assembly.settings import data_settings, validate_config
from translate.assembly.compose import compose

ROOT = Path(__file__).resolve().parents[1]


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
def make_trainer(name: str, args, data, run_dir: str):
    from translate.training.device import make_runtime
    from translate.assembly.trainer import build_trainer

    encoding, *own = name.split(":")   # "alibi:encoding.biased_heads=4": an encoding with overrides of its own
    cfg = compose(f"model={args.model}", f"encoding={encoding}", "train.device=cpu", "train.precision=fp32",
                  *args.overrides, *own)
    return build_trainer(validate_config(cfg), data, make_runtime("cpu", "fp32"), Path(run_dir))


def timed_step(trainer, indices: list[int]) -> tuple[float, int, float]:
    """(seconds, target tokens, peak RSS growth in MiB or nan) of one training step."""
    release_free_memory()
    peak_ok = reset_peak()
    baseline = rss_kib()
    started = time.perf_counter()
    tokens = trainer.train_step(indices)["tokens"]
    seconds = time.perf_counter() - started
    return seconds, tokens, (rss_kib("VmHWM") - baseline) / 1024 if peak_ok else float("nan")


def timed_decode(trainer, src: torch.Tensor) -> tuple[float, int]:
    from translate.decoding.search import greedy_search
    from translate.decoding.settings import DecodeSettings, SpecialIds

    tok = trainer.tokenizer
    trainer.model.eval()
    started = time.perf_counter()
    out = greedy_search(trainer.model, src, specials=SpecialIds.of(tok), settings=DecodeSettings(), use_cache=True)
    return time.perf_counter() - started, sum(map(len, out))


def in_abba_order(i: int, a, b) -> list:
    """Pair i runs a then b when i is even, b then a when odd, so that a steady drift cancels."""
    return [a, b] if i % 2 == 0 else [b, a]


def snapshot(trainer) -> dict:
    return copy.deepcopy({"model": trainer.model.state_dict(), "optimizer": trainer.optimizer.state_dict(),
                          "scheduler": trainer.scheduler.state_dict()})


def restore(trainer, state: dict) -> None:
    """Back to the snapshot: trained on, the reference would learn to stop early and decode faster and faster."""
    trainer.model.load_state_dict(state["model"])
    trainer.optimizer.load_state_dict(state["optimizer"])
    trainer.scheduler.load_state_dict(state["scheduler"])


def measure(name: str, reference, reference_state: dict, args, data, batches, sentences) -> dict:
    """Time `name` against the reference trainer, pair by pair, on the same batches and sentences."""
    restore(reference, reference_state)
    with tempfile.TemporaryDirectory(prefix="bench_encodings_") as run_dir:
        trainer = make_trainer(name, args, data, run_dir)
        trainer.train_step(batches[0])  # warm-up: allocates the optimizer state
        seconds = {"train": [0.0, 0.0], "decode": [0.0, 0.0]}  # [this encoding, reference]
        tokens, peak, out_tokens = 0, 0.0, 0
        for i, indices in enumerate(batches[1:]):
            for side, who in in_abba_order(i, (0, trainer), (1, reference)):
                step_seconds, step_tokens, step_peak = timed_step(who, indices)
                seconds["train"][side] += step_seconds
                if side == 0:
                    tokens, peak = tokens + step_tokens, max(peak, step_peak)
        for i, src in enumerate(sentences):
            for side, who in in_abba_order(i, (0, trainer), (1, reference)):
                decode_seconds, decoded = timed_decode(who, src)
                seconds["decode"][side] += decode_seconds
                out_tokens += decoded if side == 0 else 0
        result = {"params": sum(p.numel() for p in trainer.model.parameters()),
                  "enc_params": sum(p.numel() for p in trainer.model.encoding.parameters()),
                  "train_seconds": seconds["train"][0], "train_ratio": seconds["train"][0] / seconds["train"][1],
                  "tokens": tokens, "peak_mib": peak, "decode_seconds": seconds["decode"][0],
                  "decode_ratio": seconds["decode"][0] / seconds["decode"][1],
                  "out_len": out_tokens / sum(len(s) for s in sentences)}
        del trainer
    release_free_memory()
    return result


def decode_batches(data, count: int, size: int = 32) -> list[torch.Tensor]:
    """The first `count` validation sources, by length, as padded (B, T) id tensors with eos."""
    from translate.data.batching import collate

    split, tok = data.splits["valid"], data.tokenizer
    order = sorted(range(min(count, len(split))), key=lambda i: len(split.src[i]))
    return [collate(split.src, split.tgt, order[i: i + size], tok.pad_id, tok.bos_id, tok.eos_id).src
            for i in range(0, len(order), size)]


def print_table(names: list[str], results: dict, sentences: int) -> None:
    header = (f"{'encoding':<18} {'params':>9} {'enc params':>10} {'train tok/s':>11} {'x sin':>6} "
              f"{'peak MiB':>8} {'dec sent/s':>10} {'dec x sin':>9} {'out len':>7}")
    print(header + "\n" + "-" * len(header))
    for name in names:
        r = results[name]
        flag = "  > 1.5" if r["train_ratio"] > 1.5 else ""
        print(f"{name:<18} {r['params'] / 1e6:>8.2f}M {r['enc_params']:>10,} {r['tokens'] / r['train_seconds']:>11.0f} "
              f"{r['train_ratio']:>6.2f} {r['peak_mib']:>8.1f} {sentences / r['decode_seconds']:>10.1f} "
              f"{r['decode_ratio']:>9.2f} {r['out_len']:>7.1f}{flag}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("encodings", nargs="*", help="conf/encoding names (default: every file there), each with "
                        "overrides of its own after colons, e.g. sinusoidal:ablation=randomized")
    parser.add_argument("--model", default="small", help="conf/model/<name>.yaml (default: small)")
    parser.add_argument("--steps", type=int, default=3, help="timed training steps per encoding (each paired)")
    parser.add_argument("--decode-sentences", type=int, default=64, help="validation sentences decoded")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument("--overrides", nargs="*", default=[], help="Hydra overrides, e.g. train.max_tokens=3000")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    available = sorted(p.stem for p in (ROOT / "conf" / "encoding").glob("*.yaml"))
    names = args.encodings or available
    unknown = sorted({name.split(":")[0] for name in names} - set(available))
    if unknown:
        raise SystemExit(f"unknown encodings {unknown}; allowed: {available}")

    from translate.data.batching import make_batches
    from translate.data.pipeline import prepare_data

    cfg = compose(f"model={args.model}", *args.overrides)
    data = prepare_data(data_settings(cfg))
    src_lens, tgt_lens = data.splits["train"].lengths()
    batches = make_batches(src_lens, tgt_lens, cfg.train.max_tokens, seed=cfg.seed)[: args.steps + 1]
    sentences = decode_batches(data, args.decode_sentences)
    n_sentences = sum(len(s) for s in sentences)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, load average {os.getloadavg()[0]:.2f}; "
          f"model={args.model}; {args.steps} timed steps per encoding, each paired with a sinusoidal step; batches "
          f"of {sum(len(b) for b in batches[1:]) / args.steps:.0f} sentences (train.max_tokens={cfg.train.max_tokens})"
          f", {sum(tgt_lens[i] for b in batches[1:] for i in b)} target tokens; {n_sentences} sentences decoded")
    with tempfile.TemporaryDirectory(prefix="bench_encodings_") as run_dir:
        reference = make_trainer("sinusoidal", args, data, run_dir)  # every ratio's denominator
        reference.train_step(batches[0])
        reference_state = snapshot(reference)
        results = {}
        for name in names:
            results[name] = measure(name, reference, reference_state, args, data, batches, sentences)
            print(f"  {name}: {results[name]['train_ratio']:.2f} x sinusoidal step time", flush=True)
    print(f"load average after {os.getloadavg()[0]:.2f}\n")
    print_table(names, results, n_sentences)


if __name__ == "__main__":
    main()
