"""Quality per minute: train the default config for a fixed time budget, print test BLEU.

    python scripts/bench_quality.py 20                       # Tatoeba, 20 minutes (the README figure)
    python scripts/bench_quality.py 60 data=multi30k         # Multi30K, 60 minutes
    python scripts/bench_quality.py 1 --run-dir /tmp/q1      # a smoke check

The budget is train.max_minutes: training steps plus validation, as `make train` counts it (set-up and the final
test decoding come on top). Changes to speed or schedule are judged by the BLEU they reach in the same budget.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("minutes", type=float, help="train.max_minutes")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. data=multi30k model=base")
    parser.add_argument("--run-dir", help="run folder (default: a new temporary folder)")
    args = parser.parse_args()
    if args.minutes <= 0:
        parser.error(f"minutes={args.minutes} is not allowed: expected a number of minutes > 0")

    from translate.assembly.compose import compose
    from translate.cli.train import run

    cfg = compose(f"train.max_minutes={args.minutes}", *args.overrides)
    run_dir = Path(args.run_dir or tempfile.mkdtemp(prefix="bench_quality_"))
    print(f"load average before {os.getloadavg()[0]:.2f}; run folder {run_dir}", flush=True)
    started = time.perf_counter()
    metrics = run(cfg, run_dir)
    wall = (time.perf_counter() - started) / 60
    print(json.dumps({key: metrics[key] for key in ("corpus", "model", "encoding", "steps", "train_minutes",
                                                     "target_tokens_per_s", "bleu", "chrf", "sentences")}))
    print(f"{metrics['corpus']} model={metrics['model']} budget {args.minutes:g} min: test BLEU {metrics['bleu']:.2f}, "
          f"chrF {metrics['chrf']:.2f} after {metrics['steps']} steps ({metrics['target_tokens_per_s']:.0f} target "
          f"tokens/s; {wall:.1f} min wall clock in all; load average after {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
