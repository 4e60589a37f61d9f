"""How many small training jobs should share one GPU: aggregate target tokens/s of N copies of scripts/bench_gpu.py's
training step (eager, one encoding, the CPU runs' batch size, one host thread each as in a GPU sweep) started at
once, for each N given. A model=small job with 2,500-token batches leaves most of a large GPU idle, so the sweep
pieces run several at a time; this says how many. Writes bench_gpu_concurrency.json and .md to --out.

    python scripts/bench_gpu_concurrency.py --jobs 1 4 8 16 --out bench_concurrency
    python scripts/bench_gpu_concurrency.py --quick --jobs 1 2      # anywhere: model=tiny, only shows it runs
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_together(n: int, args: argparse.Namespace, out: Path) -> dict:
    """Starts n bench processes at once and sums their target tokens/s (each timed over its own, overlapping steps)."""
    folders = [out / f"jobs{n}" / f"job{i}" for i in range(n)]
    command = [sys.executable, str(ROOT / "scripts" / "bench_gpu.py"), "--model", args.model, "--encodings",
               args.encoding, "--batch-tokens", str(args.batch_tokens), "--compile", "off", "--sentences", "0",
               "--warmup", str(args.warmup), "--steps", str(args.steps), "--threads", "1", "--barrier", str(out / f"jobs{n}" / "ready"),
               "--barrier-jobs", str(n)] + (["--quick"] if args.quick else [])
    started = time.perf_counter()
    processes = [subprocess.Popen(command + ["--out", str(folder)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True) for folder in folders]
    failures = [p.communicate()[1][-2000:] for p in processes if p.wait() != 0]
    if failures:
        raise SystemExit(f"{len(failures)} of {n} jobs failed; the first said:\n{failures[0]}")
    rows = [json.loads((folder / "bench_gpu.json").read_text())["train"][0] for folder in folders]
    # The jobs start timing together (--barrier) but end apart: the total is every job's tokens over the wall window
    # from the first start to the last end, which never counts a job's speed while the others were already done.
    window = max(r["timed_to"] for r in rows) - min(r["timed_from"] for r in rows)
    total = sum(r["target_tokens"] for r in rows) / window
    return {"jobs": n, "total_target_tokens_per_s": total, "per_job_target_tokens_per_s": total / n,
            "sum_of_job_rates": sum(r["target_tokens_per_s"] for r in rows), "timed_window_seconds": window,
            "mean_step_ms": sum(r["step_ms"] for r in rows) / n, "wall_seconds": time.perf_counter() - started}


def markdown(rows: list[dict], args: argparse.Namespace, device: str) -> str:
    one = rows[0]["total_target_tokens_per_s"] if rows[0]["jobs"] == 1 else None
    lines = [f"Device: **{device}**; model={args.model}, {args.encoding}, {args.batch_tokens}-token batches, eager, "
             f"bf16; {args.steps} timed steps per job after {args.warmup} warm-up steps, all jobs started at once.", "",
             "| jobs | total target tok/s | per job | mean step ms | × one job |", "|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['total_target_tokens_per_s'] / one:.2f}" if one else "-"
        lines.append(f"| {r['jobs']} | {r['total_target_tokens_per_s']:,.0f} | {r['per_job_target_tokens_per_s']:,.0f} | "
                     f"{r['mean_step_ms']:.1f} | {ratio} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 4, 8, 16])
    parser.add_argument("--model", default="small")
    parser.add_argument("--encoding", default="sinusoidal")
    parser.add_argument("--batch-tokens", type=int, default=2500)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--out", default="bench_gpu_concurrency")
    parser.add_argument("--quick", action="store_true", help="bench_gpu.py --quick: model=tiny (a CPU test)")
    args = parser.parse_args()
    import torch

    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "CPU"
    out = Path(args.out)
    rows = []
    for n in args.jobs:
        rows.append(run_together(n, args, out))
        print(json.dumps(rows[-1]), flush=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_gpu_concurrency.json").write_text(json.dumps({"device": device, "torch": torch.__version__,
                                                                "rows": rows}, indent=1))
    (out / "bench_gpu_concurrency.md").write_text(markdown(rows, args, device))
    print(markdown(rows, args, device))


if __name__ == "__main__":
    main()
