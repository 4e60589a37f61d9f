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

from typing import Callable, Optional, Sequence

from translate.analysis.significance import independent_contrast, interval_text, p_text, within
from translate.analysis.sweep.jobs import word_span
from translate.analysis.sweep.rows import (AlignmentRow, Delta, Estimate, Quantity, RowSetting, SpanDelta, SpanRow,
                                          WithinRow)
from translate.analysis.sweep.rules import EXPLORATORY, Rules, exploratory, interim_text, no_spread, pending
from translate.analysis.sweep.spans import LONG_MIN, SHORT_MAX
from translate.analysis.sweep.within import LONG_TEST_SET
from translate.study.verdicts.verdict import (CONTRADICTED, HOLDS, INCONCLUSIVE, SINUSOIDAL, Condition, Family,
                                              Half, Reading, Reference, Verdict, claim_status)
from translate.study.verdicts.wording import (SHORT_METRIC_NAMES, about_the_same_on_long_text, brief_group,
                                              delta_text, direction_text, equivalence_text, in_group, lengths_text,
                                              metric_text, quantity_text, tost_text, where, within_delta_text,
                                              within_margin_text, within_where)


WORD_CHOICE_MARGIN = 1.0         # points of unigram F within which no PE "keeps the words" (docs/preregistration.md)
GOLD_AER_MARGIN = 0.05           # gold AER within which no PE aligns "about the same" (docs/preregistration.md)
GOLD_TEST_SET = "hansards_gold"   # the human gold alignment, as the claims' sweeps name it ({name: hansards_gold,
                                  # gold: test}): (c)'s deciding test set once scored



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



def difference_word(d: Estimate, sign: int, shown: bool, extra: bool = True,
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



def long_half_text(d: SpanDelta, margin: float, shown: bool, word: Optional[str]) -> str:
    """What (a)'s long half (zeroing costs BLEU) was shown: a loss, a gain, about the same (contradicted with no
    difference shown: difference_word's TOST), or nothing."""
    if shown:
        return "worse" if d.delta < 0 else "better"
    if word == CONTRADICTED:
        return f"not worse: about the same, {within_margin_text(margin, d.established_margin)}"
    return "not shown to be worse"



def span_word(r: SpanRow, rules: Rules, word: Callable[[], str]) -> Optional[str]:
    """The word of a deciding span: None when too few sentences decide; the pending text or EXPLORATORY before
    `word` is asked."""
    if not decides(r, rules):
        return None
    return pending(r) or (EXPLORATORY if exploratory(r) else word())



def span_reading(r: SpanRow, word: str, condition: Optional[Condition] = None) -> Reading:
    d = r.compared.bleu
    return Reading(word, f"`{r.test_set}`, trained on {brief_group(r.group)}", d.delta, d.low, d.high, "BLEU",
                   d.relative_delta, condition)



def zero_dims_claim(spans: list[SpanRow], test_set: Optional[str], rules: Rules,
                    alignment: Sequence[AlignmentRow] = ()) -> Verdict:
    """Claim (a): its short half on the primary test set's short spans (no difference within ±margin), its long
    half on the long spans of the reserved long test set (zeroing costs BLEU). The note sees the long half in the
    cross-attention too: each zeroed model's alignment is shown beside its BLEU (zero_dims_attention_lines),
    deciding nothing."""
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
            text = long_half_text(d, margin, shown, word)
        if word is not None and primary(r):
            (short if is_short_span(r) else long).readings.append(span_reading(r, word))
        text = ("too few to decide" if word is None else interim_text(word) if word.startswith("pending") else
                EXPLORATORY if word == EXPLORATORY else f"{text}: {word}" if primary(r) else
                f"{text} (decides nothing: not this half's test set)")
        verdict.add(f"{short.name if is_short_span(r) else long.name}, {where(r)}: zero_dims minus sinusoidal "
                    f"{delta_text(r, family, index)}; {text}; {lengths_text(r)}.")
    for line in zero_dims_attention_lines(alignment, test_set):
        verdict.add(line)
    if not long.readings:
        verdict.add(f"long: not run (sinusoidal jobs with PE dimensions ≥ 400 zeroed and plain sinusoidal jobs of the "
                    f"same model and seeds, trained on sentences of {LONG_MIN}+ words, tested on `{LONG_TEST_SET}`).")
    if not short.readings and not found:
        verdict.add(f"short: not run (zero_dims and sinusoidal jobs trained on at most {SHORT_MAX} words).")
    verdict.status = claim_status(verdict.halves)
    verdict.family = family.describe()
    return verdict



def trained_lengths(train_words: Optional[str]) -> tuple[bool, bool]:
    """Whether a model trained on `train_words` ("1-9", "11-17", "11+", "all") is read on short sentences, on long
    ones: on the lengths it was trained on, as its spans are."""
    span = word_span(train_words)
    if span is None:
        return True, True
    low, high = span
    return low <= SHORT_MAX, high is None or high >= LONG_MIN



def zero_dims_attention_lines(alignment: Sequence[AlignmentRow], test_set: Optional[str]) -> list[str]:
    """Per zeroed-dims training group: its cross-attention against sinusoidal on the lengths it was trained on, every
    alignment metric, unadjusted and deciding nothing (the plan's (a) halves are decided on BLEU). Read on the human
    gold alignment where the group was scored on it, else on `test_set` (silver links)."""
    groups: dict[Optional[str], list[AlignmentRow]] = {}
    for r in alignment:
        if is_zero_dims(r) and r.metric in ALIGNMENT_ORDER:
            groups.setdefault(r.group, []).append(r)
    lines = []
    for group, rows in groups.items():
        chosen = GOLD_TEST_SET if any(r.test_set == GOLD_TEST_SET for r in rows) else test_set
        rows = sorted((r for r in rows if r.test_set == chosen), key=lambda r: ALIGNMENT_ORDER.index(r.metric))
        if not rows:
            continue
        first = rows[0]
        reads_short, reads_long = trained_lengths(first.train_words)
        waiting = pending(first)
        # an interim look or one seed: figures only, no direction word (as a pending comparison's Δ has none)
        worded = not waiting and first.seeds != 1
        parts = []
        for name, sentences, gap, reads in (("short", first.short_sentences, "gap_short", reads_short),
                                            ("long", first.long_sentences, "gap_long", reads_long)):
            if reads:
                said = "; ".join(f"{SHORT_METRIC_NAMES[r.metric]} {quantity_text(getattr(r, gap))}"
                                 + (f": {attention_direction(getattr(r, gap), r.better)}" if worded else "")
                                 for r in rows)
                parts.append(f"{name} sentences (n={sentences:,}): {said}")
        seeds = ((f"{EXPLORATORY}: its intervals are over sentences only" if first.seeds == 1 else
                  f"{first.seeds} seeds") + (f"; {waiting}" if waiting else ""))
        lines.append(f"Attention (secondary, unadjusted, deciding nothing), `{chosen}`"
                     f"{' (human gold links)' if chosen == GOLD_TEST_SET else ''}, {in_group(group)} ({seeds}), "
                     f"zero_dims minus sinusoidal: " + "; ".join(parts) + ".")
    return lines



def attention_direction(q: Quantity, better: int) -> str:
    if not shown(q):
        return "no difference shown"
    return "zeroed aligns worse" if q.delta * better < 0 else "zeroed aligns better"



def long_cell(long: list[SpanRow], setting: str) -> Optional[SpanRow]:
    """The long group's cell on the reserved long test set, else on the test set it has."""
    mine = [r for r in long if r.setting == setting]
    return next((r for r in mine if r.test_set == LONG_TEST_SET), mine[0] if mine else None)



def no_pe_claim(spans: list[SpanRow], test_set: Optional[str], rules: Rules, pe: Reference = SINUSOIDAL,
                one_model: Sequence[WithinRow] = ()) -> Verdict:
    """Claim (b) with `pe` as the PE: the rows' Δ must be against `pe` (a report whose baseline is `pe`). Short half:
    no difference within ±margin; long half: no PE loses BLEU, and loses more than on short sentences. Where models
    trained on every length were read on both (within.py), the halves are decided within one model, the extra
    condition being the interaction Δ_long − Δ_short paired by seed, and the reading across two models trained on
    short and on long sentences is shown second, deciding nothing; otherwise that reading decides."""
    verdict = Verdict("(b) Without PE, short sentences translate about as well, long ones much worse.")
    family = Family("(b)")
    short_half, long_half = Half("short"), Half("long")
    verdict.halves = [short_half, long_half]
    mine = [r for r in one_model if is_nope(r)]
    bleu = [r for r in mine if r.metric == "bleu"]
    for r in bleu:
        within_reading(verdict, family, (short_half, long_half), r, [o for o in mine if o.setting == r.setting],
                       rules, pe)
    across_groups(verdict, Family("(b) across groups") if bleu else family, None if bleu else (short_half, long_half),
                  spans, test_set, rules, pe)
    beyond = [r for r in spans if is_nope(r) and r.span == "beyond" and r.compared is not None
              and r.test_set in (test_set, LONG_TEST_SET)]
    if beyond:
        verdict.add("Extrapolation, each model on lengths longer than any it trained on (not part of the claim): "
                    + "; ".join(f"{where(r)}: {delta_text(r)}, {lengths_text(r)}" for r in beyond) + ".")
    verdict.status = claim_status(verdict.halves)
    verdict.family = family.describe()
    return verdict



def within_reading(verdict: Verdict, family: Family, halves: tuple[Half, Half], r: WithinRow,
                   measures: list[WithinRow], rules: Rules, pe: Reference) -> None:
    """(b) decided within one model: Δ_short (no difference within ±margin), Δ_long (a loss) and the interaction
    (below 0: the long half's extra condition), Holm over the three; then word choice and word order, deciding
    nothing."""
    margin = rules.margin
    short_half, long_half = halves
    waiting = pending(r)
    one = r.seeds == 1
    enough_sentences = rules.decides(r.short_sentences) and rules.decides(r.long_sentences)
    deciding = enough_sentences and not waiting and not one
    i_short, i_long, i_interaction = (family.add(q.p if deciding else None)
                                      for q in (r.delta_short, r.delta_long, r.interaction))
    long_worse = family.significant(i_long) and r.delta_long.delta < 0
    interaction_worse = family.significant(i_interaction) and r.interaction.delta < 0
    if enough_sentences:
        short_word = waiting or (EXPLORATORY if one else no_difference_word(r.delta_short, margin))
        long_word = waiting or (EXPLORATORY if one else difference_word(
            r.delta_long, -1, family.significant(i_long), interaction_worse, margin))
        label = f"within one model ({brief_group(r.group)})"
        short_half.readings.append(Reading(short_word, f"`{r.short_test_set}` {r.short_span} words, {label}",
                                           r.delta_short.delta, r.delta_short.low, r.delta_short.high, "BLEU",
                                           relative(r.delta_short, r.baseline_short)))
        long_half.readings.append(Reading(long_word, f"`{r.long_test_set}` {r.long_span} words, {label}",
                                          r.delta_long.delta, r.delta_long.low, r.delta_long.high, "BLEU",
                                          relative(r.delta_long, r.baseline_long),
                                          Condition("its condition: Δ_long − Δ_short within each model, paired by "
                                                    "seed", r.interaction.delta, r.interaction.low,
                                                    r.interaction.high, interaction_worse)))
    else:
        short_word = long_word = "too few to decide"
    interim = bool(waiting) or one or not enough_sentences
    if waiting and enough_sentences:
        verdict.add(f"{interim_text(waiting)}.")
    short_text = short_word if interim else (
        f"{tost_text(r.delta_short, margin, 'BLEU', family.significant(i_short))}: {short_word}")
    long_text = long_word if interim else f"{'worse' if long_worse else 'not shown to be worse'}: {long_word}"
    verdict.add(f"short, within one model: {within_where(r, 'short')}: no PE minus {pe.name} "
                f"{within_delta_text(r.delta_short, 'BLEU', family.star(i_short))}; {short_text}.")
    verdict.add(f"long, within the same models: {within_where(r, 'long')}: "
                f"{within_delta_text(r.delta_long, 'BLEU', family.star(i_long))}; {long_text}.")
    verdict.add(f"Δ_long − Δ_short within each model, paired by seed (the long half's extra condition): "
                f"{within_delta_text(r.interaction, 'BLEU', family.star(i_interaction))} ({r.interaction.method}): "
                + ("interim." if interim else "long sentences lose more." if interaction_worse else
                   "not shown that long sentences lose more."))
    words_and_order = words_and_order_text(measures, WORD_CHOICE_MARGIN, pe)
    if words_and_order:
        verdict.add(words_and_order)



def relative(q: Quantity, baseline: Optional[float]) -> Optional[float]:
    return round(q.delta / baseline, 4) if baseline else None



def words_and_order_text(measures: list[WithinRow], margin: float, pe: Reference) -> str:
    """Whether no PE keeps the words (unigram F within ±margin points, TOST) and loses their order (τ's 95%
    interval below 0) on long sentences, with token accuracy beside them: secondary, unadjusted, deciding nothing."""
    found = {r.metric: r for r in measures}
    f, tau, accuracy = found.get("unigram_f"), found.get("order_tau"), found.get("token_accuracy")
    if f is None or tau is None:
        return ""
    keeps = within(f.delta_long.low90, f.delta_long.high90, margin)
    loses = tau.delta_long.high is not None and tau.delta_long.high < 0
    said = (f"no PE {'keeps' if keeps else 'is not shown to keep'} the words (unigram F within ±{margin:g} point"
            f"{'s' * (margin != 1)}) and {'loses' if loses else 'is not shown to lose'} their order (τ below 0)")
    parts = [f"unigram F {within_delta_text(f.delta_long, 'points')} (90% [{f.delta_long.low90:+.2f}, "
             f"{f.delta_long.high90:+.2f}]; short {within_delta_text(f.delta_short, 'points')})",
             f"order τ {within_delta_text(tau.delta_long, '', digits=3)} (short "
             f"{within_delta_text(tau.delta_short, '', digits=3)})"]
    if accuracy is not None:
        parts.append(f"teacher-forced token accuracy {within_delta_text(accuracy.delta_long, 'points')} (short "
                     f"{within_delta_text(accuracy.delta_short, 'points')})")
    return (f"Word choice and word order on long sentences (secondary, unadjusted, deciding nothing), no PE minus "
            f"{pe.name}: " + "; ".join(parts) + f": {said}.")



def across_groups(verdict: Verdict, family: Family, halves: Optional[tuple[Half, Half]], spans: list[SpanRow],
                  test_set: Optional[str], rules: Rules, pe: Reference) -> None:
    """(b) read across two models, one trained on short and one on long sentences, each on its own lengths, with
    the contrast Δ_long − Δ_short between the groups. `halves` None: the second reading, shown and deciding nothing
    (its own family, no words in the halves)."""
    margin = rules.margin
    second = halves is None
    short = [r for r in cells(spans, is_nope, is_short_span) if r.test_set == test_set]
    long = cells(spans, is_nope, is_long_span)
    long_settings = list(dict.fromkeys(r.setting for r in long))
    if not short or not long_settings:
        if not second:
            verdict.add(f"not measured: it needs no-PE and {pe.name} jobs trained on every length, or on short "
                        f"sentences (at most {SHORT_MAX} words) and on long ones (from {LONG_MIN}), each tested on "
                        f"its own lengths")
        return
    prefix = "across groups (the second reading, deciding nothing), " if second else ""
    for s in short:
        for setting in long_settings:
            lg = long_cell(long, setting)
            waiting = pending(s) or pending(lg)
            enough_sentences = decides(s, rules) and decides(lg, rules)
            one = exploratory(s) or exploratory(lg)
            deciding = enough_sentences and not waiting and not one and not second
            contrast = independent_contrast(s.compared.bleu.difference(), lg.compared.bleu.difference())
            i_short = family.add(s.compared.bleu.p if deciding else None)
            i_long = family.add(lg.compared.bleu.p if deciding else None)
            i_contrast = family.add(contrast.p if deciding else None)
            long_worse = family.significant(i_long) and lg.compared.bleu.delta < 0
            contrast_worse = family.significant(i_contrast) and contrast.delta < 0
            if second:
                short_word = long_word = "decides nothing"
            elif enough_sentences:
                short_word = waiting or (EXPLORATORY if one else no_difference_word(s.compared.bleu, margin))
                long_word = waiting or (EXPLORATORY if one else difference_word(
                    lg.compared.bleu, -1, family.significant(i_long), contrast_worse, margin))
                halves[0].readings.append(span_reading(s, short_word))
                halves[1].readings.append(span_reading(lg, long_word, Condition(
                    "its condition: Δ_long − Δ_short between the two groups", contrast.delta, contrast.low,
                    contrast.high, contrast_worse)))
            else:
                short_word = long_word = "too few to decide"
            if waiting and enough_sentences and not second:
                verdict.add(f"{interim_text(waiting)}.")
            interim = bool(waiting) or one or not enough_sentences or second
            short_text = (short_word if interim else
                          f"{equivalence_text(s, margin, family.significant(i_short))}: {short_word}")
            long_text = long_word if interim else f"{'worse' if long_worse else 'not shown to be worse'}: {long_word}"
            verdict.add(f"{prefix}short, {where(s)}: no PE minus {pe.name} {delta_text(s, family, i_short)}; "
                        f"{short_text}; {lengths_text(s)}.")
            verdict.add(f"{prefix}long, {where(lg)}: {delta_text(lg, family, i_long)}; {long_text}; "
                        f"{lengths_text(lg)}.")
            verdict.add(f"{prefix}Δ_long − Δ_short between the two groups"
                        + ("" if second else " (the long half's extra condition)")
                        + f": {interval_text(contrast.delta, contrast.low, contrast.high, unit='BLEU')} "
                        f"({p_text(contrast.p)}{family.star(i_contrast)}; {contrast.method})"
                        + (": interim." if interim and not second else "." if second else
                           ": long sentences lose more." if contrast_worse else
                           ": not shown that long sentences lose more."))



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
    grows), on the primary metric (Holm within the claim, the deciding test set only); every other metric is shown
    with unadjusted intervals and named where it says otherwise. The deciding test set is the human gold alignment
    (GOLD_TEST_SET, its AER) where the models were scored on it, else `test_set` (silver links)."""
    verdict = Verdict("(c) With PE the cross-attention lines up along the diagonal on long sentences; "
                      "without PE it does not.")
    family = Family("(c)")
    half = Half("long")
    verdict.halves = [half]
    cells_found = alignment_cells(alignment, is_nope)
    if any(rows[0].test_set == GOLD_TEST_SET and rows[0].metric == "aer" for rows in cells_found):
        test_set = GOLD_TEST_SET   # the human gold links decide once models were scored on them
    for rows in cells_found:
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
        # the plan's margin on the gold links: about the same shown there contradicts the half (silver AER has none)
        margin = GOLD_AER_MARGIN if r.test_set == GOLD_TEST_SET and r.metric == "aer" else None
        word = difference_word(r.gap_long, -r.better, long_shown, said[1] == "grows", margin)
        same = (about_the_same_on_long_text(r.gap_long, margin)
                if margin is not None and word == CONTRADICTED and not long_shown else "")
        if enough_sentences and r.test_set == test_set:
            word = waiting or (EXPLORATORY if one else word)
            half.readings.append(Reading(word, f"`{r.test_set}`, trained on {brief_group(r.group)}", r.gap_long.delta,
                                         r.gap_long.low, r.gap_long.high, SHORT_METRIC_NAMES[r.metric],
                                         condition=Condition("its condition: the gap grows from short to long "
                                                             "(long − short)", r.gap_interaction.delta,
                                                             r.gap_interaction.low, r.gap_interaction.high,
                                                             said[1] == "grows")))
        # each other metric with what it says, unadjusted: (row, ("worse", "grows"))
        others_said = [(o, direction(o, shown(o.gap_long), shown(o.gap_interaction))) for o in others]
        disagree = [(o, o_said) for o, o_said in others_said if o_said != said]
        if deciding:
            verdict.dissent += [direction_text(SHORT_METRIC_NAMES[o.metric], o_said) for o, o_said in disagree]
        undecided = ("too few sentences to decide" if not enough_sentences else interim_text(waiting) if waiting
                     else EXPLORATORY if one else None)
        # what the others "say otherwise" against: the primary's own direction, unadjusted where it decides nothing
        reading = (f"{undecided}; {direction_text(SHORT_METRIC_NAMES[r.metric] + ' (primary, unadjusted)', said)}"
                   if undecided else
                   f"{direction_text(SHORT_METRIC_NAMES[r.metric] + ' (primary)', said)}{same}: {word}" if deciding else
                   f"{direction_text(SHORT_METRIC_NAMES[r.metric], said)} (decides nothing: not the deciding test set)")
        secondary = "; ".join(direction_text(SHORT_METRIC_NAMES[o.metric], o_said) for o, o_said in others_said)
        verdict.add(
            f"`{r.test_set}`, {in_group(r.group)} ({r.seeds} seed{'s' * (r.seeds != 1)}; "
            f"{r.short_sentences:,} sentences of ≤ {SHORT_MAX} words, {r.long_sentences:,} of ≥ {LONG_MIN}). "
            + ". ".join([metric_text(r, pe, family.star(i_long), family.star(i_interaction),
                                     gold=r.test_set == GOLD_TEST_SET)]
                        + [metric_text(o, pe, gold=o.test_set == GOLD_TEST_SET) for o in others])
            + f". {reading}"
            + (f"; the other metrics (unadjusted, deciding nothing): {secondary}" if secondary else "")
            + (f"; {', '.join(SHORT_METRIC_NAMES[o.metric] for o, _ in disagree)} "
               f"{'says' if len(disagree) == 1 else 'say'} otherwise" if disagree else
               "; the metrics agree" if others else "") + ".")
    verdict.status = claim_status(verdict.halves)
    verdict.family = family.describe()
    if not verdict.details:
        verdict.add(f"not measured: no per-sentence alignment numbers for both {pe.name} and no-PE jobs")
    return verdict



def check_claims(spans: list[SpanRow], alignment: list[AlignmentRow], test_set: Optional[str],
                 rules: Rules, within: Sequence[WithinRow] = ()) -> list[Verdict]:
    return [zero_dims_claim(spans, test_set, rules, alignment), no_pe_claim(spans, test_set, rules, one_model=within),
            diagonal_claim(alignment, test_set, rules)]
