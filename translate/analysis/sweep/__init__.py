"""One report for a whole sweep: `python -m translate.report SWEEP_DIR` (see docs/sweeps.md).

jobs: find the run folders and group seeds; references: the test sentences again; significance: group
bootstrap and seed-aware tests; aggregate: settings x length buckets; tables, plots, hparams: the files written.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

from translate.analysis.sweep.aggregate import Baseline, Report, aggregate, rules_from
from translate.analysis.sweep.hparams import write_hparams
from translate.analysis.sweep.jobs import find_jobs, group_settings
from translate.analysis.sweep.plots import write_learning_curves, write_length_curve, write_plots
from translate.analysis.sweep.report_files import write_report_files
from translate.analysis.sweep.tables import write_report_markdown

log = logging.getLogger(__name__)
DEFAULT_BASELINE = "encoding=sinusoidal,ablation=none"


def build_report(sweep_dir: Path, baseline: str = DEFAULT_BASELINE, samples: Optional[int] = None,
                 out_dir: Optional[Path] = None, hparams: bool = True, min_bucket: Optional[int] = None,
                 margin: Optional[float] = None) -> Report:
    """Reads every job under sweep_dir and writes report.{md,csv,json}, the plots and the HParams entries into
    out_dir (default: SWEEP_DIR/report). samples (default 10,000), min_bucket and margin: see rules.Rules."""
    sweep_dir = Path(sweep_dir)
    out_dir = Path(out_dir) if out_dir else sweep_dir / "report"
    jobs = find_jobs(sweep_dir)
    settings = group_settings(jobs)
    rules = rules_from(jobs, samples, min_bucket, margin)
    report = aggregate(jobs, settings, Baseline.parse(baseline), rules)
    out_dir.mkdir(parents=True, exist_ok=True)
    images = (write_plots(report.rows, out_dir)
              + write_length_curve(settings, out_dir) + write_learning_curves(settings, out_dir))
    write_report_files(report, out_dir)
    write_report_markdown(report, out_dir, sweep_dir.resolve().name, images)
    if hparams:
        write_hparams(jobs, out_dir / "hparams")
    return report
