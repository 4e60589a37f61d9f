"""report.md: the tables people read (the whole split per setting, each bucket per setting, the rules that word
them), built from the report's rows and the cells of cells.py."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from translate.analysis.sweep.aggregate import ALL, Report
from translate.analysis.sweep.cells import (LENGTH_LABELS, alignment_cell, bucket_header, comparison_cell, markdown_table,
                                            number, score_cell, worded_cell)
from translate.analysis.sweep.rows import Quantity, ReportRow
from translate.analysis.significance import interval_text, p_text
from translate.analysis.sweep.spans import LONG_MIN, SHORT_MAX
from translate.io import atomic_write_text


def pivot(report: Report, cell: Callable[[ReportRow], str], title: str, test_set: str | None = None) -> list[str]:
    """Settings as rows, length buckets as columns; per training group, the buckets of lengths it was trained on
    first, then those beyond (extrapolation), so the two are never read as one."""
    rows = [r for r in report.rows if test_set is None or r.test_set == test_set]
    out = []
    for group in sorted({r.group for r in rows}):
        in_group = [r for r in rows if r.group == group and r.bucket != ALL]
        if not in_group:
            continue
        headers: dict[str, str] = {}
        for kind in ("trained", "partly", "shorter", "beyond", None):
            for r in in_group:
                if r.lengths == kind and r.bucket not in headers:
                    headers[r.bucket] = bucket_header(r, report.rules)
        kinds = {r.bucket: r.lengths for r in in_group}
        by_setting: dict[str, dict[str, ReportRow]] = {}
        for r in in_group:
            by_setting.setdefault(r.setting, {})[r.bucket] = r
        names = [f"{LENGTH_LABELS[kinds[b]]}: {h}" if kinds[b] else h for b, h in headers.items()]
        lines = [[setting] + [cell(cells[b]) if b in cells else "–" for b in headers]
                 for setting, cells in by_setting.items()]
        out += [f"## {title}" + (f", {group}" if group else ""), ""] + markdown_table(["setting"] + names, lines) + [""]
    return out


def whole_split_table(report: Report, test_set: str | None = None, words: bool = False) -> list[str]:
    """The whole-test-set rows; words: the Δ BLEU cells carry their verdict word (the sweep report; the results page
    words its verdicts itself)."""
    def delta_bleu(r: ReportRow) -> str:
        return (worded_cell(r.compared.bleu, r.decides, report.rules.margin) if words
                else comparison_cell(r.compared.bleu, r.decides))
    return markdown_table(
        ["setting", "seeds", "BLEU", "chrF", "Δ BLEU vs baseline", "Δ chrF", "Δ_long − Δ_short BLEU", "parameters",
         "target tokens/s", "train minutes", "steps", "tested at step", "valid BLEU per 1k steps before it"],
        [[r.setting, str(r.seeds), score_cell(r.bleu, r.seeds), score_cell(r.chrf, r.seeds),
          delta_bleu(r), comparison_cell(r.compared.chrf, r.decides),
          comparison_cell(r.compared.interaction_bleu, r.decides), number(r.parameters),
          number(r.target_tokens_per_s, 0), number(r.train_minutes, 1), number(r.steps, 0), str(r.tested_step or "–"),
          r.convergence.cell()]
         for r in report.rows if r.bucket == ALL and (test_set is None or r.test_set == test_set)])


def test_set_names(report: Report) -> list[str]:
    return list(dict.fromkeys(r.test_set for r in report.rows))


def reading_rules(report: Report) -> list[str]:
    """How the intervals, tests and stars were made: the same text on the sweep report and the results page."""
    rules = report.rules
    return [
        "- Scores: sacreBLEU BLEU and chrF on detokenized, cased text. `[lo, hi]`: 95% bootstrap interval (one "
        "seed): of a whole test set, over the report's group resamples below; of a length bucket, the run's own "
        "length report (`report.bootstrap_samples` sentence resamples, 1,000 by default). `± x`: standard "
        "deviation over seeds, the value being their mean.",
        f"- Bootstrap: {rules.samples:,} samples of *groups* of test pairs (pairs sharing an English or a French "
        "sentence are drawn together; they are not independent), BLEU and chrF recomputed from summed sentence "
        "statistics.",
        "- Δ: setting minus the baseline trained in the same context with the same seed, on the same sentences. "
        "`[lo, hi]`: 95% interval of Δ. One seed: paired group bootstrap; the interval is the k-th smallest and "
        "k-th largest resampled Δ (k = ⌈0.025(B+1) − 1⌉) and p = 2(1 + n)/(B + 1), n the resamples on the far side "
        "of 0, so p < 0.05 exactly when the interval excludes 0. Several seeds: Δ is the mean of the per-seed deltas, the interval a t-interval whose "
        "squared standard error adds the spread between seeds (s²/S, each seed's own test-set noise in it) and the "
        "test-set noise all seeds share (the mean covariance of their Δs over the same resamples); degrees of "
        "freedom by Satterthwaite with the seed variance at its 70% upper confidence bound (S − 1 when the seeds' "
        "spread dominates; checked by simulation in docs/sweeps.md); seeds are never pooled as more sentences.",
        "- Δ_long − Δ_short: how much more the setting loses on long sentences (from "
        f"{LONG_MIN} words) than on short ones (up to {SHORT_MAX}), with its own interval (both on the same "
        "resamples).",
        "- p: `< 0.001` below a thousandth or at the bootstrap floor 2/(B+1); `*`: Holm-adjusted p < 0.05 within "
        "its family: the tests of one test set on this page that decide (BLEU and chrF separately); a bucket of "
        "fewer than the minimum sentences is in no family and never starred.",
        f"- Buckets of fewer than {rules.min_bucket} sentences (`too few`) are shown but decide no verdict; columns "
        "are split into lengths the models were trained on, lengths shorter than those and lengths beyond them "
        "(extrapolation); a bucket too small to decide shows Δ and its interval without a p.",
        "- Diagonal share, normalised: (s − c)/(1 − c), s the cross-attention mass within ±1 source token of the "
        "monotone diagonal while reading the reference, c the share of uniform attention (1.0: monotone, 0: no "
        "better than uniform, at every length). Monotonicity: Kendall τ between target position and the most "
        "attended source position.",
        "- Plots: one line per encoding/ablation, one panel per other setting that varies; grey: the buckets "
        "holding lengths the models were trained on.",
        "- Valid BLEU per 1k steps before it: the least-squares slope of valid BLEU on step over the validations of "
        "the last half of the steps up to the tested step (per 1,000 steps, mean over seeds), and in how many seeds it "
        "was shown still rising (the slope's 95% t-interval above 0; with few validations the interval is wide, so "
        "a steep slope may not be shown; two validations give no interval). A Δ between a model still rising and "
        "one that is not is a Δ at this budget: more steps would move it. The validations score one fixed valid "
        "set, so the interval describes the curve's wobble between validations, not sentence sampling.",
        "- Target tokens/s and train minutes: measured in each run, with whatever else shared the machine (sweeps "
        "run several jobs at once); they say what budget a job had, not how fast an encoding is: "
        "`scripts/bench_encodings.py` times the encodings against each other on the same batches.",
        "- Every row, with its run folders: report.csv; the same as data: report.json."]


def markdown_text(report: Report, name: str, images: list[tuple[str, str]]) -> str:
    whole = [r for r in report.rows if r.bucket == ALL]
    names = test_set_names(report)
    lines = [f"# Sweep report: {name}", "",
             f"{len(report.settings)} settings, {len({j for r in whole for j in r.jobs.split()})} finished jobs"
             + (f", {len(report.unfinished)} unfinished ({', '.join(report.unfinished)})" if report.unfinished
                else "") + f". Baseline of the paired tests: {report.baseline or '–'}.", ""]
    for test_set in names:
        title = "" if len(names) == 1 else f" ({test_set})"
        lines += [f"## Whole test set{title}", ""] + whole_split_table(report, test_set, words=True) + [""]
        lines += pivot(report, lambda r: score_cell(r.bleu, r.seeds), f"BLEU by length{title}", test_set)
        lines += pivot(report, lambda r: score_cell(r.chrf, r.seeds), f"chrF by length{title}", test_set)
        lines += pivot(report, lambda r: worded_cell(r.compared.bleu, r.decides, report.rules.margin),
                       f"Δ BLEU against the baseline by length{title}", test_set)
        lines += pivot(report, alignment_cell, f"Cross-attention alignment by length{title}", test_set)
    lines += within_table(report)
    lines += [f"![{alt}]({path})" for alt, path in images]
    lines += ["", "## How to read this", ""] + reading_rules(report) + [verdict_words_rule(report)]
    if report.notes:
        lines += ["", "## Notes", ""] + [f"- {note}" for note in report.notes]
    return "\n".join(lines) + "\n"


def within_table(report: Report) -> list[str]:
    """Models trained on every length, each read on its short and its long sentences (within.py): one line per
    setting and metric; [] when the sweep has none."""
    if not report.within:
        return []

    def quantity(q: Quantity, digits: int) -> str:
        return f"{interval_text(q.delta, q.low, q.high, digits)} ({p_text(q.p)})"
    first = report.within[0]
    lines = []
    for r in report.within:
        digits = 3 if r.metric == "order_tau" else 2   # τ in [-1, 1]; the others in points
        lines.append([r.setting, r.metric, str(r.seeds), f"{r.system_short:.{digits}f} vs {r.baseline_short:.{digits}f}",
                      quantity(r.delta_short, digits), f"{r.system_long:.{digits}f} vs {r.baseline_long:.{digits}f}",
                      quantity(r.delta_long, digits), quantity(r.interaction, digits)])
    return ["## One model on its short and its long sentences", "",
            f"Each model trained on every length, read on its short sentences (`{first.short_test_set}`, "
            f"{first.short_span} words) and its long ones (`{first.long_test_set}`, {first.long_span} words) against "
            f"the baseline of its seed; the interaction is Δ_long − Δ_short paired by seed (unadjusted intervals). "
            f"Token accuracy and unigram F in points.", ""] + markdown_table(
        ["setting", "metric", "seeds", "short: model vs baseline", "Δ short", "long: model vs baseline", "Δ long",
         "Δ_long − Δ_short"], lines) + [""]


def verdict_words_rule(report: Report) -> str:
    return (f"- Words after Δ BLEU: `better`/`worse`: the star (Holm-adjusted p < 0.05); `about the same`: two "
            f"one-sided tests at α = 0.05 pass, the 90% interval of Δ inside ±{report.rules.margin:g} BLEU "
            f"(`report.equivalence_margin`); `inconclusive`: neither, so the data cannot tell; `too few`: a bucket "
            f"under {report.rules.min_bucket} sentences; `one seed`: a comparison of one seed, exploratory (its "
            f"interval knows nothing of the spread between seeds); `no spread: decides nothing`: an interval of no "
            f"width (e.g. both models perfect, or both at 0), where nothing could differ.")


def write_report_markdown(report: Report, out_dir: Path, name: str, images: list[tuple[str, str]]) -> None:
    atomic_write_text(out_dir / "report.md", markdown_text(report, name, images))
