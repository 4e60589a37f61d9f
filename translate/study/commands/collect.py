"""Copy a sweep's finished jobs without their checkpoints, to commit.

Copy a sweep's finished jobs without their checkpoints: everything the sweep report and the results page read
(config.yaml, metrics.json, the hypotheses, the attention maps) and the train log. The TensorBoard log is cut down to
the two cross-attention pictures the results page shows (the last of each; --whole-tb keeps the whole log).

    python -m translate.study collect sweeps/seed_repro_cpu docs/results/runs/seed_repro_cpu
    bash scripts/gpu_piece.sh seed_repro 3/42     # on a lent GPU machine: a piece, collected and packed in one archive

Collecting several pieces of one sweep (e.g. short GPU sessions, each running some of its jobs) into the same
destination adds them up: a job folder already there is replaced by the newer copy, and left as it is when it holds
the same finished job (an equal metrics.json). Unfinished jobs (no metrics.json)
are left out and named.
"""
from __future__ import annotations

import argparse
import fnmatch
import shutil
import sys
from pathlib import Path

from translate.analysis.sweep.logged_attention_images import (cross_attention_images, pick_examples,
                                                       write_attention_images)
from translate.analysis.sweep.jobs import Job, SweepError, find_jobs
from translate.io import write_folder_whole

CHECKPOINT_SUFFIXES = (".pt", ".tmp")  # last.pt, best.pt, last.prev.pt and partial writes: large, not read by reports


def left_out(whole_tb: bool):
    def names_to_skip(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if n.endswith(CHECKPOINT_SUFFIXES) or (n == "tb" and not whole_tb)]
    return names_to_skip


def already_collected(job: Path, target: Path) -> bool:
    """The same finished job is there: a job's metrics.json is written once, at its end, so an equal one means the
    job was not run again. Copying it anew would only rewrite its TensorBoard log under a new, timestamped name."""
    copy = target / "metrics.json"
    return copy.is_file() and copy.read_bytes() == (job / "metrics.json").read_bytes()


def collect(sweep_dir: Path, jobs: list[Job], dest: Path, whole_tb: bool = False) -> list[Path]:
    """Copies each finished job of `jobs` (found in `sweep_dir`) to the same relative folder under `dest`, unless
    that folder already holds the same finished job; returns the copies made."""
    copies = []
    for job in (j.path for j in jobs if j.finished):
        target = dest / job.relative_to(sweep_dir)
        if already_collected(job, target):
            continue

        def copy(staging: Path, job: Path = job) -> None:
            shutil.copytree(job, staging, ignore=left_out(whole_tb))
            if not whole_tb and (job / "tb").is_dir():
                write_attention_images(staging / "tb", pick_examples(cross_attention_images(job / "tb")))

        write_folder_whole(target, copy)  # a job folder is either the old copy or the whole new one
        copies.append(target)
    return copies


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sweep_dir", type=Path, help="a sweep folder, e.g. sweeps/seed_repro_cpu")
    parser.add_argument("dest", type=Path, help="where the job folders go, e.g. docs/results/runs/seed_repro_cpu")
    parser.add_argument("--whole-tb", action="store_true", help="copy each job's whole TensorBoard log")
    parser.add_argument("--only", metavar="PATTERN", default=None,
                        help="the jobs whose folder name matches this shell pattern, e.g. '*_words1-9_*' (the claims' "
                             "short group, the baselines of the comparison against published results)")


def run(args: argparse.Namespace) -> int:
    try:
        jobs = find_jobs(args.sweep_dir)
    except SweepError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.only:
        jobs = [job for job in jobs if fnmatch.fnmatch(job.path.name, args.only)]
        if not jobs:
            print(f"error: --only {args.only!r} matches no job folder in {args.sweep_dir}", file=sys.stderr)
            return 2
    copies = collect(args.sweep_dir, jobs, args.dest, args.whole_tb)
    size = sum(f.stat().st_size for c in copies for f in c.rglob("*") if f.is_file())
    unchanged = sum(job.finished for job in jobs) - len(copies)
    print(f"collected {len(copies)} finished jobs into {args.dest} ({size / 2**20:.1f} MiB)"
          + (f"; {unchanged} already there, unchanged" if unchanged else ""))
    for job in jobs:
        if not job.finished:
            print(f"left out (unfinished, no metrics.json): {job.path}")
    return 0

