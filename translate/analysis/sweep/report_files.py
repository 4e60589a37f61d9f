"""The report as data files: report.csv (one row per setting x bucket, its columns the fields of CsvRow) and
report.json (the same rows, spans and alignment contrasts, for scripts and pages), written and read back."""
from __future__ import annotations

import csv
import dataclasses
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from translate.analysis.run.metrics_json import BucketStatistics
from translate.analysis.run.settings import ReportSettings
from translate.analysis.sweep.aggregate import Report
from translate.analysis.sweep.rows import AlignmentRow, ReportRow, SpanRow, WithinRow
from translate.analysis.sweep.rules import Rules
from translate.io import atomic_write_text


@dataclass
class RowScores:
    """What a report row is about and its scores: the first columns of report.csv."""


    setting: Optional[str] = None
    pe: Optional[str] = None
    group: Optional[str] = None
    test_set: Optional[str] = None
    encoding: Optional[str] = None
    ablation: Optional[str] = None
    train_words: Optional[str] = None
    model: Optional[str] = None
    seeds: Optional[int] = None
    bucket: Optional[str] = None           # a length bucket, or "all": the whole test set
    low: Optional[int] = None
    high: Optional[int] = None
    sentences: Optional[int] = None
    lengths: Optional[str] = None          # trained, partly, shorter, beyond (see LENGTH_LABELS)
    decides: Optional[bool] = None         # rules.decides: enough sentences to decide a verdict
    bleu: Optional[float] = None
    bleu_low: Optional[float] = None
    bleu_high: Optional[float] = None
    bleu_std: Optional[float] = None
    chrf: Optional[float] = None
    chrf_low: Optional[float] = None
    chrf_high: Optional[float] = None
    chrf_std: Optional[float] = None
    interval: Optional[str] = None


@dataclass
class RowComparison:
    """Δ against the baseline, the columns of report.csv (report.json holds every column of each Difference)."""


    delta_bleu: Optional[float] = None
    delta_bleu_low: Optional[float] = None
    delta_bleu_high: Optional[float] = None
    delta_bleu_std: Optional[float] = None
    p_bleu: Optional[float] = None
    p_bleu_holm: Optional[float] = None
    delta_chrf: Optional[float] = None
    delta_chrf_low: Optional[float] = None
    delta_chrf_high: Optional[float] = None
    delta_chrf_std: Optional[float] = None
    p_chrf: Optional[float] = None
    p_chrf_holm: Optional[float] = None
    test_bleu: Optional[str] = None
    delta_interaction_bleu: Optional[float] = None
    delta_interaction_bleu_low: Optional[float] = None
    delta_interaction_bleu_high: Optional[float] = None
    p_interaction_bleu: Optional[float] = None
    p_interaction_bleu_holm: Optional[float] = None
    delta_length_ratio: Optional[float] = None   # output words per reference word, minus the baseline's
    delta_length_ratio_low: Optional[float] = None
    delta_length_ratio_high: Optional[float] = None


@dataclass
class CsvRow(RowComparison, BucketStatistics, RowScores):
    """One line of report.csv: its fields are the columns, in order (RowScores, the per-bucket statistics the runs
    record (BucketStatistics), RowComparison, then these), each read from the report row's report.json layout
    (rows.ReportRow.as_json). A per-bucket statistic added to BucketStatistics is a column here, and a field of
    ReportRow, without further code."""


    family: Optional[str] = None           # Holm's family of the row's tests (aggregate.family_of)
    repeated_words: Optional[float] = None
    parameters: Optional[int] = None
    target_tokens_per_s: Optional[float] = None
    train_minutes: Optional[float] = None
    device: Optional[str] = None
    steps: Optional[int] = None
    tested_step: Optional[str] = None
    valid_slope: Optional[float] = None    # valid BLEU per 1,000 steps before the tested step (rows.Convergence)
    rising_seeds: Optional[int] = None
    trend_seeds: Optional[int] = None
    from_step: Optional[int] = None
    to_step: Optional[int] = None
    jobs: Optional[str] = None


    @classmethod
    def of(cls, row: ReportRow) -> "CsvRow":
        """The columns of a report row (report.json holds the rest)."""
        data = row.as_json()
        return cls(**{f.name: data.get(f.name) for f in dataclasses.fields(cls)})


CSV_COLUMNS = tuple(f.name for f in dataclasses.fields(CsvRow))


def csv_text(report: Report) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(dataclasses.asdict(CsvRow.of(row)) for row in report.rows)
    return out.getvalue()


def json_text(report: Report) -> str:
    return json.dumps({"baseline": report.baseline, "rules": report.rules.as_dict(),
                       "rows": [row.as_json() for row in report.rows], "spans": [row.as_json() for row in report.spans],
                       "alignment": [row.as_json() for row in report.alignment],
                       "within": [row.as_json() for row in report.within], "unfinished": report.unfinished,
                       "notes": report.notes}, indent=1, ensure_ascii=False) + "\n"


def report_of_json(data: dict) -> Report:
    """A report.json read back (json_text): its rows, spans and alignment contrasts as their types; the rules it was
    built with (where an older report did not record one: samples 1,000, the others the run's defaults)."""
    rules, defaults = data.get("rules") or {}, ReportSettings()
    return Report(rows=[ReportRow.read(row) for row in data["rows"]], unfinished=data["unfinished"],
                  notes=data["notes"], baseline=data["baseline"],
                  rules=Rules(rules.get("samples", 1000), rules.get("min_bucket", defaults.min_bucket),
                              rules.get("equivalence_margin", defaults.equivalence_margin)),
                  spans=[SpanRow.read(row) for row in data.get("spans", [])],
                  alignment=[AlignmentRow.read(row) for row in data.get("alignment", [])],
                  within=[WithinRow.read(row) for row in data.get("within", [])])


def write_report_files(report: Report, out_dir: Path) -> None:
    atomic_write_text(out_dir / "report.csv", csv_text(report))
    atomic_write_text(out_dir / "report.json", json_text(report))
