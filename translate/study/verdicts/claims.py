"""The source notes' three claims, each stated as its halves and decided on the lengths each half is about.

(a) zeroing PE dims >= 400 barely changes BLEU on short sentences, and costs BLEU on long ones;
(b) without PE short sentences translate about as well, long ones much worse;
(c) with PE the cross-attention lines up along the diagonal on long sentences, without it it does not.

Each model is read on the lengths it was trained on, merged into one span (spans.py): the short group (e.g. 1-9
French words) on the primary test set's short sentences, the long group (e.g. 11-17) on the long sentences of the
reserved long test set when the runs have it. Every half gets one word (docs/preregistration.md, "Words"):
- a half that predicts no difference: holds when the 90% interval of Δ lies inside ±margin (TOST at α = 0.05),
  contradicted when the 95% interval lies wholly beyond the margin on one side, otherwise inconclusive;
- a half that predicts a difference: holds when the difference is shown in the predicted direction (Holm-adjusted
  p < 0.05 within the claim, the 95% interval wholly on that side of 0) and its extra condition is met;
  contradicted when it is shown in the other direction, or shown about the same (TOST, where a margin applies);
  otherwise inconclusive;
- a half without runs: not run; one whose comparisons pair fewer seeds than planned: pending (no word); one read on
  a single seed: exploratory (no word).
A claim is supported only if every half holds, not supported as stated if any half is contradicted, otherwise
inconclusive (pending while a half waits for its seeds). Holm's family of a claim holds its deciding tests only:
each half's primary metric on its primary test set (and the extra condition's test). Lines of other test sets and
secondary metrics are shown with unadjusted intervals and decide nothing. (c) is decided on its primary metric (AER
where recorded), every alignment metric is shown, and the line says where they disagree.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from translate.analysis.sweep.rows import AlignmentRow, Delta, Quantity, RowSetting, SpanRow
from translate.analysis.sweep.rules import (EXPLORATORY, Rules, exploratory,
                                            interim_text, no_spread, pending)
from translate.analysis.significance import holm, independent_contrast, p_text, within
from translate.analysis.sweep.spans import LONG_MIN, SHORT_MAX

LEVEL = 0.05
LONG_TEST_SET = "long_test"   # the reserved real long sentences (translate/data/long_reserve.py)


@dataclass
class Verdict:
    claim: str
    # supported, not supported as stated, inconclusive, not measured, a pending text; a control: its own word
    status: str = "not measured"
    details: list[str] = field(default_factory=list)   # the lines behind the verdict, as the page shows them
    family: str = ""                # what its stars were adjusted over
    halves: list["Half"] = field(default_factory=list)
    control: str = ""               # a control's ablation; its deciding readings in `shown` (a control has no halves)
    shown: list["Reading"] = field(default_factory=list)

    @property
    def headline(self) -> str:
        """"supported", or with halves "not supported as stated (short half contradicted, long half holds)"."""
        return f"{self.status} ({halves_text(self.halves)})" if self.halves else self.status

    def add(self, text: str) -> None:
        self.details.append(text)


@dataclass(frozen=True)
class Reference:
    """The PE a claim is read against: sinusoidal (the notes' own) or another encoding used as is, so the page can
    say whether (b) and (c) hold for PE in general or for sinusoidal PE only."""

    name: str

    def matches(self, r: RowSetting) -> bool:
        return r.encoding == self.name and r.ablation == "none"


SINUSOIDAL = Reference("sinusoidal")


def is_sinusoidal(r: RowSetting) -> bool:
    return SINUSOIDAL.matches(r)


def is_zero_dims(r: RowSetting) -> bool:
    return r.encoding == "sinusoidal" and r.ablation == "zero_dims"


def is_nope(r: RowSetting) -> bool:
    return (r.encoding == "none" and r.ablation == "none") or r.ablation == "remove"


def is_short_span(r: SpanRow) -> bool:
    return r.span == "trained" and r.high is not None and r.high <= SHORT_MAX


def is_long_span(r: SpanRow) -> bool:
    return r.span == "trained" and r.low >= LONG_MIN


def decides(r: SpanRow, rules: Rules) -> bool:
    return rules.decides(r.sentences)


def brief_group(group: str) -> str:
    """"words 1-9, base_cpu" from a training group's description (in_group gives all of it)."""
    words = re.search(r"words \d+-\d+", group or "")
    model = re.search(r"model=(\w+)", group or "")
    return ", ".join(filter(None, [words.group(0) if words else "all lengths", model.group(1) if model else ""]))


def in_group(group: str) -> str:
    return f"trained on {group.removeprefix('train ')}" if group else "all jobs"


class Family:
    """The tests that decide one claim on one page: Holm over them, and the stars read the adjusted p."""

    def __init__(self, claim: str) -> None:
        self.claim, self.p_values = claim, []

    def add(self, p: Optional[float]) -> int:
        self.p_values.append(p)
        return len(self.p_values) - 1

    def adjusted(self, index: int) -> Optional[float]:
        return holm(self.p_values)[index]

    def significant(self, index: int) -> bool:
        adjusted = self.adjusted(index)
        return adjusted is not None and adjusted < LEVEL

    def star(self, index: int) -> str:
        return "*" if self.significant(index) else ""

    def describe(self) -> str:
        tests = sum(p is not None for p in self.p_values)
        if not tests:
            return ""
        return f"* Holm-adjusted p < {LEVEL} over the {tests} test{'s' * (tests != 1)} of claim {self.claim} on this page"


def delta_text(r: SpanRow, family: Optional[Family] = None, index: Optional[int] = None) -> str:
    """"−2.69 [−3.86, −1.59] BLEU (p=0.002*; 90% [−3.65, −1.73]; −8% of 33.34)": Δ BLEU of a compared span."""
    star = family.star(index) if family is not None and index is not None else ""
    d = r.compared.bleu
    return (f"{d.delta:+.2f} [{d.low:+.2f}, {d.high:+.2f}] BLEU ({p_text(d.p)}{star}; 90% "
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


def equivalence_text(r: SpanRow, margin: float, significant: bool) -> str:
    """What the TOST and the difference test say, with the margin the data establish and what could be seen."""
    d = r.compared.bleu
    established, mdd = d.established_margin, d.mdd
    if d.equivalent:
        word = f"about the same: within ±{margin:g} BLEU (established ±{established:.2f})"
        return word + (", though a difference is detected" if significant else "")
    if significant:
        return f"different (detectable: ±{mdd:.2f})"
    needed = d.seeds_needed
    seeds = (f"; with this spread between seeds, {needed} seeds would show ±{margin:g} with 80% power" if needed else
             "; one seed: the spread between seeds is unknown" if r.seeds == 1 else
             f"; no number of seeds reaches ±{margin:g}: the test set itself is too noisy")
    return (f"inconclusive: the data establish only ±{established:.2f}, and a difference of ±{mdd:.2f} would be "
            f"needed to be seen (α = 0.05, 80% power){seeds}")


def cells(spans: list[SpanRow], which: Callable[[SpanRow], bool], span: Callable[[SpanRow], bool]) -> list[SpanRow]:
    """The compared spans of the settings `which` picks, on the lengths `span` picks."""
    return [r for r in spans if which(r) and span(r) and r.compared is not None]


HOLDS, CONTRADICTED, INCONCLUSIVE, NOT_RUN = "holds", "contradicted", "inconclusive", "not run"


def no_difference_word(d: Delta, margin: float) -> str:
    """The word of a half that predicts no difference beyond ±margin (a zero-width interval decides nothing)."""
    if no_spread(d):
        return INCONCLUSIVE
    if within(d.low90, d.high90, margin):
        return HOLDS
    if d.low > margin or d.high < -margin:
        return CONTRADICTED
    return INCONCLUSIVE


def difference_word(d: Delta | Quantity, sign: int, shown: bool, extra: bool = True,
                    margin: Optional[float] = None) -> str:
    """The word of a half that predicts a difference of `sign` (−1: the system lower): `shown` is its test after
    Holm; `extra` the half's extra condition; `margin`, where one applies, lets "about the same" contradict it."""
    if shown and d.delta * sign > 0:
        return HOLDS if extra else INCONCLUSIVE
    if shown and d.delta * sign < 0:
        return CONTRADICTED
    if margin is not None and within(d.low90, d.high90, margin):
        return CONTRADICTED
    return INCONCLUSIVE


@dataclass
class Reading:
    """One deciding cell of a half: its word and its Δ with the 95% interval, as the README table and the forest
    plot show it."""

    word: str
    label: str                       # e.g. "`test`, trained on words 1-9"
    delta: Optional[float] = None
    low: Optional[float] = None
    high: Optional[float] = None
    unit: str = "BLEU"
    relative: Optional[float] = None  # Δ relative to the baseline's score

    @property
    def digits(self) -> int:
        """Two decimals for BLEU, three for an alignment metric."""
        return 2 if self.unit == "BLEU" else 3


@dataclass
class Half:
    """One half of a claim: what it says, and its readings (none: not run)."""

    name: str                        # "short", "long"
    readings: list[Reading] = field(default_factory=list)

    @property
    def word(self) -> str:
        words = [r.word for r in self.readings]
        if not words:
            return NOT_RUN
        waiting = [w for w in words if w.startswith("pending")]
        if waiting:
            return waiting[0]
        if CONTRADICTED in words:
            return CONTRADICTED
        if all(w == HOLDS for w in words):
            return HOLDS
        return EXPLORATORY if all(w == EXPLORATORY for w in words) else INCONCLUSIVE


def claim_status(halves: list[Half]) -> str:
    """supported / not supported as stated / inconclusive, or the first half's pending text."""
    words = [h.word for h in halves]
    waiting = [w for w in words if w.startswith("pending")]
    if waiting:
        return waiting[0]
    if all(w == NOT_RUN for w in words):
        return "not measured"
    if all(w == HOLDS for w in words):
        return "supported"
    return "not supported as stated" if CONTRADICTED in words else "inconclusive"


def delta_interval(r: Reading) -> str:
    """"-4.37 [-5.97, -2.78] BLEU" (Reading.digits)."""
    digits = r.digits
    return f"{r.delta:+.{digits}f} [{r.low:+.{digits}f}, {r.high:+.{digits}f}] {r.unit}"


def what_the_data_show(verdict: Verdict) -> str:
    """One plain sentence of the deciding Δs, each half's in turn: "short: -4.37 BLEU (-11% of the baseline); long:
    -8.94 BLEU (-30%)"; a half without runs says so."""
    parts = []
    for half in verdict.halves:
        readings = [r for r in half.readings if r.delta is not None]
        if not readings:
            parts.append(f"{half.name}: not run")
        for r in readings:
            relative = f" ({r.relative:+.0%} of the baseline)" if r.relative is not None else ""
            where_ = f" ({r.label})" if len(readings) > 1 else ""
            parts.append(f"{half.name}{where_}: {r.delta:+.{r.digits}f} {r.unit}{relative}")
    return "; ".join(parts)


def halves_text(halves: list[Half]) -> str:
    """"short half holds, long half not run": each half's word, in the claim's order."""
    return ", ".join(f"{h.name} half {h.word}" for h in halves)


def span_word(r: SpanRow, rules: Rules, word: Callable[[], str]) -> Optional[str]:
    """The word of a deciding span: None when too few sentences decide; the pending text or EXPLORATORY before
    `word` is asked."""
    if not decides(r, rules):
        return None
    return pending(r) or (EXPLORATORY if exploratory(r) else word())


def span_reading(r: SpanRow, word: str) -> Reading:
    d = r.compared.bleu
    return Reading(word, f"`{r.test_set}`, trained on {brief_group(r.group)}", d.delta, d.low, d.high, "BLEU",
                   d.relative_delta)


def zero_dims_claim(spans: list[SpanRow], test_set: Optional[str], rules: Rules) -> Verdict:
    """Claim (a): its short half on the primary test set's short spans (no difference within ±margin), its long
    half on the long spans of the reserved long test set (zeroing costs BLEU)."""
    margin = rules.margin
    verdict = Verdict("(a) Zeroing PE dimensions ≥ 400 barely changes BLEU on short sentences, and costs BLEU on long "
                      "ones.")
    family = Family("(a)")
    short, long = Half("short"), Half("long")
    verdict.halves = [short, long]
    found = cells(spans, is_zero_dims, is_short_span) + cells(spans, is_zero_dims, is_long_span)

    def primary(r: SpanRow) -> bool:
        return r.test_set == (test_set if is_short_span(r) else LONG_TEST_SET)

    deciding = [primary(r) and decides(r, rules) and not pending(r) and not exploratory(r) for r in found]
    indices = [family.add(r.compared.bleu.p if d else None) for r, d in zip(found, deciding)]
    for r, index in zip(found, indices):
        d, shown = r.compared.bleu, family.significant(index)
        if is_short_span(r):
            word = span_word(r, rules, lambda: no_difference_word(d, margin))
            text = equivalence_text(r, margin, shown)
        else:
            word = span_word(r, rules, lambda: difference_word(d, -1, shown, margin=margin))
            text = "worse" if shown and d.delta < 0 else "not shown to be worse"
        if word is not None and primary(r):
            (short if is_short_span(r) else long).readings.append(span_reading(r, word))
        text = ("too few to decide" if word is None else interim_text(word) if word.startswith("pending") else
                EXPLORATORY if word == EXPLORATORY else f"{text}: {word}" if primary(r) else
                f"{text} (decides nothing: not this half's test set)")
        verdict.add(f"{short.name if is_short_span(r) else long.name}, {where(r)}: zero_dims minus sinusoidal "
                    f"{delta_text(r, family, index)}; {text}; {lengths_text(r)}.")
    if not long.readings:
        verdict.add(f"long: not run (sinusoidal jobs with PE dimensions ≥ 400 zeroed and plain sinusoidal jobs of the "
                    f"same model and seeds, trained on sentences of {LONG_MIN}+ words, tested on `{LONG_TEST_SET}`).")
    if not short.readings and not found:
        verdict.add(f"short: not run (zero_dims and sinusoidal jobs trained on at most {SHORT_MAX} words).")
    verdict.status = claim_status(verdict.halves)
    verdict.family = family.describe()
    return verdict


def long_cell(long: list[SpanRow], setting: str) -> Optional[SpanRow]:
    """The long group's cell on the reserved long test set, else on the test set it has."""
    mine = [r for r in long if r.setting == setting]
    return next((r for r in mine if r.test_set == LONG_TEST_SET), mine[0] if mine else None)


def no_pe_claim(spans: list[SpanRow], test_set: Optional[str], rules: Rules, pe: Reference = SINUSOIDAL) -> Verdict:
    """Claim (b) with `pe` as the PE: the spans' Δ must be against `pe` (a report whose baseline is `pe`). Short half:
    no difference within ±margin; long half: no PE loses BLEU, and loses more than on short sentences (the contrast
    Δ_long − Δ_short between the groups below 0)."""
    margin = rules.margin
    verdict = Verdict("(b) Without PE, short sentences translate about as well, long ones much worse.")
    family = Family("(b)")
    short_half, long_half = Half("short"), Half("long")
    verdict.halves = [short_half, long_half]
    short = [r for r in cells(spans, is_nope, is_short_span) if r.test_set == test_set]
    long = cells(spans, is_nope, is_long_span)
    long_settings = list(dict.fromkeys(r.setting for r in long))
    if not short or not long_settings:
        verdict.add(f"not measured: it needs no-PE and {pe.name} jobs trained on short sentences (at most "
                    f"{SHORT_MAX} words) and on long ones (from {LONG_MIN}), each tested on its own lengths")
        verdict.status = claim_status(verdict.halves)
        return verdict
    for s in short:
        for setting in long_settings:
            lg = long_cell(long, setting)
            waiting = pending(s) or pending(lg)
            enough_sentences = decides(s, rules) and decides(lg, rules)
            one = exploratory(s) or exploratory(lg)
            deciding = enough_sentences and not waiting and not one
            contrast = independent_contrast(s.compared.bleu.difference(), lg.compared.bleu.difference())
            i_short = family.add(s.compared.bleu.p if deciding else None)
            i_long = family.add(lg.compared.bleu.p if deciding else None)
            i_contrast = family.add(contrast.p if deciding else None)
            long_worse = family.significant(i_long) and lg.compared.bleu.delta < 0
            contrast_worse = family.significant(i_contrast) and contrast.delta < 0
            if enough_sentences:
                short_word = waiting or (EXPLORATORY if one else no_difference_word(s.compared.bleu, margin))
                long_word = waiting or (EXPLORATORY if one else difference_word(
                    lg.compared.bleu, -1, family.significant(i_long), contrast_worse, margin))
                short_half.readings.append(span_reading(s, short_word))
                long_half.readings.append(span_reading(lg, long_word))
            else:
                short_word = long_word = "too few to decide"
            if waiting and enough_sentences:
                verdict.add(f"{interim_text(waiting)}.")
            interim = bool(waiting) or one or not enough_sentences
            short_text = (short_word if interim else
                          f"{equivalence_text(s, margin, family.significant(i_short))}: {short_word}")
            long_text = long_word if interim else f"{'worse' if long_worse else 'not shown to be worse'}: {long_word}"
            verdict.add(f"short, {where(s)}: no PE minus {pe.name} {delta_text(s, family, i_short)}; {short_text}; "
                        f"{lengths_text(s)}.")
            verdict.add(f"long, {where(lg)}: {delta_text(lg, family, i_long)}; {long_text}; {lengths_text(lg)}.")
            verdict.add(f"Δ_long − Δ_short between the two groups (the long half's extra condition): "
                        f"{contrast.delta:+.2f} [{contrast.low:+.2f}, {contrast.high:+.2f}] BLEU "
                        f"({p_text(contrast.p)}{family.star(i_contrast)}; {contrast.method}): "
                        + ("interim." if interim else "long sentences lose more." if contrast_worse else
                           "not shown that long sentences lose more."))
    beyond = [r for r in spans if is_nope(r) and r.span == "beyond" and r.compared is not None
              and r.test_set in (test_set, LONG_TEST_SET)]
    if beyond:
        verdict.add("Extrapolation, each model on lengths longer than any it trained on (not part of the claim): "
                    + "; ".join(f"{where(r)}: {delta_text(r)}, {lengths_text(r)}" for r in beyond) + ".")
    verdict.status = claim_status(verdict.halves)
    verdict.family = family.describe()
    return verdict


# (c)'s metrics in the order that picks its primary: the first one recorded decides, the others are shown
ALIGNMENT_ORDER = ("aer", "diagonal_share_normalised", "monotonicity")
METRIC_NAMES = {"aer": "AER against silver links (lower is better)",
                "diagonal_share_normalised": "normalised diagonal share (higher is better)",
                "monotonicity": "Kendall τ of the most attended source position (higher is better)"}
SHORT_METRIC_NAMES = {"aer": "AER", "diagonal_share_normalised": "diagonal share", "monotonicity": "τ"}


def alignment_cells(alignment: list[AlignmentRow], which: Callable[[AlignmentRow], bool]
                    ) -> list[list[AlignmentRow]]:
    """Per setting and test set, its rows of every recorded metric, the primary (ALIGNMENT_ORDER) first."""
    chosen: dict[tuple, list[AlignmentRow]] = {}
    for r in alignment:
        if which(r) and r.metric in ALIGNMENT_ORDER:
            chosen.setdefault((r.setting, r.test_set), []).append(r)
    return [sorted(rows, key=lambda r: ALIGNMENT_ORDER.index(r.metric)) for rows in chosen.values()]


def quantity_text(q: Quantity, star: str = "") -> str:
    return f"{q.delta:+.3f} [{q.low:+.3f}, {q.high:+.3f}] ({p_text(q.p)}{star})"


def shown(q: Quantity) -> bool:
    """An unadjusted two-sided test at 0.05: the 95% interval excludes 0."""
    return q.low is not None and (q.low > 0 or q.high < 0)


def direction(r: AlignmentRow, long_shown: bool, interaction_shown: bool) -> tuple[str, str]:
    """What one metric says on long sentences and about the change from short to long: ("worse", "grows")."""
    long = ("worse" if r.gap_long.delta * r.better < 0 else "better") if long_shown else "not shown"
    grows = ("grows" if r.gap_interaction.delta * r.better < 0 else "shrinks") if interaction_shown else "not shown"
    return long, grows


def direction_text(name: str, said: tuple[str, str]) -> str:
    long, grows = said
    long_text = {"worse": "no PE aligns worse on long sentences", "better": "no PE aligns better on long sentences",
                 "not shown": "no difference shown on long sentences"}[long]
    grows_text = {"grows": "the gap grows from short to long", "shrinks": "the gap shrinks from short to long",
                  "not shown": "no change of the gap shown"}[grows]
    return f"{name}: {long_text}, {grows_text}"


def metric_text(r: AlignmentRow, pe: Reference, star_long: str = "", star_interaction: str = "") -> str:
    return (f"{METRIC_NAMES[r.metric]}: {pe.name} {r.baseline_short:.3f} short, {r.baseline_long:.3f} long; no PE "
            f"{r.system_short:.3f}, {r.system_long:.3f}; no PE minus {pe.name}: short {quantity_text(r.gap_short)}, "
            f"long {quantity_text(r.gap_long, star_long)}, long − short "
            f"{quantity_text(r.gap_interaction, star_interaction)}")


def diagonal_claim(alignment: list[AlignmentRow], test_set: Optional[str], rules: Rules,
                   pe: Reference = SINUSOIDAL) -> Verdict:
    """Claim (c), one half: on long sentences no PE aligns worse than `pe`, and more so than on short ones (the gap
    grows), on the primary metric (Holm within the claim, the primary test set only); every other metric is shown
    with unadjusted intervals and named where it says otherwise."""
    verdict = Verdict("(c) With PE the cross-attention lines up along the diagonal on long sentences; "
                      "without PE it does not.")
    family = Family("(c)")
    half = Half("long")
    verdict.halves = [half]
    for rows in alignment_cells(alignment, is_nope):
        r, others = rows[0], rows[1:]
        enough_sentences = rules.decides(r.short_sentences) and rules.decides(r.long_sentences)
        waiting = pending(r)
        one = r.seeds == 1
        deciding = enough_sentences and not waiting and not one and r.test_set == test_set
        i_long = family.add(r.gap_long.p if deciding else None)
        i_interaction = family.add(r.gap_interaction.p if deciding else None)
        long_shown = family.significant(i_long) if deciding else shown(r.gap_long)
        interaction_shown = family.significant(i_interaction) if deciding else shown(r.gap_interaction)
        said = direction(r, long_shown, interaction_shown)
        word = difference_word(r.gap_long, -r.better, long_shown, said[1] == "grows")
        if enough_sentences and r.test_set == test_set:
            word = waiting or (EXPLORATORY if one else word)
            half.readings.append(Reading(word, f"`{r.test_set}`, trained on {brief_group(r.group)}", r.gap_long.delta,
                                         r.gap_long.low, r.gap_long.high, SHORT_METRIC_NAMES[r.metric]))
        disagree = [o for o in others if direction(o, shown(o.gap_long), shown(o.gap_interaction)) != said]
        reading = ("too few sentences to decide" if not enough_sentences else interim_text(waiting) if waiting else
                   EXPLORATORY if one else
                   f"{direction_text(SHORT_METRIC_NAMES[r.metric] + ' (primary)', said)}: {word}" if deciding else
                   f"{direction_text(SHORT_METRIC_NAMES[r.metric], said)} (decides nothing: not the primary test set)")
        secondary = "; ".join(direction_text(SHORT_METRIC_NAMES[o.metric],
                                             direction(o, shown(o.gap_long), shown(o.gap_interaction)))
                              for o in others)
        verdict.add(
            f"`{r.test_set}`, {in_group(r.group)} ({r.seeds} seed{'s' * (r.seeds != 1)}; "
            f"{r.short_sentences:,} sentences of ≤ {SHORT_MAX} words, {r.long_sentences:,} of ≥ {LONG_MIN}). "
            + ". ".join([metric_text(r, pe, family.star(i_long), family.star(i_interaction))]
                        + [metric_text(o, pe) for o in others])
            + f". {reading}"
            + (f"; the other metrics (unadjusted, deciding nothing): {secondary}" if secondary else "")
            + (f"; {', '.join(SHORT_METRIC_NAMES[o.metric] for o in disagree)} "
               f"{'says' if len(disagree) == 1 else 'say'} otherwise" if disagree else
               "; the metrics agree" if others else "") + ".")
    verdict.status = claim_status(verdict.halves)
    verdict.family = family.describe()
    if not verdict.details:
        verdict.add(f"not measured: no per-sentence alignment numbers for both {pe.name} and no-PE jobs")
    return verdict


def check_claims(spans: list[SpanRow], alignment: list[AlignmentRow], test_set: Optional[str],
                 rules: Rules) -> list[Verdict]:
    return [zero_dims_claim(spans, test_set, rules), no_pe_claim(spans, test_set, rules),
            diagonal_claim(alignment, test_set, rules)]


def thresholds(rules: Rules) -> str:
    return (f"each model is read on the lengths it was trained on, merged (short: at most {SHORT_MAX} French words, "
            f"long: from {LONG_MIN}); spans of fewer than {rules.min_bucket} sentences decide nothing; each claim is "
            f"decided as its halves: a half that predicts no difference holds when the 90% interval of Δ BLEU lies "
            f"inside ±{rules.margin:g} (TOST at α = 0.05) and is contradicted when the 95% interval lies wholly beyond "
            f"±{rules.margin:g}; a half that predicts a loss holds when the loss is shown (Holm-adjusted p < 0.05 within the "
            f"claim's deciding tests) and its extra condition is met ((b): Δ_long − Δ_short between the groups below "
            f"0; (c): the gap grows from short to long sentences), and is contradicted when the opposite is shown; "
            f"anything else is inconclusive; a claim is supported only if every half holds, not supported as stated "
            f"if any half is contradicted, otherwise inconclusive; a half without runs is not run; a comparison of "
            f"one seed is exploratory and a comparison that pairs fewer seeds than its sweep planned is pending: "
            f"their figures are shown, with no word and no star")
