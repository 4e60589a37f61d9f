"""The report as files: report.csv (one row per setting x bucket), report.json (the same, for scripts) and
report.md (the tables people read)."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Optional

from translate.report.aggregate import ALL, Report
from translate.training.checkpoint import atomic_write_text

CSV_COLUMNS = ("setting", "pe", "group", "encoding", "ablation", "train_words", "model", "seeds", "bucket", "low",
               "high", "sentences", "bleu", "bleu_low", "bleu_high", "bleu_std", "chrf", "chrf_low", "chrf_high",
               "chrf_std", "interval", "diagonal_share", "attention_entropy", "length_ratio", "delta_bleu", "p_bleu",
               "delta_chrf", "p_chrf", "parameters", "target_tokens_per_s", "train_minutes", "steps", "jobs")


def csv_text(report: Report) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(report.rows)
    return out.getvalue()


def json_text(report: Report) -> str:
    return json.dumps({"baseline": report.baseline, "rows": report.rows, "unfinished": report.unfinished,
                       "notes": report.notes}, indent=1, ensure_ascii=False) + "\n"


def number(value, digits: int = 2) -> str:
    if value is None:
        return "–"
    return f"{value:,.{digits}f}" if isinstance(value, float) else f"{value:,}"


def score_cell(row: dict, key: str) -> str:
    """"23.41 [21.02, 25.90]" with one seed, "23.41 ± 0.80" with several."""
    value = row.get(key)
    if value is None:
        return "–"
    if row["seeds"] > 1:
        return f"{value:.2f} ± {row[f'{key}_std']:.2f}"
    low, high = row.get(f"{key}_low"), row.get(f"{key}_high")
    return f"{value:.2f} [{low:.2f}, {high:.2f}]" if low is not None else f"{value:.2f}"


def comparison_cell(row: dict, key: str = "bleu") -> str:
    delta, p = row.get(f"delta_{key}"), row.get(f"p_{key}")
    if delta is None:
        return "–"
    return f"{delta:+.2f} (p={p:.3f})" + ("*" if p < 0.05 else "")


def markdown_table(header: list[str], lines: list[list[str]], align: Optional[list[str]] = None) -> list[str]:
    align = align or ["---"] + ["--:"] * (len(header) - 1)
    return ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"] + [
        "| " + " | ".join(line) + " |" for line in lines]


def pivot(report: Report, cell, title: str) -> list[str]:
    """Settings as rows, length buckets as columns."""
    buckets, counts = [], {}
    for row in report.rows:
        if row["bucket"] != ALL and row["bucket"] not in buckets:
            buckets.append(row["bucket"])
            counts[row["bucket"]] = row["sentences"]
    if not buckets:
        return []
    by_setting: dict[str, dict] = {}
    for row in report.rows:
        by_setting.setdefault(row["setting"], {})[row["bucket"]] = row
    lines = [[setting] + [cell(cells[b]) if b in cells else "–" for b in buckets]
             for setting, cells in by_setting.items()]
    return [f"## {title}", ""] + markdown_table(["setting"] + [f"{b} (n={counts[b]})" for b in buckets],
                                               lines) + [""]


def whole_split_table(report: Report) -> list[str]:
    return markdown_table(
        ["setting", "seeds", "BLEU", "chrF", "Δ BLEU vs baseline", "Δ chrF", "parameters", "target tokens/s",
         "train minutes", "steps"],
        [[r["setting"], str(r["seeds"]), score_cell(r, "bleu"), score_cell(r, "chrf"), comparison_cell(r, "bleu"),
          comparison_cell(r, "chrf"), number(r["parameters"]), number(r["target_tokens_per_s"], 0),
          number(r["train_minutes"], 1), number(r["steps"], 0)] for r in report.rows if r["bucket"] == ALL])


def markdown_text(report: Report, name: str, images: list[tuple[str, str]]) -> str:
    whole = [r for r in report.rows if r["bucket"] == ALL]
    lines = [f"# Sweep report: {name}", "",
             f"{len(report.settings)} settings, {sum(r['seeds'] for r in whole)} finished jobs"
             + (f", {len(report.unfinished)} unfinished ({', '.join(report.unfinished)})" if report.unfinished
                else "") + f". Baseline of the paired tests: {report.baseline or '–'}.", "",
             "## Whole test split", ""]
    lines += whole_split_table(report)
    lines.append("")
    lines += pivot(report, lambda r: score_cell(r, "bleu"), "BLEU by length")
    lines += pivot(report, lambda r: score_cell(r, "chrf"), "chrF by length")
    lines += pivot(report, lambda r: comparison_cell(r, "bleu"), "Δ BLEU against the baseline by length")
    lines += pivot(report, lambda r: number(r.get("diagonal_share")), "Cross-attention diagonal share by length")
    lines += [f"![{alt}]({path})" for alt, path in images]
    lines += ["", "## How to read this", "",
              "- Scores: sacreBLEU BLEU and chrF on detokenized, cased text. `[lo, hi]`: 95% bootstrap interval over "
              "the test sentences (one seed). `± x`: standard deviation over seeds, the value being their mean.",
              "- Δ: setting minus the baseline trained in the same context (all other settings and the seed equal), "
              "sentences of all seeds pooled; p: sacreBLEU paired bootstrap resampling, `*` below 0.05.",
              "- Diagonal share: the part of cross-attention mass within ±1 source token of the monotone diagonal "
              "(1.0: a perfectly monotone alignment; about 3/source length: uniform attention).",
              "- Plots: one line per encoding/ablation, one panel per other setting that varies; grey: the buckets "
              "holding lengths the models were trained on.",
              "- Every row, with its run folders: report.csv; the same as data: report.json."]
    if report.notes:
        lines += ["", "## Notes", ""] + [f"- {note}" for note in report.notes]
    return "\n".join(lines) + "\n"


def write_tables(report: Report, out_dir: Path, name: str, images: list[tuple[str, str]]) -> None:
    atomic_write_text(out_dir / "report.csv", csv_text(report))
    atomic_write_text(out_dir / "report.json", json_text(report))
    atomic_write_text(out_dir / "report.md", markdown_text(report, name, images))
