"""Evaluate a sweep's finished jobs again with an ablation applied at test time.

Controls that need no training: each finished job of a sweep that `--jobs` selects (default: sinusoidal PE used as
is) is evaluated again with an ablation applied at test time, and the evaluation is written beside it as a job of
the sweep, named <ablation>_at_test, which the sweep's report pairs with the job it came from.

    python -m translate.study ablate-at-test SWEEP_DIR [--ablation zero_dims] [--jobs encoding=sinusoidal,ablation=none]
                                     [OVERRIDE ...]

A run whose config lists the controls in eval.at_test scores them itself, at its end; this command scores them
afterwards. For seed_repro this is the control "PE dims >= 400 zeroed at test time, in the model trained with them"
(translate/study/verdicts/controls.py). It reads each job's checkpoint, the one its test scores came from, so it
runs where the checkpoints are: on a GPU machine in the same call as the training (scripts/gpu_piece.sh does it when
AT_TEST names the ablation). The evaluation always decodes and buckets as the job did (the comparison is paired);
OVERRIDEs are translate.evaluate's for the rest, e.g. ablation.from=48 or device=cpu. A job evaluated already is
skipped, so a rerun does only what is missing.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from omegaconf import OmegaConf

from translate.analysis.sweep.aggregate import Baseline
from translate.analysis.sweep.jobs import Job, SweepError, find_jobs
from translate.assembly.compose import CONF_DIR
from translate.assembly.controls_at_test import control_folder
from translate.cli.controls_at_test import evaluate_at_test
from translate.config import ConfigError
from translate.training.checkpoint import CheckpointError


def evaluation_folder(job: Job, label: str) -> Path:
    """sinusoidal_none_words1-9_seed1 -> sinusoidal_zero_dims_at_test_words1-9_seed1, beside the job."""
    return control_folder(job.path, job.settings.ablation, label)


def checkpoint_of(job: Job) -> Path:
    """The checkpoint the job's test scores came from (metrics.json `checkpoint`), in the job's folder as it is now."""
    return job.path / Path(job.metrics.checkpoint or "best.pt").name


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sweep_dir", type=Path)
    parser.add_argument("--ablation", default="zero_dims", help="a conf/ablation option (default: zero_dims)")
    parser.add_argument("--jobs", default="encoding=sinusoidal,ablation=none",
                        help="which jobs to evaluate, as translate.report's --baseline (default: %(default)s)")
    parser.add_argument("overrides", nargs="*", help="translate.evaluate overrides, e.g. ablation.from=48")


def run(args: argparse.Namespace) -> int:
    if not (Path(CONF_DIR) / "ablation" / f"{args.ablation}.yaml").exists():
        allowed = sorted(p.stem for p in (Path(CONF_DIR) / "ablation").glob("*.yaml") if p.stem != "none")
        print(f"error: --ablation {args.ablation!r} is not a conf/ablation option; allowed: {', '.join(allowed)}",
              file=sys.stderr)
        return 2
    try:
        selector = Baseline.parse(args.jobs)
        jobs = [job for job in find_jobs(args.sweep_dir) if job.finished and selector.matches(job)]
    except SweepError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    missing = 0
    # the folder and the report name the ablation as evaluate does: its name, e.g. ablation.name=zero_dims_mean
    label = next((o.split("=", 1)[1] for o in args.overrides if o.startswith("ablation.name=")), args.ablation)
    for job in jobs:
        out = evaluation_folder(job, label)
        if (out / "metrics.json").exists():
            print(f"{out.name}: there already")
            continue
        if not checkpoint_of(job).exists():
            print(f"{job.name}: no checkpoint {checkpoint_of(job).name} (only where the job was trained)",
                  file=sys.stderr)
            missing += 1
            continue
        try:
            evaluate_at_test(checkpoint_of(job), OmegaConf.load(job.path / "config.yaml"), out,
                             [f"ablation={args.ablation}", *args.overrides])
        except (ConfigError, CheckpointError, ValueError) as error:  # e.g. ablation.from beyond the model's width
            print(f"{job.name}: error: {error}", file=sys.stderr)
            missing += 1
            continue
        print(f"{out.name}: written")
    if not jobs:
        print(f"no finished job in {args.sweep_dir} matches --jobs {args.jobs}", file=sys.stderr)
    return 1 if missing or not jobs else 0

