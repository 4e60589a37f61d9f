"""Copy a sweep's finished jobs without their checkpoints: everything the sweep report and the results page read
(config.yaml, metrics.json, the hypotheses, the attention maps) and the train log. The TensorBoard log is cut down to
the two cross-attention pictures the results page shows (the last of each; --whole-tb keeps the whole log).

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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package, whatever is installed

from translate.analysis.sweep.attention_images import (cross_attention_images, pick_examples,  # noqa: E402
                                                       write_attention_images)

CHECKPOINT_SUFFIXES = (".pt", ".tmp")  # last.pt, best.pt, last.prev.pt and partial writes: large, not read by reports


def finished_jobs(sweep_dir: Path) -> list[Path]:
    return sorted(p.parent for p in sweep_dir.rglob("metrics.json") if (p.parent / "config.yaml").exists()
                  and "report" not in p.relative_to(sweep_dir).parts)


def unfinished_jobs(sweep_dir: Path) -> list[Path]:
    return sorted(p.parent for p in sweep_dir.rglob("config.yaml")
                  if not (p.parent / "metrics.json").exists() and p.parent.name != ".hydra")


def left_out(whole_tb: bool):
    def names_to_skip(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if n.endswith(CHECKPOINT_SUFFIXES) or (n == "tb" and not whole_tb)]
    return names_to_skip


def collect(sweep_dir: Path, dest: Path, whole_tb: bool = False) -> list[Path]:
    """Copies each finished job of `sweep_dir` to the same relative folder under `dest`; returns the copies."""
    copies = []
    for job in finished_jobs(sweep_dir):
        target = dest / job.relative_to(sweep_dir)
        staging = target.with_name(target.name + ".collecting")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(job, staging, ignore=left_out(whole_tb))
        if not whole_tb and (job / "tb").is_dir():
            write_attention_images(staging / "tb", pick_examples(cross_attention_images(job / "tb")))
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)  # a job folder is either the old copy or the whole new one
        copies.append(target)
    return copies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweep_dir", type=Path, help="a sweep folder, e.g. sweeps/seed_repro_cpu")
    parser.add_argument("dest", type=Path, help="where the job folders go, e.g. docs/results/runs/seed_repro_cpu")
    parser.add_argument("--whole-tb", action="store_true", help="copy each job's whole TensorBoard log")
    args = parser.parse_args(argv)
    if not args.sweep_dir.is_dir():
        print(f"error: sweep_dir={args.sweep_dir} is not a folder", file=sys.stderr)
        return 2
    copies = collect(args.sweep_dir, args.dest, args.whole_tb)
    size = sum(f.stat().st_size for c in copies for f in c.rglob("*") if f.is_file())
    print(f"collected {len(copies)} finished jobs into {args.dest} ({size / 2**20:.1f} MiB)")
    for job in unfinished_jobs(args.sweep_dir):
        print(f"left out (unfinished, no metrics.json): {job}")
    return 0 if copies else 2


if __name__ == "__main__":
    sys.exit(main())
