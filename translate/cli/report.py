"""`python -m translate.report SWEEP_DIR [--baseline encoding=sinusoidal,ablation=none] [--samples 10000]
[--min-bucket 50] [--margin 1.0]`"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from translate.analysis.sweep import DEFAULT_BASELINE, build_report
from translate.analysis.sweep.jobs import SweepError
from translate.analysis.run.settings import ReportSettings


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m translate.report", description=__doc__)
    parser.add_argument("sweep_dir", type=Path, help="a hydra.sweep.dir, e.g. sweeps/encodings")
    parser.add_argument("--baseline", default=DEFAULT_BASELINE,
                        help="KEY=VALUE,... naming the jobs every other job is tested against "
                             f"(default: {DEFAULT_BASELINE})")
    parser.add_argument("--samples", type=int, default=None,
                        help="bootstrap resamples (default 10000, or as many as Holm over the report's tests "
                             "needs to star anything); 0: no intervals or tests")
    parser.add_argument("--min-bucket", type=int, default=None,
                        help=f"smallest bucket that decides a verdict (default: the jobs' report.min_bucket, "
                             f"{ReportSettings.min_bucket})")
    parser.add_argument("--margin", type=float, default=None,
                        help=f"±BLEU of 'about the same' (default: the jobs' report.equivalence_margin, {ReportSettings.equivalence_margin})")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: SWEEP_DIR/report)")
    parser.add_argument("--no-hparams", dest="hparams", action="store_false", help="skip the TensorBoard HParams")
    args = parser.parse_args(argv)
    if args.samples is not None and args.samples < 0:
        parser.error(f"--samples={args.samples} is not allowed: expected 0 or more resamples")
    if args.min_bucket is not None and args.min_bucket < 1:
        parser.error(f"--min-bucket={args.min_bucket} is not allowed: expected an integer >= 1")
    if args.margin is not None and not args.margin > 0:
        parser.error(f"--margin={args.margin} is not allowed: expected a number > 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        report = build_report(args.sweep_dir, args.baseline, args.samples, args.out, args.hparams, args.min_bucket,
                              args.margin)
    except SweepError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    out = args.out or args.sweep_dir / "report"
    print(f"{len(report.settings)} settings, {len(report.unfinished)} unfinished jobs -> {out}/report.md")
    for note in report.notes:
        print(f"note: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
