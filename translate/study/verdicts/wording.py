"""The prose of the verdicts: how a Δ, the lengths it was read on, a group, an alignment metric and the rules are
written on the pages. Nothing here decides anything: claims.py decides, with these words."""
from __future__ import annotations

import re
from typing import Optional

from translate.analysis.significance import interval_text, p_text
from translate.analysis.sweep.rows import AlignmentRow, Quantity, SpanRow, WithinRow
from translate.analysis.sweep.rules import Rules
from translate.analysis.sweep.spans import LONG_MIN, SHORT_MAX
from translate.study.verdicts.verdict import (CONTRADICTED, HOLDS, INCONCLUSIVE, Family, Reading, Reference,
                                              Verdict)


def brief_group(group: str) -> str:
    """"words 1-9, base_cpu" from a training group's description (in_group gives all of it)."""
    words = re.search(r"words \d+-\d+", group or "")
    model = re.search(r"model=(\w+)", group or "")
    return ", ".join(filter(None, [words.group(0) if words else "all lengths", model.group(1) if model else ""]))



def in_group(group: str) -> str:
    """"trained on words 1-9"; a group trained on every length (train words all): "trained on every length"."""
    return f"trained on {group.removeprefix('train ').replace('words all', 'every length')}" if group else "all jobs"



def delta_text(r: SpanRow, family: Optional[Family] = None, index: Optional[int] = None) -> str:
    """"−2.69 [−3.86, −1.59] BLEU (p=0.002*; 90% [−3.65, −1.73]; −8% of 33.34)": Δ BLEU of a compared span."""
    star = family.star(index) if family is not None and index is not None else ""
    d = r.compared.bleu
    return (f"{interval_text(d.delta, d.low, d.high, unit='BLEU')} ({p_text(d.p)}{star}; 90% "
            f"[{d.low90:+.2f}, {d.high90:+.2f}]"
            + (f"; {d.relative_delta:+.0%} of {d.baseline:.2f}" if d.relative_delta is not None and d.baseline else "")
            + ")")



def lengths_text(r: SpanRow) -> str:
    """Output length beside BLEU: a model that stops early is told from one that orders words wrongly."""
    if r.bp is None:
        return ""
    text = f"length ratio {r.length_ratio:.2f}, BP {r.bp:.2f}"
    if r.compared is not None and r.compared.baseline_bp is not None:
        text += f" (baseline {r.compared.baseline_length_ratio:.2f}, {r.compared.baseline_bp:.2f})"
    return text



def where(r: SpanRow) -> str:
    """"`test`, trained on words 1-9, 1-9 words (n=2,494, 3 seeds, tested at step 3400; valid BLEU ...)": the span,
    and whether its models (and their baseline) were still learning when scored (rows.Convergence)."""
    steps = sorted({s for s in r.tested_steps or [] if s is not None})
    trend = r.convergence.describe()
    base = r.compared.baseline_convergence.brief() if r.compared is not None else ""
    if trend and base:
        trend += f"; baseline {base}"
    return (f"`{r.test_set}`, {in_group(r.group)}, {r.bucket.split()[-1]} words (n={r.sentences:,}, "
            f"{r.seeds} seed{'s' * (r.seeds != 1)}, tested at step {'/'.join(map(str, steps)) or '?'}"
            + (f"; {trend}" if trend else "") + ")")



def within_margin_text(margin: float, established: float) -> str:
    """"within ±1 BLEU (established ±0.59)": the margin of a BLEU TOST that showed "about the same", and the margin
    the data establish."""
    return f"within ±{margin:g} BLEU (established ±{established:.2f})"



def about_the_same_on_long_text(gap: Quantity, margin: float) -> str:
    """", about the same on long sentences (90% [-0.012, +0.031] inside ±0.05)": a gap the TOST at `margin` showed
    about the same."""
    return f", about the same on long sentences (90% [{gap.low90:+.3f}, {gap.high90:+.3f}] inside ±{margin:g})"



def equivalence_text(r: SpanRow, margin: float, significant: bool) -> str:
    """What the TOST and the difference test say, with the margin the data establish and what could be seen."""
    d = r.compared.bleu
    established, mdd = d.established_margin, d.mdd
    if d.equivalent:
        word = f"about the same: {within_margin_text(margin, established)}"
        return word + (", though a difference is detected" if significant else "")
    if significant:
        return f"different (detectable: ±{mdd:.2f})"
    needed = d.seeds_needed
    seeds = (f"; with this spread between seeds, {needed} seeds would show ±{margin:g} with 80% power" if needed else
             "; one seed: the spread between seeds is unknown" if r.seeds == 1 else
             f"; no number of seeds reaches ±{margin:g}: the test set itself is too noisy")
    return (f"inconclusive: the data establish only ±{established:.2f}, and a difference of ±{mdd:.2f} would be "
            f"needed to be seen (α = 0.05, 80% power){seeds}")



def delta_interval(r: Reading) -> str:
    """"-4.37 [-5.97, -2.78] BLEU" (Reading.digits)."""
    return interval_text(r.delta, r.low, r.high, r.digits, r.unit)


def condition_interval(r: Reading) -> str:
    """The reading's extra condition as delta_interval writes its Δ, in the reading's unit."""
    c = r.condition
    return interval_text(c.delta, c.low, c.high, r.digits, r.unit)


def condition_word(r: Reading) -> str:
    """"met" or "not met" where the reading was decided; else the reading's own word (pending, exploratory...)."""
    if r.word in (HOLDS, CONTRADICTED, INCONCLUSIVE):
        return "met" if r.condition.met else "not met"
    return r.word



def what_the_data_show(verdict: Verdict) -> str:
    """One plain sentence of the deciding Δs, each half's in turn: "short: -4.37 BLEU (-11% of the baseline); long:
    -8.94 BLEU (-30%)"; a half without runs says so; metrics shown beside the deciding one are named where they say
    otherwise (Verdict.dissent)."""
    parts = []
    for half in verdict.halves:
        readings = [r for r in half.readings if r.delta is not None]
        if not readings:
            parts.append(f"{half.name}: not run")
        for r in readings:
            relative = f" ({r.relative:+.0%} of the baseline)" if r.relative is not None else ""
            where_ = f" ({r.label})" if len(readings) > 1 else ""
            parts.append(f"{half.name}{where_}: {r.delta:+.{r.digits}f} {r.unit}{relative}")
    if verdict.dissent:
        parts.append("not every metric agrees (the others decide nothing): "
                     + "; ".join(verdict.dissent))
    return "; ".join(parts)



METRIC_NAMES = {"aer": "AER against silver links (lower is better)",
                "diagonal_share_normalised": "normalised diagonal share (higher is better)",
                "monotonicity": "Kendall τ of the most attended source position (higher is better)"}

SHORT_METRIC_NAMES = {"aer": "AER", "diagonal_share_normalised": "diagonal share", "monotonicity": "τ"}



def quantity_text(q: Quantity, star: str = "") -> str:
    return f"{interval_text(q.delta, q.low, q.high, 3)} ({p_text(q.p)}{star})"



def direction_text(name: str, said: tuple[str, str]) -> str:
    long, grows = said
    long_text = {"worse": "no PE aligns worse on long sentences", "better": "no PE aligns better on long sentences",
                 "not shown": "no difference shown on long sentences"}[long]
    grows_text = {"grows": "the gap grows from short to long", "shrinks": "the gap shrinks from short to long",
                  "not shown": "no change of the gap shown"}[grows]
    return f"{name}: {long_text}, {grows_text}"



def metric_text(r: AlignmentRow, pe: Reference, star_long: str = "", star_interaction: str = "",
                gold: bool = False) -> str:
    name = "AER against the human gold links (lower is better)" if gold and r.metric == "aer" else METRIC_NAMES[r.metric]
    return (f"{name}: {pe.name} {r.baseline_short:.3f} short, {r.baseline_long:.3f} long; no PE "
            f"{r.system_short:.3f}, {r.system_long:.3f}; no PE minus {pe.name}: short {quantity_text(r.gap_short)}, "
            f"long {quantity_text(r.gap_long, star_long)}, long − short "
            f"{quantity_text(r.gap_interaction, star_interaction)}")



def thresholds(rules: Rules, gold_aer_margin: float) -> str:
    return (f"each model is read on the lengths it was trained on, merged (short: at most {SHORT_MAX} French words, "
            f"long: from {LONG_MIN}); spans of fewer than {rules.min_bucket} sentences decide nothing; each claim is "
            f"decided as its halves: a half that predicts no difference holds when the 90% interval of Δ BLEU lies "
            f"inside ±{rules.margin:g} (TOST at α = 0.05) and is contradicted when the 95% interval lies wholly beyond "
            f"±{rules.margin:g}; a half that predicts a loss holds when the loss is shown (Holm-adjusted p < 0.05 within the "
            f"claim's deciding tests) and its extra condition is met ((b): Δ_long − Δ_short below 0, within one "
            f"model where models trained on every length were read on both, else between the groups; (c): the gap "
            f"grows from short to long sentences), and is contradicted when the opposite is shown or when about the "
            f"same is shown (its 90% interval inside ±{rules.margin:g} BLEU, or ±{gold_aer_margin:g} AER on the human "
            f"gold links); "
            f"anything else is inconclusive; a claim is supported only if every half holds, not supported as stated "
            f"if any half is contradicted, otherwise inconclusive; a half without runs is not run; a comparison of "
            f"one seed is exploratory and a comparison that pairs fewer seeds than its sweep planned is pending: "
            f"their figures are shown, with no word and no star")



def within_delta_text(q: Quantity, unit: str, star: str = "", digits: int = 2) -> str:
    """"−5.21 [−6.80, −3.62] BLEU (p<0.001*)": a within-model Δ or interaction."""
    return f"{interval_text(q.delta, q.low, q.high, digits, unit)} ({p_text(q.p)}{star})"



def within_where(r: WithinRow, side: str) -> str:
    """"`test`, 1-10 words (n=2,494; no PE 41.20, sinusoidal 41.51 BLEU), 8 seeds, trained on all lengths"."""
    test_set, span, sentences, system, baseline = (
        (r.short_test_set, r.short_span, r.short_sentences, r.system_short, r.baseline_short) if side == "short" else
        (r.long_test_set, r.long_span, r.long_sentences, r.system_long, r.baseline_long))
    return (f"`{test_set}`, {span} words (n={sentences:,}; BLEU {system:.2f} against {baseline:.2f}), "
            f"{r.seeds} seed{'s' * (r.seeds != 1)}, {in_group(r.group)}")



def tost_text(q: Quantity, margin: float, unit: str, significant: bool) -> str:
    """What the TOST and the difference test say of a within-model Δ."""
    if q.low90 is not None and -margin < q.low90 and q.high90 < margin:
        return (f"about the same: within ±{margin:g} {unit} (90% [{q.low90:+.2f}, {q.high90:+.2f}])"
                + (", though a difference is detected" if significant else ""))
    if significant:
        return f"different (detectable: ±{q.mdd:.2f})"
    return (f"inconclusive: the 90% interval [{q.low90:+.2f}, {q.high90:+.2f}] is not inside ±{margin:g} "
            f"(detectable: ±{q.mdd:.2f})")
