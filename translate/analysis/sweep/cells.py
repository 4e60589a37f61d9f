"""The cells of the report's markdown tables, shared by report.md and the pages that quote it: a number, a score
with its spread, a Δ with its interval and stars, a Δ with its word, a bucket's header, a table."""
from __future__ import annotations

from typing import Optional

from translate.analysis.sweep.rows import Delta, ReportRow, Score
from translate.analysis.sweep.rules import Rules, verdict_word
from translate.analysis.significance import interval_text, p_text


# A bucket's place against the lengths a job trained on, as column headers say it.
LENGTH_LABELS = {"trained": "trained lengths", "partly": "partly trained", "shorter": "shorter than training",
                 "beyond": "beyond training lengths"}


def number(value, digits: int = 2) -> str:
    if value is None:
        return "–"
    return f"{value:,.{digits}f}" if isinstance(value, float) else f"{value:,}"


def value_range(values: list, digits: int = 2) -> str:
    """The jobs' values of one quantity: "600" when they read the same, "580–600" otherwise, "–" when none is known
    (an evaluation-only job, e.g. a test-time control, has no steps)."""
    present = sorted(v for v in values if v is not None)
    if not present:
        return "–"
    low, high = number(present[0], digits), number(present[-1], digits)
    return low if low == high else f"{low}–{high}"


def score_cell(score: Score, seeds: Optional[int]) -> str:
    """"23.41 [21.02, 25.90]" with one seed, "23.41 ± 0.80" with several."""
    if score.value is None:
        return "–"
    if seeds > 1:
        return f"{score.value:.2f} ± {score.std:.2f}"
    return f"{score.value:.2f} [{score.low:.2f}, {score.high:.2f}]" if score.low is not None else f"{score.value:.2f}"


def comparison_cell(delta: Optional[Delta], decides: Optional[bool] = True) -> str:
    """"-1.20 [-2.31, -0.08] (p=0.030)*": Δ, its 95% interval and p; the star when the Holm-adjusted p < 0.05; a
    bucket too small to decide gets Δ and its interval only."""
    if delta is None or delta.delta is None:
        return "–"
    text = (interval_text(delta.delta, delta.low, delta.high) if delta.low is not None and delta.high is not None
            else f"{delta.delta:+.2f}")
    if decides is False:   # too few sentences: no test, so no p (a bootstrap over a handful of sentences is degenerate)
        return text
    star = "*" if delta.holm is not None and delta.holm < 0.05 and decides else ""
    return f"{text} ({p_text(delta.p)})" + star


def worded_cell(delta: Optional[Delta], decides_: Optional[bool], margin: float) -> str:
    """comparison_cell with the verdict word of the report's rules (rules.verdict_word): "… (p < 0.001)* worse"."""
    cell = comparison_cell(delta, decides_)
    if delta is None or delta.delta is None:
        return cell
    return f"{cell} {verdict_word(delta, bool(decides_), margin)}"


def markdown_table(header: list[str], lines: list[list[str]], align: Optional[list[str]] = None) -> list[str]:
    align = align or ["---"] + ["--:"] * (len(header) - 1)
    return ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"] + [
        "| " + " | ".join(line) + " |" for line in lines]


def bucket_header(row: ReportRow, rules: Rules) -> str:
    """"11-15 (n=241)"; "21+ (n=5, too few)" below the rules' min_bucket."""
    return f"{row.bucket} (n={row.sentences}" + ("" if rules.decides(row.sentences) else ", too few") + ")"


def alignment_cell(row: ReportRow) -> str:
    """"0.41 [0.38, 0.44], τ 0.62, AER 0.35": normalised diagonal share with its interval, monotonicity, and AER
    where recorded; the raw share where a run predates the normalised one."""
    value = row.diagonal_share_normalised
    if value is None:
        return number(row.diagonal_share)
    low, high = row.diagonal_share_normalised_low, row.diagonal_share_normalised_high
    text = f"{value:.2f}" + (f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else "")
    tau, aer = row.monotonicity, row.aer
    return text + (f", τ {tau:.2f}" if tau is not None else "") + (f", AER {aer:.2f}" if aer is not None else "")


def words_cell(row: ReportRow) -> str:
    """"acc 91.2, F 83.1, τ 0.71": teacher-forced token accuracy and unigram F in points, word-order τ; "–" in rows
    of runs from before they were recorded."""
    parts = [f"{label} {value * scale:.{digits}f}" for label, value, scale, digits in (
        ("acc", row.token_accuracy, 100, 1), ("F", row.unigram_f, 100, 1), ("τ", row.order_tau, 1, 2))
        if value is not None]
    return ", ".join(parts) or "–"


def devices(rows: list[ReportRow]) -> str:
    """The devices that trained the rows' jobs, as the pages name them: "CPU, fp32" (one: find_jobs refuses more);
    rows of test-time controls (no steps) name what decoded them and are left out."""
    return "; ".join(sorted({r.device for r in rows if r.device and r.trained})) or "a device not named"
