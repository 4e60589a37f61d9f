"""Put a comparison's committed finished jobs back into its sweep folder.

Put a comparison's committed finished jobs back into its sweep folder, so that the sweep, run again in a fresh
checkout (the next session, another machine), trains only the jobs still missing.

    python -m translate.study restore docs/results/runs/claims_cpu/claims_cpu sweeps/claims_cpu

The reverse of `python -m translate.study collect`. Checkpoints are never committed, so a session's unfinished jobs are lost
with it, and its finished ones live on as small files in docs/results/runs/. Restored there, a finished job is
skipped by the rerun of its sweep ("already finished: no checkpoint is left"). A job folder already in the sweep
folder (training, or finished here) is left as it is. A missing runs folder restores nothing: the first session of
a comparison.
"""
from __future__ import annotations

import argparse
import shutil
from functools import partial
from pathlib import Path

from translate.analysis.sweep.jobs import SweepError, find_jobs
from translate.io import write_folder_whole


def restore(runs_dir: Path, sweep_dir: Path) -> list[Path]:
    """Copies each finished job under runs_dir to the same relative folder under sweep_dir, where none is yet;
    returns the folders made."""
    restored = []
    for job in find_jobs(runs_dir):
        target = sweep_dir / job.path.relative_to(runs_dir)
        if not job.finished or target.exists():
            continue
        write_folder_whole(target, partial(shutil.copytree, job.path))
        restored.append(target)
    return restored


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs_dir", type=Path, help="committed runs, e.g. docs/results/runs/claims_cpu/claims_cpu")
    parser.add_argument("sweep_dir", type=Path, help="the sweep folder they came from, e.g. sweeps/claims_cpu")


def run(args: argparse.Namespace) -> int:
    if not args.runs_dir.is_dir():
        print(f"nothing to restore: {args.runs_dir} does not exist yet")
        return 0
    try:
        restored = restore(args.runs_dir, args.sweep_dir)
    except SweepError as error:  # a runs folder with no finished job: nothing to skip
        print(f"nothing to restore: {error}")
        return 0
    print(f"restored {len(restored)} finished jobs from {args.runs_dir} into {args.sweep_dir}: a rerun of the sweep "
          f"skips them")
    return 0

