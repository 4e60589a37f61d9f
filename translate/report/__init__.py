"""One report for a whole sweep: `python -m translate.report SWEEP_DIR` (see docs/sweeps.md).

jobs: find the run folders and group seeds; references: the test sentences again; significance: sacreBLEU
bootstrap and paired tests; aggregate: settings x length buckets; tables, plots, hparams: the files written.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

from translate.report.aggregate import Baseline, Report, aggregate
from translate.report.hparams import write_hparams
from translate.report.jobs import find_jobs, group_settings
from translate.report.plots import write_length_curve, write_plots
from translate.report.tables import write_tables

log = logging.getLogger(__name__)
DEFAULT_BASELINE = "encoding=sinusoidal,ablation=none"


def build_report(sweep_dir: Path, baseline: str = DEFAULT_BASELINE, samples: int = 1000,
                 out_dir: Optional[Path] = None, hparams: bool = True) -> Report:
    """Reads every job under sweep_dir and writes report.{md,csv,json}, the plots and the HParams entries into
    out_dir (default: SWEEP_DIR/report)."""
    sweep_dir = Path(sweep_dir)
    out_dir = Path(out_dir) if out_dir else sweep_dir / "report"
    jobs = find_jobs(sweep_dir)
    settings = group_settings(jobs)
    report = aggregate(jobs, settings, Baseline.parse(baseline), samples)
    out_dir.mkdir(parents=True, exist_ok=True)
    images = write_plots(report.rows, out_dir) + write_length_curve(settings, out_dir)
    write_tables(report, out_dir, sweep_dir.resolve().name, images)
    if hparams:
        write_hparams(jobs, out_dir / "hparams")
    return report
