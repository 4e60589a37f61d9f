"""The encodings researchers try for longer inputs, on the encodings page: CoPE, randomized positions, ALiBi on some
heads, and RoPE scaled at test time, each trained (or, for the scalings, scored again) as the length-extrapolation
comparison's jobs, beside sinusoidal PE and RoPE retrained with them.

One seed each: exploratory, no star and no word. Per length bucket of the reserved long test set beyond the
training lengths: BLEU and the output/reference length ratio, Δ BLEU against sinusoidal PE and against RoPE (two
reports of the same jobs, one per baseline), and, for what changes another model (randomized positions on
sinusoidal PE, each scaling of RoPE), how far it moves the length ratio that Variš & Bojar's reading (the drop
beyond the training lengths comes from outputs that keep the training lengths) shows falling.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from translate.analysis.sweep.aggregate import ALL, Baseline, Report, aggregate
from translate.analysis.sweep.jobs import find_jobs, group_settings
from translate.analysis.sweep.cells import comparison_cell, markdown_table, number, score_cell
from translate.analysis.sweep.rows import ReportRow
from translate.analysis.sweep.tables import pivot
from translate.analysis.sweep.within import LONG_TEST_SET
from translate.study.pages.page import of_test_set


def beyond(rows: list[ReportRow]) -> list[ReportRow]:
    """The long test set's buckets beyond the training lengths."""
    return [r for r in rows if r.test_set == LONG_TEST_SET and r.bucket != ALL and r.lengths == "beyond"]


def changes(setting: str, settings: list[str]) -> Optional[str]:
    """The setting a test-time or training change was made to: rope for rope_yarn_at_test, sinusoidal for
    "sinusoidal + randomized(...)"; None for a setting of its own."""
    if setting.startswith("rope_") and setting.split(",")[0].endswith("_at_test"):
        return "rope" if "rope" in settings else None
    base = setting.split(" + ")[0]
    return base if base != setting and base in settings else None


def ratio_lines(report: Report) -> list[str]:
    """For each setting that changes another: its length ratio beyond the training lengths beside the other's."""
    rows = beyond(report.rows)
    settings = list(dict.fromkeys(r.setting for r in rows))
    by = {(r.setting, r.bucket): r for r in rows}
    buckets = list(dict.fromkeys(r.bucket for r in rows))
    lines = []
    for setting in settings:
        base = changes(setting, settings)
        if base is None:
            continue
        cells, moved = [], []
        for bucket in buckets:
            own, other = by.get((setting, bucket)), by.get((base, bucket))
            if own is None or other is None or own.length_ratio is None or other.length_ratio is None:
                cells.append("–")
                continue
            moved.append(own.length_ratio - other.length_ratio)
            cells.append(f"{own.length_ratio:.2f} vs {other.length_ratio:.2f} ({moved[-1]:+.2f})")
        if moved:
            lines.append([f"{setting} vs {base}"] + cells + [
                f"longer in {sum(m > 0 for m in moved)} of {len(moved)} buckets"])
    if not lines:
        return []
    return ["### Does it move the length ratio? (exploratory, one seed)", "",
            "Output words per reference word beyond the training lengths, of each model that changes another beside "
            "that other's (difference in brackets): Variš & Bojar read the BLEU drop beyond the training lengths as "
            "outputs that stop at the training lengths (a falling ratio); a change that helps there should raise it. "
            "One seed and no interval: a guide, not a finding.", ""] + markdown_table(
        ["compared", *[f"`{LONG_TEST_SET}` {b}" for b in buckets], "buckets with longer outputs"], lines) + [""]


def against_rope(report: Report, runs: Path) -> Optional[Report]:
    """The same jobs with RoPE as the baseline (None without a RoPE job): CoPE and RoPE's scalings against it."""
    jobs = find_jobs(runs)
    if not any(job.settings.encoding == "rope" and job.settings.ablation == "none" for job in jobs if job.finished):
        return None
    return aggregate(jobs, group_settings(jobs), Baseline.parse("encoding=rope,ablation=none"), report.rules)


def longer_inputs_section(report: Report, against_rope: Optional[Report], runs: Path) -> list[str]:
    """The section: BLEU and length ratio per bucket, Δ against sinusoidal and against RoPE, the length ratios."""
    whole = [r for r in report.rows if r.bucket == ALL]
    steps = sorted({r.steps for r in whole if r.steps})
    lines = ["## Encodings for longer inputs (one seed, exploratory)", "",
             f"From `{runs}` ({len({j for r in whole for j in (r.jobs or '').split()})} jobs: "
             f"{len({r.setting for r in whole})} settings, one seed each), trained as the "
             f"length-extrapolation comparison ({'/'.join(map(str, steps)) or '?'} steps) beside sinusoidal PE and "
             "RoPE retrained with them; RoPE's test-time scalings score the RoPE model again, changed only beyond "
             "its longest training sentence. One seed: every interval counts the test sentences only, so no star "
             "and no word.", ""]
    long = of_test_set(report, LONG_TEST_SET)
    lines += pivot(long, lambda r: f"{score_cell(r.bleu, r.seeds)}, ratio {number(r.length_ratio)}",
                   f"BLEU and length ratio by length (`{LONG_TEST_SET}`)", LONG_TEST_SET)
    lines += pivot(long, lambda r: comparison_cell(r.compared.bleu, r.decides),
                   f"Δ BLEU against {report.baseline or 'the baseline'} (`{LONG_TEST_SET}`)", LONG_TEST_SET)
    if against_rope is not None:
        lines += pivot(of_test_set(against_rope, LONG_TEST_SET), lambda r: comparison_cell(r.compared.bleu, r.decides),
                       f"Δ BLEU against {against_rope.baseline} (`{LONG_TEST_SET}`)", LONG_TEST_SET)
    return [line.replace("## ", "### ", 1) if line.startswith("## ") and i else line
            for i, line in enumerate(lines)] + ratio_lines(report)
