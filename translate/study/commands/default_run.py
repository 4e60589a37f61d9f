"""Commit `make train`'s run as the README's default-run figures.

Commit `make train`'s run as the README's default-run figures: its small files (no checkpoints) go to
docs/results/runs/default_train/, and README.md's `default` block (and the `first` line beside the two commands) is
written from its metrics.json. With --loaded,
the same command run on busy cores goes to docs/results/runs/default_train_loaded/ and the block says whether it
gave the same model (the weights' SHA-256 in each metrics.json) and how long it took.

    python -m translate.study default-run runs/2026-11-25/13-00-00          # a finished run folder of `make train`
    python -m translate.study default-run QUIET_RUN --loaded BUSY_RUN       # the same command, quiet and busy
    python -m translate.study default-run docs/results/runs/default_train --readme README.md   # the block again
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from translate.study.pages.readme import default_run_block, first_command_lines, update_readme

DEST = Path("docs/results/runs/default_train")
LOADED_DEST = Path("docs/results/runs/default_train_loaded")
SMALL = ("config.yaml", "metrics.json", "train.log")


def collect(run_dir: Path, dest: Path) -> None:
    """The run's config, metrics, log, hypotheses and by-length tables; no checkpoints, no TensorBoard log."""
    if run_dir.resolve() == dest.resolve():
        return
    staging = dest.with_name(dest.name + ".collecting")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for path in run_dir.iterdir():
        if path.name in SMALL or path.name.endswith((".hyp.txt", ".md")):
            shutil.copyfile(path, staging / path.name)
    shutil.rmtree(dest, ignore_errors=True)
    staging.rename(dest)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", type=Path, help="a finished run folder of make train")
    parser.add_argument("--dest", type=Path, default=DEST)
    parser.add_argument("--loaded", type=Path, help="the same command's run folder from cores shared with other jobs")
    parser.add_argument("--loaded-dest", type=Path, default=LOADED_DEST)
    parser.add_argument("--readme", type=Path, default=Path("README.md"))


def run(args: argparse.Namespace) -> int:
    for run_dir in filter(None, (args.run_dir, args.loaded)):
        if not (run_dir / "metrics.json").exists():
            print(f"error: {run_dir / 'metrics.json'} does not exist: expected a finished run folder", file=sys.stderr)
            return 2
    collect(args.run_dir, args.dest)
    if args.loaded:
        collect(args.loaded, args.loaded_dest)
    update_readme(args.readme, "first", first_command_lines(str(args.dest), str(args.loaded_dest)))
    if not update_readme(args.readme, "default", default_run_block(str(args.dest), str(args.loaded_dest))):
        print(f"error: {args.readme} has no <!-- results:default --> block", file=sys.stderr)
        return 2
    print(f"wrote {args.dest} and the default block of {args.readme}")
    return 0

