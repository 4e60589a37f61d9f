"""docs/encodings_results.md from an `encodings` sweep (and, if given, a `length_extrapolation` sweep): the encodings
ranked by whole-test-split BLEU, BLEU per length bucket, the sweep report's plots, and how each encoding ranks in
each bucket when trained on short sentences only."""
from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Callable, Optional

from translate.analysis.sweep.aggregate import ALL, Report
from translate.analysis.sweep.jobs import find_jobs, word_span
from translate.analysis.sweep.plots import LEARNING_CURVES, LENGTH_CURVE, PLOTS
from translate.study.verdicts.published import published_readme_lines, published_section
from translate.study.pages.readme import update_readme
from translate.study.pages.page import fresh_assets, load_report, of_test_set
from translate.study.pages.longer_inputs import against_rope, longer_inputs_section
from translate.analysis.sweep.rows import ReportRow
from translate.analysis.sweep.rules import Rules
from translate.analysis.sweep.cells import (LENGTH_LABELS, bucket_header, comparison_cell, devices, markdown_table,
                                            number, score_cell, value_range)
from translate.analysis.sweep.tables import pivot, reading_rules, test_set_names
from translate.io import atomic_write_text

# The sweep report's pictures, as (file name, alt text). A picture the report did not draw is left out of the page.
REPORT_PICTURES = tuple((name, f"{label} by length") for _, label, name in PLOTS) + (
    (LENGTH_CURVE, "BLEU against length (bucket middle, words)"),
    (LEARNING_CURVES, "valid BLEU against training step, one line per job"))


def trained_on(words: str) -> str:
    """A row's train_words as a reader says it: "1-10" -> "≤ 10 words", "11-17" -> "11–17 words", "5+" ->
    "≥ 5 words", "all" -> "every length"."""
    span = word_span(words)
    if span is None:
        return "every length"
    low, high = span
    if high is None:
        return f"≥ {low} words"
    return f"≤ {high} words" if low == 1 else f"{low}–{high} words"


def trained_words(rows: list[ReportRow]) -> str:
    return " and ".join(sorted({trained_on(r.train_words) for r in rows}))


def provenance(report: Report, sweep_dir: Path) -> str:
    """What produced the numbers: the folder, how many encodings, seeds and jobs, the model, its size and
    training budget, the test sentences and the bootstrap resamples."""
    whole = [r for r in report.rows if r.bucket == ALL]
    jobs = {job for r in whole for job in r.jobs.split()}
    sentences = {r.test_set: r.sentences for r in whole}
    tests = ", ".join(f"{number(sentences[name])} sentences of `{name}`" for name in test_set_names(report))
    unfinished = f", {len(report.unfinished)} unfinished left out" if report.unfinished else ""
    models = ", ".join(sorted({str(r.model) for r in whole}))
    seeds = value_range([r.seeds for r in whole])
    seeds += " seed" if seeds == "1" else " seeds"
    samples = report.rules.samples
    return (f"`{sweep_dir}`: {len({r.setting for r in whole})} encodings × {seeds}, {len(jobs)} finished jobs"
            f"{unfinished}; model {models}, {value_range([r.parameters for r in whole])}"
            f" parameters, {value_range([r.steps for r in whole])} steps and {value_range([r.train_minutes for r in whole], 1)}"
            f" training minutes per job on {devices(whole)}, trained on {trained_words(whole)}; tested on {tests}; "
            + (f"intervals from {samples:,} bootstrap resamples" if samples else "no bootstrap intervals or tests"))


def ranked(rows: list[ReportRow]) -> list[ReportRow]:
    """Highest BLEU first; a row without BLEU last; ties by name, so the order never depends on the input's."""
    return sorted(rows, key=lambda r: (r.bleu.value is None, -(r.bleu.value or 0.0), r.setting))


def ranks(rows: list[ReportRow]) -> list[str]:
    """Competition ranks of rows already ranked: equal BLEU, equal rank ("1, 2, 2, 4")."""
    return [str(1 + sum(other.bleu.value is not None and r.bleu.value is not None and other.bleu.value > r.bleu.value
                        for other in rows)) if r.bleu.value is not None else "–" for r in rows]


def in_ranked_order(report: Report, test_set: str) -> Report:
    """The report's rows of one test set, settings in the order of their whole-split BLEU (pivot keeps the rows'
    order), buckets in their own order within each setting."""
    rows = of_test_set(report, test_set).rows
    order = {r.setting: i for i, r in enumerate(ranked([r for r in rows if r.bucket == ALL]))}
    return dataclasses.replace(report, rows=sorted(rows, key=lambda r: order[r.setting]))


def ranking_table(rows: list[ReportRow]) -> list[str]:
    """One line per encoding of one test set and training group (`rows`: their whole-split rows)."""
    rows = ranked(rows)
    header = ["rank", "encoding", "seeds", "BLEU", "Δ BLEU vs baseline", "chrF", "parameters", "steps",
              "tested at step", "valid BLEU per 1k steps before it", "target tokens/s", "train minutes"]
    return markdown_table(
        header, [[rank, r.setting, str(r.seeds), score_cell(r.bleu, r.seeds), comparison_cell(r.compared.bleu, r.decides),
                  score_cell(r.chrf, r.seeds), number(r.parameters), number(r.steps, 0), str(r.tested_step or "–"),
                  r.convergence.cell(), number(r.target_tokens_per_s, 0), number(r.train_minutes, 1)]
                 for rank, r in zip(ranks(rows), rows)],
        ["--:", "---"] + ["--:"] * (len(header) - 2))


def per_test_set_and_group(report: Report, rows: list[ReportRow],
                           table: Callable[[list[ReportRow]], list[str]]) -> list[str]:
    """`table` of the rows of each test set and training group, under a `###` title naming them where there are
    several (the encodings sweep has one of each)."""
    names = test_set_names(report)
    lines = []
    for name in names:
        of_set = [r for r in rows if r.test_set == name]
        for group in sorted({r.group for r in of_set}):
            title = ", ".join(filter(None, [f"`{name}`" if len(names) > 1 else "", group]))
            lines += ([f"### {title}", ""] if title else []) + table([r for r in of_set if r.group == group])
            lines.append("")
    return lines


def ranking_section(report: Report) -> list[str]:
    intro = ("Ranked by the whole test split's BLEU (the point estimate: where two intervals overlap the order "
             f"between them is not shown). Δ: against the baseline ({report.baseline or 'none'}) trained the same "
             "way with the same seed, on the same sentences; the baseline's own Δ is –.")
    return [intro, ""] + per_test_set_and_group(report, [r for r in report.rows if r.bucket == ALL], ranking_table)


def by_length_section(report: Report) -> list[str]:
    """`## BLEU by length` per test set and training group, the encodings in ranked order."""
    names = test_set_names(report)
    lines = []
    for name in names:
        title = "BLEU by length" + (f" (`{name}`)" if len(names) > 1 else "")
        lines += pivot(in_ranked_order(report, name), lambda r: score_cell(r.bleu, r.seeds), title, name)
    return lines or ["## BLEU by length", "", "No job has a by_length report in its metrics.json: whole-split scores "
                     "only.", ""]


def bucket_ranking_table(rows: list[ReportRow], rules: Rules) -> list[str]:
    """Buckets as columns, ranks as lines: the encoding at that rank in that bucket and its BLEU."""
    buckets: dict[str, list[ReportRow]] = {}
    for r in sorted(rows, key=lambda r: (r.low is None, r.low or 0)):
        if r.bleu.value is not None:
            buckets.setdefault(r.bucket, []).append(r)
    columns = [ranked(cells) for cells in buckets.values()]
    header = ["rank"] + [(f"{LENGTH_LABELS[cells[0].lengths]}: " if cells[0].lengths else "")
                         + bucket_header(cells[0], rules) for cells in columns]
    lines = []
    for line in range(max(map(len, columns), default=0)):
        lines.append([str(line + 1)] + [f"{cells[line].setting} {score_cell(cells[line].bleu, cells[line].seeds)}"
                                        if line < len(cells) else "–" for cells in columns])
    return markdown_table(header, lines, ["--:"] + ["---"] * len(columns))


def extrapolation_section(report: Report, sweep_dir: Path, assets: Path, link: str) -> list[str]:
    words = trained_words([r for r in report.rows if r.bucket == ALL])
    lines = [f"## Length extrapolation: trained on {words}", "",
             f"From `{sweep_dir}` (its size and budget: see the top of the page). Every encoding is trained on "
             f"{words} only and tested on every length bucket; the buckets beyond the training lengths show how it "
             "extrapolates. Per bucket, the encodings from the highest BLEU down (ties by name); a bucket marked "
             "`too few` decides nothing.", ""]
    buckets = [r for r in report.rows if r.bucket != ALL]
    lines += per_test_set_and_group(report, buckets, lambda rows: bucket_ranking_table(rows, report.rules))
    if not buckets:
        lines += ["No job has a by_length report in its metrics.json: no ranking per bucket.", ""]
    else:
        lines += [f"Paired with the baseline ({report.baseline or 'none'}, trained on the same lengths with the same "
                  "seed) and tested at the same step, on the same sentences of each bucket: Δ BLEU, its 95% interval "
                  "and p (* Holm-corrected p < 0.05 within the test set's family; never on a bucket marked `too few`, nor on a "
                  "one-seed comparison, which is exploratory: its interval knows nothing of the spread between seeds; "
                  "jobs tested at another step than their baseline are not compared: see the notes). Overlapping intervals in the ranking above can still hide a clear paired difference.", ""]
        lines += pivot_per_test_set(report, paired_cell, "Length extrapolation: Δ BLEU vs baseline by length")
        lines += ["Hypothesis words per reference word in each bucket: below 1 a model stops early (BLEU's brevity "
                  "penalty then dominates), above 1 it runs on or repeats. It tells a model that ends its translation "
                  "at the lengths it was trained on from one that reaches the right length with the wrong words.", ""]
        lines += pivot_per_test_set(report, lambda r: number(r.length_ratio),
                                    "Length extrapolation: output length / reference length")
        if any(r.repeated_words is not None for r in buckets):
            lines += ["Percentage of output words identical to the word just before them (\"old old old\"), read from "
                      "the hypotheses: near 0 for fluent English. A model whose length ratio holds up while this "
                      "grows reaches the length by looping, not by translating.", ""]
            lines += pivot_per_test_set(report, lambda r: number(r.repeated_words),
                                        "Length extrapolation: repeated words in the output, %")
    return lines + pictures(sweep_dir / "report", assets, link, "extrapolation_")


def pivot_per_test_set(report: Report, cell: Callable[[ReportRow], str], title: str) -> list[str]:
    """A `## title (`test set`)` pivot (settings × length buckets, in ranked order) for each test set."""
    return [line for name in test_set_names(report)
            for line in pivot(in_ranked_order(report, name), cell, f"{title} (`{name}`)", name)]


def paired_cell(row: ReportRow) -> str:
    """Δ BLEU against the baseline; no star in a bucket too small to decide anything (its header says `too few`)."""
    return comparison_cell(row.compared.bleu, row.decides)


def pictures(report_dir: Path, assets: Path, link: str, prefix: str = "") -> list[str]:
    """Copies the report's pictures into `assets` (named prefix + name, so two sweeps' pictures never collide) and
    links them."""
    lines = []
    for name, alt in REPORT_PICTURES:
        source = report_dir / name
        if source.exists():
            shutil.copyfile(source, assets / f"{prefix}{name}")
            lines += [f"![{alt}]({link}/{prefix}{name})", ""]
    return lines


def notes(report: Report, sweep_dir: Path) -> list[str]:
    return [f"- `{sweep_dir}`: unfinished: {job}" for job in report.unfinished] + [
        f"- `{sweep_dir}`: {note}" for note in report.notes]


def encodings_markdown(report: Report, sweep_dir: Path, assets: Path, link: str,
                       extrapolation: Optional[tuple[Report, Path]] = None,
                       published: Optional[tuple[Report, Path]] = None,
                       longer: Optional[tuple[Report, Path]] = None) -> str:
    lines = ["# Positional encodings compared", "",
             f"Generated by `python -m translate.study encodings` from {provenance(report, sweep_dir)}."
             + (f" Length extrapolation from {provenance(*extrapolation)}." if extrapolation else "")
             + (f" Against published results from {provenance(*published)}." if published else ""), ""]
    if published:   # three seeds: the comparison a reader can draw conclusions from comes first
        lines += published_section(published[0], find_jobs(published[1]), str(published[1]))
    lines += ["## Exploratory: every encoding, one seed", "",
              f"The sections below compare every encoding at one seed each ({provenance(report, sweep_dir)}). A "
              "one-seed interval counts the test sentences' noise and nothing of the spread between seeds, which on "
              "these runs is about as large (docs/results.md): these rows are exploratory, with no star and no "
              "verdict word, a guide to which encodings deserve seeds, not a ranking.", "",
              "## Ranking on the whole test split", ""]
    lines += ranking_section(report)
    lines += by_length_section(report)
    plots = pictures(sweep_dir / "report", assets, link)
    lines += (["## Plots", ""] + plots) if plots else []
    if extrapolation:
        lines += extrapolation_section(*extrapolation, assets, link)
    if longer:
        lines += longer_inputs_section(longer[0], against_rope(*longer), longer[1])
    lines += ["## How to read the numbers", ""] + reading_rules(report) + [""]
    more = (notes(report, sweep_dir) + (notes(*extrapolation) if extrapolation else [])
            + (notes(*published) if published else []) + (notes(*longer) if longer else []))
    if more:
        lines += ["## Notes", ""] + more + [""]
    return "\n".join(lines)


def write_encodings_page(sweep_dir: Path, out: Path, extrapolation_dir: Optional[Path] = None,
                         readme: Optional[Path] = None, published_dir: Optional[Path] = None,
                         longer_dir: Optional[Path] = None) -> Path:
    """Writes `out` (e.g. docs/encodings_results.md) and its pictures into a folder beside it named after it. Both
    reports are read (or built) before anything is written, so a bad folder leaves the old page as it was.
    `longer_dir`: the encodings for longer inputs (longer_inputs.py)."""
    sweep_dir, out = Path(sweep_dir), Path(out)
    report = load_report(sweep_dir)
    extrapolation = (load_report(Path(extrapolation_dir)), Path(extrapolation_dir)) if extrapolation_dir else None
    published = (load_report(Path(published_dir)), Path(published_dir)) if published_dir else None
    longer = (load_report(Path(longer_dir)), Path(longer_dir)) if longer_dir else None
    assets = fresh_assets(out)
    atomic_write_text(out, encodings_markdown(report, sweep_dir, assets, assets.name, extrapolation, published,
                                              longer))
    if readme is not None and published:
        update_readme(Path(readme), "published",
                      published_readme_lines(published[0], find_jobs(published[1]), str(published[1])))
    return out
