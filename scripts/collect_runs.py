"""Copy a sweep's finished jobs without their checkpoints: everything the sweep report and the results page read
(config.yaml, metrics.json, the hypotheses, the TensorBoard logs with the attention maps) and the train log.

    python scripts/collect_runs.py sweeps/seed_repro_cpu docs/results/runs/seed_repro_cpu
    python scripts/collect_runs.py sweeps/seed_repro "$OUT/seed_repro"     # on a GPU machine: bring back small files

Collecting several pieces of one sweep (e.g. short GPU sessions, each running some of its jobs) into the same
destination adds them up: a job folder already there is replaced by the newer copy. Unfinished jobs (no metrics.json)
are left out and named.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

CHECKPOINT_SUFFIXES = (".pt", ".tmp")  # last.pt, best.pt, last.prev.pt and partial writes: large, not read by reports


def finished_jobs(sweep_dir: Path) -> list[Path]:
    return sorted(p.parent for p in sweep_dir.rglob("metrics.json") if (p.parent / "config.yaml").exists()
                  and "report" not in p.relative_to(sweep_dir).parts)


def unfinished_jobs(sweep_dir: Path) -> list[Path]:
    return sorted(p.parent for p in sweep_dir.rglob("config.yaml")
                  if not (p.parent / "metrics.json").exists() and p.parent.name != ".hydra")


def collect(sweep_dir: Path, dest: Path) -> list[Path]:
    """Copies each finished job of `sweep_dir` to the same relative folder under `dest`; returns the copies."""
    copies = []
    for job in finished_jobs(sweep_dir):
        target = dest / job.relative_to(sweep_dir)
        staging = target.with_name(target.name + ".collecting")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(job, staging, ignore=lambda _, names: [n for n in names if n.endswith(CHECKPOINT_SUFFIXES)])
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)  # a job folder is either the old copy or the whole new one
        copies.append(target)
    return copies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweep_dir", type=Path, help="a sweep folder, e.g. sweeps/seed_repro_cpu")
    parser.add_argument("dest", type=Path, help="where the job folders go, e.g. docs/results/runs/seed_repro_cpu")
    args = parser.parse_args(argv)
    if not args.sweep_dir.is_dir():
        print(f"error: sweep_dir={args.sweep_dir} is not a folder", file=sys.stderr)
        return 2
    copies = collect(args.sweep_dir, args.dest)
    size = sum(f.stat().st_size for c in copies for f in c.rglob("*") if f.is_file())
    print(f"collected {len(copies)} finished jobs into {args.dest} ({size / 2**20:.1f} MiB)")
    for job in unfinished_jobs(args.sweep_dir):
        print(f"left out (unfinished, no metrics.json): {job}")
    return 0 if copies else 2


if __name__ == "__main__":
    sys.exit(main())
