"""The step budget from a comparison's pilots; its seed-1 jobs started from their checkpoints.

Turn a comparison's pilots into the start of its runs: the step budget, and the seed-1 jobs started from the
pilots' checkpoints.

    python -m translate.study pilots sweeps/claims_cpu_pilot sweeps/claims_cpu

The pilots (seed 1 of each setting, trained until valid BLEU stopped improving: conf/sweep/*_pilot.yaml) each
recorded the step of their best valid BLEU (`best_valid_step` in metrics.json). The comparison's budget is the
largest of them: every job trains to that step and is tested there. A pilot's best.pt is its model at its own
plateau step, with optimizer, schedule, data position and random state; training is deterministic, so copied to
the same job's folder of the comparison as last.pt it continues, with `train.resume=auto`, exactly as a fresh run of
that seed would, without training its first steps again. Prints the budget and the command that runs the sweep.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from translate.analysis.sweep.jobs import SweepError
from translate.study.verdicts.pilots import plateau_steps


def seed_from_pilots(pilot_dir: Path, sweep_dir: Path) -> int:
    """Copies each pilot's best.pt to sweep_dir/<same job>/last.pt (never over a checkpoint already there) and
    returns the budget."""
    steps = plateau_steps(pilot_dir)
    budget = max(steps.values())
    for name, step in sorted(steps.items()):
        target = sweep_dir / name
        if any((target / f).exists() for f in ("last.pt", "metrics.json")):
            print(f"{name}: {target} already has a checkpoint or results; left as it is")
            continue
        if not (pilot_dir / name / "best.pt").exists():  # a pilot collected from its small files: no checkpoint
            print(f"{name}: plateau at step {step}; {pilot_dir / name} has no best.pt, so the job trains from step 0 "
                  f"(training is deterministic: the same model)")
            continue
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(pilot_dir / name / "best.pt", target / "last.pt.tmp")
        (target / "last.pt.tmp").replace(target / "last.pt")
        print(f"{name}: plateau at step {step}; starts from it ({pilot_dir / name / 'best.pt'})")
    return budget


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pilot_dir", type=Path, help="the pilots' sweep folder, e.g. sweeps/claims_cpu_pilot")
    parser.add_argument("sweep_dir", type=Path, nargs="?", help="the comparison's sweep folder, e.g. sweeps/claims_cpu")
    parser.add_argument("--budget-only", action="store_true",
                        help="print the budget only (a sweep trained like the pilots' comparison, other settings)")


def run(args: argparse.Namespace) -> int:
    if args.sweep_dir is None and not args.budget_only:
        print("error: give the comparison's sweep folder, or --budget-only", file=sys.stderr)
        return 2
    try:
        budget = (max(plateau_steps(args.pilot_dir).values()) if args.budget_only
                  else seed_from_pilots(args.pilot_dir, args.sweep_dir))
    except SweepError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps({"budget_steps": budget}))
    if args.budget_only:
        return 0
    print(f"run: make sweep SWEEP={args.sweep_dir.name} SWEEP_DIR={args.sweep_dir} "
          f"ARGS=\"train.max_steps={budget}\"")
    return 0

