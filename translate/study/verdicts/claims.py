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

This module decides; a verdict's record is verdict.py and its prose wording.py.
"""

from __future__ import annotations

from typing import Callable, Optional

from translate.analysis.significance import independent_contrast, p_text, within
from translate.analysis.sweep.rows import AlignmentRow, Delta, Quantity, RowSetting, SpanRow
from translate.analysis.sweep.rules import EXPLORATORY, Rules, exploratory, interim_text, no_spread, pending
from translate.analysis.sweep.spans import LONG_MIN, SHORT_MAX
from translate.study.verdicts.verdict import (CONTRADICTED, HOLDS, INCONCLUSIVE, SINUSOIDAL, Family, Half,
                                              Reading, Reference, Verdict, claim_status)
from translate.study.verdicts.wording import (SHORT_METRIC_NAMES, brief_group,
                                              delta_text, direction_text, equivalence_text, in_group, lengths_text,
                                              metric_text, where)


LONG_TEST_SET = "long_test"   # the reserved real long sentences (translate/data/long_reserve.py)



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



def cells(spans: list[SpanRow], which: Callable[[SpanRow], bool], span: Callable[[SpanRow], bool]) -> list[SpanRow]:
    """The compared spans of the settings `which` picks, on the lengths `span` picks."""
    return [r for r in spans if which(r) and span(r) and r.compared is not None]



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



def alignment_cells(alignment: list[AlignmentRow], which: Callable[[AlignmentRow], bool]
                    ) -> list[list[AlignmentRow]]:
    """Per setting and test set, its rows of every recorded metric, the primary (ALIGNMENT_ORDER) first."""
    chosen: dict[tuple, list[AlignmentRow]] = {}
    for r in alignment:
        if which(r) and r.metric in ALIGNMENT_ORDER:
            chosen.setdefault((r.setting, r.test_set), []).append(r)
    return [sorted(rows, key=lambda r: ALIGNMENT_ORDER.index(r.metric)) for rows in chosen.values()]



def shown(q: Quantity) -> bool:
    """An unadjusted two-sided test at 0.05: the 95% interval excludes 0."""
    return q.low is not None and (q.low > 0 or q.high < 0)



def direction(r: AlignmentRow, long_shown: bool, interaction_shown: bool) -> tuple[str, str]:
    """What one metric says on long sentences and about the change from short to long: ("worse", "grows")."""
    long = ("worse" if r.gap_long.delta * r.better < 0 else "better") if long_shown else "not shown"
    grows = ("grows" if r.gap_interaction.delta * r.better < 0 else "shrinks") if interaction_shown else "not shown"
    return long, grows



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
