"""What every page of this study does alike: read a sweep's report (written first, or again when stale) and give
the page a fresh folder for its pictures."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from translate.analysis.sweep import build_report
from translate.analysis.sweep.aggregate import Report
from translate.analysis.sweep.jobs import job_folders
from translate.analysis.sweep.report_files import report_of_json


def is_stale(report: Report, path: Path, sweep_dir: Path) -> bool:
    """A report that does not hold exactly the finished jobs there are now (jobs collected or finished since it
    was written), or is older than one of their metrics.json files (a job run again)."""
    recorded = {job for row in report.rows for job in row.jobs.split()}
    finished = [folder for folder in job_folders(sweep_dir) if (folder / "metrics.json").exists()]
    written = path.stat().st_mtime
    return ({str(folder.relative_to(sweep_dir)) for folder in finished} != recorded  # names as read_job gives them
            or any((folder / "metrics.json").stat().st_mtime > written for folder in finished))


def load_report(sweep_dir: Path) -> Report:
    """The sweep's report.json, written first when the sweep has none yet, and written again, with the rules and
    baseline it had, when it is stale: a page never shows an older set of jobs than the folder holds."""
    path = sweep_dir / "report" / "report.json"
    if not path.exists():
        build_report(sweep_dir)
    data = json.loads(path.read_text(encoding="utf-8"))
    report = report_of_json(data)
    if is_stale(report, path, sweep_dir):
        rules = data.get("rules") or {}  # as written: a rule an older report did not record takes the jobs' own
        build_report(sweep_dir, baseline=report.baseline, samples=rules.get("samples"),
                     min_bucket=rules.get("min_bucket"), margin=rules.get("equivalence_margin"))
        report = report_of_json(json.loads(path.read_text(encoding="utf-8")))
    return report


def of_test_set(report: Report, name: str) -> Report:
    """The report's rows of one test set: every verdict and table reads one test set at a time (the same bucket of
    two test sets holds different sentences)."""
    return dataclasses.replace(report, rows=[r for r in report.rows if r.test_set == name])


def fresh_assets(page: Path) -> Path:
    """The folder of a page's pictures, named after the page (docs/results.md -> docs/results/), emptied of the
    pictures of an older version of the page (other files there, e.g. committed runs, stay)."""
    assets = page.with_suffix("")
    assets.mkdir(parents=True, exist_ok=True)
    for old in assets.glob("*.png"):
        old.unlink()
    return assets
