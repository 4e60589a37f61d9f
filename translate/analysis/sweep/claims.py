"""The source notes' three claims, decided on the lengths each is about.

(a) zeroing PE dims >= 400 barely changes BLEU on short sentences;
(b) without PE short sentences translate about as well, long ones much worse;
(c) with PE the cross-attention lines up along the diagonal on long sentences, without it it does not.

Each model is read on the lengths it was trained on, merged into one span (spans.py): the short group (e.g. 1-9
French words) on the primary test set's short sentences, the long group (e.g. 11-17) on the long sentences of the
reserved long test set when the runs have it. "About the same" is an equivalence test (TOST: the 90% interval of Δ
inside ±margin, the margin stated before the runs in report.equivalence_margin); beside it the smallest margin the
data establish, the minimum detectable difference, and with several seeds how many seeds ±margin would need.
"Worse" is a two-sided difference test, Holm-adjusted over the tests of that one claim on the page (its family).
(b) also needs the contrast Δ_long − Δ_short between the two groups (independent test sets, seeds not paired) below
0; (c) needs no PE to align worse than PE on long sentences and that gap to grow from short to long sentences
(the interaction), on the alignment error rate against silver links where the runs have it, else on the normalised
diagonal share. Spans of fewer than report.min_bucket sentences are listed, decide nothing and are not in a family.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from translate.analysis.sweep.rows import AlignmentRow, Quantity, RowSetting, SpanRow
from translate.analysis.sweep.rules import MARGIN, MIN_BUCKET, decides as enough, interim_text, pending
from translate.analysis.sweep.significance import holm, independent_contrast, p_text
from translate.analysis.sweep.spans import LONG_MIN, SHORT_MAX

LEVEL = 0.05
LONG_TEST_SET = "long_test"   # the reserved real long sentences (translate/data/long_reserve.py)


class Detail(str):
    """A line of a verdict, and what it reads: `test_set` (None: no one test set); `always_decides`: part of the
    decision on the primary test set whichever test set it reads (claim (b)'s long group on the reserved long test
    set, the contrast between the two training groups)."""

    test_set: Optional[str]
    always_decides: bool

    def __new__(cls, text: str, test_set: Optional[str] = None, always_decides: bool = False) -> "Detail":
        line = super().__new__(cls, text)
        line.test_set, line.always_decides = test_set, always_decides
        return line

    def decides_on(self, test_set: Optional[str]) -> bool:
        """Whether the line is part of the decision on `test_set` (None: every line is)."""
        return test_set is None or self.always_decides or self.test_set == test_set


@dataclass
class Verdict:
    claim: str
    status: str = "not measured"    # supported, partly supported, inconclusive, not supported, not measured
    details: list[Detail] = field(default_factory=list)
    family: str = ""                # what its stars were adjusted over

    def add(self, text: str, test_set: Optional[str] = None, always_decides: bool = False) -> None:
        self.details.append(Detail(text, test_set, always_decides))


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


def decides(r: SpanRow, min_bucket: int) -> bool:
    return enough(r.sentences, min_bucket)


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


def status_of(outcomes: list[str]) -> str:
    """The verdict over the deciding cells' outcomes (yes, no, unclear, partly, or a pending(...) text)."""
    waiting = [o for o in outcomes if o.startswith("pending")]
    if waiting:
        return waiting[0]
    if not outcomes:
        return "not measured"
    if all(o == "yes" for o in outcomes):
        return "supported"
    if all(o == "no" for o in outcomes):
        return "not supported"
    return "inconclusive" if all(o in ("yes", "unclear") for o in outcomes) else "partly supported"


def zero_dims_claim(spans: list[SpanRow], test_set: Optional[str], margin: float = MARGIN,
                    min_bucket: int = MIN_BUCKET) -> Verdict:
    verdict = Verdict("(a) Zeroing PE dimensions ≥ 400 barely changes BLEU on short sentences.")
    family = Family("(a)")
    found = cells(spans, is_zero_dims, is_short_span)
    waitings = [pending(r) for r in found]
    indices = [family.add(r.compared.bleu.p if decides(r, min_bucket) and not waiting else None)
               for r, waiting in zip(found, waitings)]
    outcomes = []
    for r, index, waiting in zip(found, indices, waitings):
        significant = family.significant(index)
        text = ("too few to decide" if not decides(r, min_bucket) else interim_text(waiting) if waiting else
                equivalence_text(r, margin, significant))
        if decides(r, min_bucket) and r.test_set == test_set:
            outcomes.append(waiting or ("yes" if r.compared.bleu.equivalent else "no" if significant else "unclear"))
        verdict.add(f"{where(r)}: zero_dims minus sinusoidal {delta_text(r, family, index)}; {text}; "
                    f"{lengths_text(r)}.", r.test_set)
    verdict.status = status_of(outcomes)
    verdict.family = family.describe()
    if not found:
        verdict.add(f"not measured: it needs sinusoidal jobs with PE dimensions ≥ 400 zeroed (zero_dims) and "
                    f"sinusoidal jobs of the same model and seeds, trained on short sentences (at most {SHORT_MAX} "
                    f"words), each tested on its own lengths", always_decides=True)
    return verdict


def long_cell(long: list[SpanRow], setting: str) -> Optional[SpanRow]:
    """The long group's cell on the reserved long test set, else on the test set it has."""
    mine = [r for r in long if r.setting == setting]
    return next((r for r in mine if r.test_set == LONG_TEST_SET), mine[0] if mine else None)


def no_pe_claim(spans: list[SpanRow], test_set: Optional[str], margin: float = MARGIN, min_bucket: int = MIN_BUCKET,
                pe: Reference = SINUSOIDAL) -> Verdict:
    """Claim (b) with `pe` as the PE: the spans' Δ must be against `pe` (a report whose baseline is `pe`)."""
    verdict = Verdict("(b) Without PE, short sentences translate about as well, long ones much worse.")
    family = Family("(b)")
    short = [r for r in cells(spans, is_nope, is_short_span) if r.test_set == test_set]
    long = cells(spans, is_nope, is_long_span)
    long_settings = list(dict.fromkeys(r.setting for r in long))
    if not short or not long_settings:
        verdict.add(f"not measured: it needs no-PE and {pe.name} jobs trained on short sentences (at most "
                    f"{SHORT_MAX} words) and on long ones (from {LONG_MIN}), each tested on its own lengths",
                    always_decides=True)
        verdict.family = family.describe()
        return verdict
    outcomes = []
    for s in short:
        for setting in long_settings:
            lg = long_cell(long, setting)
            waiting = pending(s) or pending(lg)
            enough_sentences = decides(s, min_bucket) and decides(lg, min_bucket)
            deciding = enough_sentences and not waiting
            contrast = independent_contrast(s.compared.bleu.difference(), lg.compared.bleu.difference())
            i_short = family.add(s.compared.bleu.p if deciding else None)
            i_long = family.add(lg.compared.bleu.p if deciding else None)
            i_contrast = family.add(contrast.p if deciding else None)
            short_same = bool(s.compared.bleu.equivalent)
            short_different = family.significant(i_short) and not short_same
            long_worse = family.significant(i_long) and lg.compared.bleu.delta < 0
            contrast_worse = family.significant(i_contrast) and contrast.delta < 0
            if waiting and enough_sentences:
                outcomes.append(waiting)
                verdict.add(f"{interim_text(waiting)}.", always_decides=True)
            if deciding:  # every part holds: yes; none: no; the long parts hold and short cannot tell: unclear
                parts = [short_same, long_worse, contrast_worse]
                outcomes.append("yes" if all(parts) else "no" if not long_worse and not contrast_worse else
                                "unclear" if long_worse and contrast_worse and not short_different else "partly")
            verdict.add(f"short, {where(s)}: no PE minus {pe.name} {delta_text(s, family, i_short)}; "
                        f"{'interim' if waiting else equivalence_text(s, margin, family.significant(i_short))}; "
                        f"{lengths_text(s)}.", s.test_set)
            verdict.add(f"long, {where(lg)}: {delta_text(lg, family, i_long)}; "
                        f"{'interim' if waiting else 'worse' if long_worse else 'not shown to be worse'}; "
                        f"{lengths_text(lg)}.", lg.test_set,
                        always_decides=True)
            verdict.add(f"Δ_long − Δ_short between the two groups: {contrast.delta:+.2f} [{contrast.low:+.2f}, "
                        f"{contrast.high:+.2f}] BLEU ({p_text(contrast.p)}{family.star(i_contrast)}; {contrast.method}): "
                        + ("interim." if waiting else "long sentences lose more." if contrast_worse else
                           "not shown that long sentences lose more."),
                        always_decides=True)
    beyond = [r for r in spans if is_nope(r) and r.span == "beyond" and r.compared is not None
              and r.test_set in (test_set, LONG_TEST_SET)]
    if beyond:
        verdict.add("Extrapolation, each model on lengths longer than any it trained on (not part of the claim): "
                    + "; ".join(f"{where(r)}: {delta_text(r)}, {lengths_text(r)}" for r in beyond) + ".")
    verdict.status = status_of(outcomes)
    verdict.family = family.describe()
    return verdict


def alignment_cells(alignment: list[AlignmentRow], which: Callable[[AlignmentRow], bool]) -> list[AlignmentRow]:
    """Per setting and test set, the length-robust metric when recorded (AER), else the normalised share."""
    chosen: dict[tuple, AlignmentRow] = {}
    for r in alignment:
        if which(r):
            key = (r.setting, r.test_set)
            if key not in chosen or r.metric == "aer":
                chosen[key] = r
    return list(chosen.values())


METRIC_NAMES = {"aer": "alignment error rate against silver links (lower is better)",
                "diagonal_share_normalised": "normalised diagonal share (higher is better)"}


def quantity_text(q: Quantity, star: str = "") -> str:
    return f"{q.delta:+.3f} [{q.low:+.3f}, {q.high:+.3f}] ({p_text(q.p)}{star})"


def diagonal_claim(alignment: list[AlignmentRow], test_set: Optional[str], min_bucket: int = MIN_BUCKET,
                   pe: Reference = SINUSOIDAL) -> Verdict:
    verdict = Verdict("(c) With PE the cross-attention lines up along the diagonal on long sentences; "
                      "without PE it does not.")
    family = Family("(c)")
    outcomes = []
    for r in alignment_cells(alignment, is_nope):
        enough_sentences = enough(r.short_sentences, min_bucket) and enough(r.long_sentences, min_bucket)
        waiting = pending(r)
        deciding = enough_sentences and not waiting
        i_long = family.add(r.gap_long.p if deciding else None)
        i_interaction = family.add(r.gap_interaction.p if deciding else None)
        worse_long = family.significant(i_long) and r.gap_long.delta * r.better < 0
        grows = family.significant(i_interaction) and r.gap_interaction.delta * r.better < 0
        shrinks = family.significant(i_interaction) and r.gap_interaction.delta * r.better > 0
        if enough_sentences and r.test_set == test_set:
            outcomes.append(waiting or ("yes" if worse_long and grows else "partly" if worse_long else "no"))
        reading = ("no PE aligns worse on long sentences, and more so than on short ones" if worse_long and grows else
                   "no PE aligns worse on long sentences, but less so than on short ones: the gap shrinks with length"
                   if worse_long and shrinks else
                   "no PE aligns worse on long sentences; that the gap grows from short to long ones is not shown (no "
                   "equivalence test for alignment: \"not shown\" is not \"the same\")" if worse_long else
                   "not shown that no PE aligns worse on long sentences")
        verdict.add(
            f"`{r.test_set}`, {in_group(r.group)} ({r.seeds} seed{'s' * (r.seeds != 1)}; "
            f"{r.short_sentences:,} sentences of ≤ {SHORT_MAX} words, {r.long_sentences:,} of ≥ {LONG_MIN}), "
            f"{METRIC_NAMES[r.metric]}: {pe.name} {r.baseline_short:.3f} short, {r.baseline_long:.3f} long; "
            f"no PE {r.system_short:.3f}, {r.system_long:.3f}. No PE minus {pe.name}: short "
            f"{quantity_text(r.gap_short)}, long {quantity_text(r.gap_long, family.star(i_long))}, long − short "
            f"{quantity_text(r.gap_interaction, family.star(i_interaction))}. Long − short within each model: "
            f"{pe.name} {quantity_text(r.baseline_long_minus_short)}, no PE "
            f"{quantity_text(r.system_long_minus_short)}: "
            + (reading if deciding else interim_text(waiting) if waiting and enough_sentences else
               "too few sentences to decide") + ".", r.test_set)
    verdict.status = status_of(outcomes)
    verdict.family = family.describe()
    if not verdict.details:
        verdict.add(f"not measured: no per-sentence alignment numbers for both {pe.name} and no-PE jobs",
                    always_decides=True)
    return verdict


def check_claims(spans: list[SpanRow], alignment: list[AlignmentRow], test_set: Optional[str], margin: float = MARGIN,
                 min_bucket: int = MIN_BUCKET) -> list[Verdict]:
    return [zero_dims_claim(spans, test_set, margin, min_bucket), no_pe_claim(spans, test_set, margin, min_bucket),
            diagonal_claim(alignment, test_set, min_bucket)]


def thresholds(margin: float = MARGIN, min_bucket: int = MIN_BUCKET) -> str:
    return (f"each model is read on the lengths it was trained on, merged (short: at most {SHORT_MAX} French words, "
            f"long: from {LONG_MIN}); spans of fewer than {min_bucket} sentences decide nothing; about the same = "
            f"the 90% interval of Δ BLEU inside ±{margin:g} (TOST at α = 0.05); worse = a two-sided test, "
            f"Holm-adjusted within the claim's family, below 0; (b) also needs Δ_long − Δ_short between the groups "
            f"below 0; (c) needs no PE to align worse than PE on long sentences and that gap to grow from short to "
            f"long sentences; a comparison that pairs fewer seeds than its sweep planned (conf/sweep, the seed list) "
            f"is pending: its interim figures are shown, with no verdict word and no star")
