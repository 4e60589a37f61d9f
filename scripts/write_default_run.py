"""Commit `make train`'s run as the README's default-run figures: its small files (no checkpoints) go to
docs/results/runs/default_train/, and README.md's `default` block is written from its metrics.json.

    python scripts/write_default_run.py runs/2026-11-25/13-00-00          # a finished run folder of `make train`
    python scripts/write_default_run.py docs/results/runs/default_train --readme README.md   # the block again
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from translate.analysis.sweep.readme_summary import default_run_lines, update_readme

DEST = Path("docs/results/runs/default_train")
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path, help="a finished run folder of make train")
    parser.add_argument("--dest", type=Path, default=DEST)
    parser.add_argument("--readme", type=Path, default=Path("README.md"))
    args = parser.parse_args(argv)
    if not (args.run_dir / "metrics.json").exists():
        print(f"error: {args.run_dir / 'metrics.json'} does not exist: expected a finished run folder", file=sys.stderr)
        return 2
    collect(args.run_dir, args.dest)
    metrics = json.loads((args.dest / "metrics.json").read_text(encoding="utf-8"))
    if not update_readme(args.readme, "default", default_run_lines(metrics, str(args.dest))):
        print(f"error: {args.readme} has no <!-- results:default --> block", file=sys.stderr)
        return 2
    print(f"wrote {args.dest} and the default block of {args.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
