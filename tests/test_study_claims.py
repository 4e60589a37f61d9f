"""The three claims of the source notes, judged from report spans (each model on the lengths it trained on, merged)
and per-sentence alignment contrasts: each verdict can come out either way, sameness needs the equivalence test
(never a large p), (b) reads each group on its own lengths with a contrast between the groups, (c) needs the
long − short interaction, and the numbers behind every verdict are printed."""
from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import numpy as np
import pytest

from translate.analysis.run.metrics_json import LengthReport
from translate.analysis.run.metrics_json import TestSetScores as SetScores   # not "Test...": pytest would collect it
from translate.study.verdicts.claims import check_claims, diagonal_claim, no_pe_claim, zero_dims_claim
from translate.analysis.sweep.rows import (AlignmentRow, Quantity, RowSetting, SpanComparison, SpanDelta, SpanRow,
                                          WithinRow)
from translate.analysis.sweep.rules import Rules
from translate.analysis.significance import Groups, t_two_sided_p
from translate.analysis.sweep.spans import alignment_rows

SHORT_GROUP, LONG_GROUP = "train words 1-9", "train words 11-17"
Z95, Z90 = 1.959964, 1.644854

RULES = Rules(samples=1000, min_bucket=50, margin=1.0)   # the run's defaults, as a sweep of them is read


def span(setting: str, group: str, encoding: str, ablation: str, test_set: str, low: int, high, delta: float,
         se: float, sentences: int = 1000, base: float = 30.0, seeds: int = 3) -> SpanRow:
    """A span row as spans.span_rows makes it, with a normal Δ BLEU of standard error `se` over `seeds` seeds (the
    per-seed deltas all Δ: the interval is given, not computed from them)."""
    p = t_two_sided_p(delta / se, 1000)
    low90, high90 = delta - Z90 * se, delta + Z90 * se
    bleu = SpanDelta(delta, delta - Z95 * se, delta + Z95 * se, p, low90, high90, se, se, 1000, 2.8 * se, None,
                     [delta] * seeds, baseline=base, equivalent=-1 < low90 and high90 < 1,
                     established_margin=max(abs(low90), abs(high90)), relative_delta=delta / base)
    return SpanRow(setting=setting, group=group, encoding=encoding, ablation=ablation, test_set=test_set,
                   seeds=seeds, span="trained", low=low, high=high, bucket=f"trained {low}-{high}",
                   sentences=sentences, tested_steps=[1400], bleu=base + delta, length_ratio=0.95, bp=0.95,
                   compared=SpanComparison(bleu, SpanDelta(), baseline_length_ratio=0.97, baseline_bp=0.97))


def zero_dims(delta: float, se: float, test_set: str = "test") -> SpanRow:
    return span("zero", SHORT_GROUP, "sinusoidal", "zero_dims", test_set, 1, 9, delta, se)


def two_groups(short_delta=-0.2, short_se=0.2, long_delta=-6.0, long_se=0.5) -> list[SpanRow]:
    """No PE against sinusoidal: the short group on the test split's 1-9 words, the long group on the long test set's
    11-17 words, plus a decoy: the long group on the test split's few long sentences, which (b) must not read."""
    return [span("nope short", SHORT_GROUP, "none", "none", "test", 1, 9, short_delta, short_se, 2400),
            span("nope long", LONG_GROUP, "none", "none", "long_test", 11, 17, long_delta, long_se, 1100),
            span("nope long", LONG_GROUP, "none", "none", "test", 11, 17, +3.0, 2.0, 230)]


def zero_dims_long(delta: float, se: float, test_set: str = "long_test") -> SpanRow:
    return span("zero long", LONG_GROUP, "sinusoidal", "zero_dims", test_set, 11, 17, delta, se, 1100)


def test_claim_a_without_its_jobs_says_which_jobs_it_needs():
    """A page whose runs hold (b) and (c) only (claim (a)'s runs still to come) says what each half lacks."""
    missing = zero_dims_claim(two_groups(), "test", RULES)
    assert missing.status == "not measured" and [h.word for h in missing.halves] == ["not run", "not run"]
    assert missing.details[0].startswith("long: not run (sinusoidal jobs with PE dimensions ≥ 400 zeroed")
    assert missing.details[1].startswith("short: not run")


def test_claim_a_short_half_words_follow_the_intervals_and_its_long_half_is_not_run_until_it_is():
    same = zero_dims_claim([zero_dims(0.1, 0.3)], "test", RULES)     # 90% [-0.39, +0.59]: inside ±1
    assert [h.word for h in same.halves] == ["holds", "not run"]
    assert same.status == "inconclusive" and same.headline == "inconclusive (short half holds, long half not run)"
    assert "about the same: within ±1 BLEU (established ±0.59): holds" in same.details[0]
    wide = zero_dims_claim([zero_dims(0.1, 1.2)], "test", RULES)
    assert wide.halves[0].word == "inconclusive" and wide.status == "inconclusive"
    assert "the data establish only ±2.07" in wide.details[0] and "±3.36 would be needed" in wide.details[0]
    different = zero_dims_claim([zero_dims(-3.0, 0.4)], "test", RULES)   # 95% [-3.78, -2.22]: wholly beyond -1
    assert different.halves[0].word == "contradicted" and different.status == "not supported as stated"
    assert "Holm-adjusted p < 0.05 over the 1 test of claim (a)" in different.family
    beyond_the_margin_or_not = zero_dims_claim([zero_dims(-1.2, 0.3)], "test", RULES)   # 95% [-1.79, -0.61]
    assert beyond_the_margin_or_not.halves[0].word == "inconclusive"   # shown different, not shown beyond ±1
    both = zero_dims_claim([zero_dims(0.1, 0.3), zero_dims_long(-3.0, 0.4)], "test", RULES)
    assert both.status == "supported" and [h.word for h in both.halves] == ["holds", "holds"]
    costless = zero_dims_claim([zero_dims(0.1, 0.3), zero_dims_long(0.1, 0.3)], "test", RULES)   # long: about the same
    assert costless.halves[1].word == "contradicted" and costless.status == "not supported as stated"
    assert "not worse: about the same, within ±1 BLEU (established ±0.59): contradicted" in costless.details[1]
    undecided = zero_dims_claim([zero_dims(0.1, 0.3), zero_dims_long(-0.4, 0.5)], "test", RULES)   # 90% [-1.22, +0.42]
    assert undecided.halves[1].word == "inconclusive" and "not shown to be worse: inconclusive" in undecided.details[1]
    elsewhere = zero_dims_claim([zero_dims(0.1, 0.3), zero_dims_long(-3.0, 0.4, "test")], "test", RULES)
    assert elsewhere.halves[1].word == "not run"   # the long half is read on the reserved long test set only


def zeroed_attention(metric: str, test_set: str, train_words: str, gap_short: float, gap_long: float,
                     seeds: int = 8, planned: int = 8) -> AlignmentRow:
    """A zeroed-dims model's alignment against sinusoidal, gaps with ±0.02 intervals."""
    group = LONG_GROUP if train_words == "11-17" else SHORT_GROUP
    return AlignmentRow(setting=f"zero {train_words}", group=group, encoding="sinusoidal", ablation="zero_dims",
                        test_set=test_set, train_words=train_words, seeds=seeds, planned_seeds=planned,
                        metric=metric, better=-1 if metric == "aer" else 1, short_sentences=111, long_sentences=336,
                        gap_short=Quantity(gap_short, gap_short - .02, gap_short + .02, 0.5),
                        gap_long=Quantity(gap_long, gap_long - .02, gap_long + .02, 0.001))


def test_claim_a_shows_each_zeroed_model_s_attention_on_its_own_lengths_deciding_nothing():
    """The note sees (a)'s long half in the cross-attention: every metric is shown, on the gold links where the
    group was scored on them, on the lengths it trained on, with its direction; the words stay BLEU's."""
    rows = [zeroed_attention("diagonal_share_normalised", "hansards_gold", "11-17", +0.001, -0.060),
            zeroed_attention("aer", "hansards_gold", "11-17", -0.001, +0.080),
            zeroed_attention("aer", "long_test", "11-17", -0.5, -0.5),          # silver: the gold links decide
            zeroed_attention("aer", "test", "1-9", +0.003, -0.300, seeds=3, planned=11),
            alignment(0.05, 0.15, (0.10, 0.07, 0.13, 0.001))]                   # no PE: (c)'s, not (a)'s
    verdict = zero_dims_claim([zero_dims(0.1, 0.3), zero_dims_long(-3.0, 0.4)], "test", RULES, rows)
    assert [h.word for h in verdict.halves] == ["holds", "holds"]   # as without the attention lines
    lines = [d for d in verdict.details if d.startswith("Attention")]
    assert len(lines) == 2
    long_group = next(line for line in lines if "trained on words 11-17" in line)
    assert "`hansards_gold` (human gold links)" in long_group and "long_test" not in long_group
    assert "short sentences" not in long_group   # trained on 11-17: read on long sentences only
    assert ("long sentences (n=336): AER +0.080 [+0.060, +0.100] (p=0.001): zeroed aligns worse; diagonal share "
            "-0.060 [-0.080, -0.040] (p=0.001): zeroed aligns worse") in long_group
    short_group = next(line for line in lines if "trained on words 1-9" in line)
    assert "`test`," in short_group and "(3 seeds; pending: 3 of 11 planned seeds)" in short_group
    # an interim look: its figures, no direction word
    assert "short sentences (n=111): AER +0.003 [-0.017, +0.023] (p=0.500)." in short_group
    assert "long sentences" not in short_group
    one = zero_dims_claim([], "test", RULES, [zeroed_attention("aer", "test", "1-9", 0.3, 0.0, seeds=1, planned=None)])
    assert "trained on words 1-9 (one seed: its intervals are over sentences only)" in one.details[0]
    assert one.details[0].endswith("AER +0.300 [+0.280, +0.320] (p=0.500).")   # shown, but no word on one seed
    first = zero_dims_claim([], "test", RULES, [zeroed_attention("aer", "hansards_gold", "11-17", 0.0, 0.08, seeds=1,
                                                                 planned=8)])
    assert "(one seed: its intervals are over sentences only; pending: 1 of 8 planned seeds)" in first.details[0]
    assert "aligns" not in first.details[0]
    without = zero_dims_claim([zero_dims(0.1, 0.3), zero_dims_long(-3.0, 0.4)], "test", RULES)
    assert not any(d.startswith("Attention") for d in without.details)


def test_a_span_too_small_to_decide_decides_nothing():
    small = dataclasses.replace(zero_dims(-3.0, 0.4), sentences=4)
    verdict = zero_dims_claim([small], "test", RULES)
    assert verdict.status == "not measured" and "too few to decide" in verdict.details[0]
    assert "*" not in verdict.details[0].split("BLEU (")[1].split(";")[0] and verdict.family == ""


def test_claim_b_reads_each_group_on_its_own_lengths_and_contrasts_the_groups_by_hand():
    verdict = no_pe_claim(two_groups(), "test", RULES)
    contrast = -6.0 - (-0.2)
    se = math.sqrt(0.2 ** 2 + 0.5 ** 2)
    assert verdict.status == "supported", verdict.details
    short, long, between = verdict.details[:3]
    assert short.startswith("short, `test`, trained on words 1-9, 1-9 words (n=2,400")
    assert long.startswith("long, `long_test`, trained on words 11-17, 11-17 words (n=1,100") and "worse" in long
    assert f"{contrast:+.2f} [{contrast - Z95 * se:+.2f}, {contrast + Z95 * se:+.2f}] BLEU" in between
    assert "long sentences lose more" in between and "-20% of 30.00" in long  # relative to the baseline's BLEU
    assert "length ratio 0.95, BP 0.95 (baseline 0.97, 0.97)" in long


def test_claim_b_with_a_contradicted_half_is_not_supported_as_stated():
    flat = no_pe_claim(two_groups(short_delta=-3.0, short_se=0.3, long_delta=-3.2, long_se=0.5), "test", RULES)
    assert [h.word for h in flat.halves] == ["contradicted", "inconclusive"]  # long worse, but no larger loss
    assert flat.status == "not supported as stated"
    assert flat.headline == "not supported as stated (short half contradicted, long half inconclusive)"
    assert "not shown that long sentences lose more" in flat.details[2]
    as_the_review_found = no_pe_claim(two_groups(short_delta=-4.37, short_se=0.8, long_delta=-8.9, long_se=0.6),
                                      "test", RULES)
    assert as_the_review_found.status == "not supported as stated"   # never "partly supported"
    none = no_pe_claim(two_groups(short_delta=0.0, long_delta=0.3, long_se=0.5), "test", RULES)
    assert [h.word for h in none.halves] == ["holds", "inconclusive"] and none.status == "inconclusive"
    same_long = no_pe_claim(two_groups(short_delta=0.0, long_delta=0.1, long_se=0.2), "test", RULES)
    assert same_long.halves[1].word == "contradicted"   # the long half is shown about the same
    unclear = no_pe_claim(two_groups(short_se=1.0), "test", RULES)
    assert [h.word for h in unclear.halves] == ["inconclusive", "holds"] and unclear.status == "inconclusive"


def test_claim_b_without_both_groups_is_not_measured():
    assert no_pe_claim(two_groups()[:1], "test", RULES).status == "not measured"


def normal(delta: float, se: float) -> Quantity:
    """A Δ with a normal interval of standard error `se` (its 95% and 90% intervals and p)."""
    return Quantity(delta, delta - Z95 * se, delta + Z95 * se, t_two_sided_p(delta / se, 1000), delta - Z90 * se,
                    delta + Z90 * se, se, 2.8 * se, [delta] * 8, "t over 8 seeds")


def one_model(metric: str, short: tuple, long: tuple, interaction: tuple, seeds: int = 8) -> WithinRow:
    """No PE against sinusoidal within models trained on every length: (Δ, se) on `test` 1-10 and `long_test`
    11-17, and the interaction paired by seed."""
    return WithinRow(setting="nope all", group="train words all", encoding="none", ablation="none",
                     test_set="test + long_test", seeds=seeds, metric=metric, short_test_set="test", short_span="1-10",
                     long_test_set="long_test", long_span="11-17", short_sentences=2400, long_sentences=1206,
                     system_short=40.0 + short[0], system_long=30.0 + long[0], baseline_short=40.0,
                     baseline_long=30.0, delta_short=normal(*short), delta_long=normal(*long),
                     interaction=normal(*interaction))


def test_claim_b_is_decided_within_one_model_and_the_groups_are_read_second():
    """Within the all-lengths models: short −0.1 (about the same), long −5 (worse), interaction −4.9 (below 0):
    supported, whatever the two groups say (here their long half would be contradicted)."""
    within = [one_model("bleu", (-0.1, 0.2), (-5.0, 0.6), (-4.9, 0.6))]
    groups = two_groups(short_delta=0.0, long_delta=0.1, long_se=0.2)
    assert no_pe_claim(groups, "test", RULES).halves[1].word == "contradicted"   # decided across groups alone
    verdict = no_pe_claim(groups, "test", RULES, one_model=within)
    assert verdict.status == "supported", verdict.details
    short, long, interaction = verdict.details[:3]
    assert short.startswith("short, within one model: `test`, 1-10 words (n=2,400; BLEU 39.90 against 40.00), "
                            "8 seeds, trained on every length: no PE minus sinusoidal -0.10 [")
    assert "about the same: within ±1 BLEU" in short and short.endswith(": holds.")
    assert long.startswith("long, within the same models: `long_test`, 11-17 words (n=1,206") and "worse: holds" in long
    assert interaction.startswith("Δ_long − Δ_short within each model, paired by seed") and "lose more" in interaction
    second = [d for d in verdict.details if d.startswith("across groups (the second reading, deciding nothing)")]
    assert len(second) == 3 and not any("holds" in d or "contradicted" in d for d in second)
    assert verdict.family.endswith("over the 3 tests of claim (b) on this page")   # the groups add no test
    assert [r.label for r in verdict.halves[1].readings] == ["`long_test` 11-17 words, within one model (all lengths)"]
    flat = no_pe_claim([], "test", RULES, one_model=[one_model("bleu", (-3.0, 0.3), (-3.2, 0.5), (-0.2, 0.5))])
    assert [h.word for h in flat.halves] == ["contradicted", "inconclusive"]   # a loss everywhere, no larger on long
    assert flat.status == "not supported as stated"
    waiting = no_pe_claim([], "test", RULES, one_model=[dataclasses.replace(
        one_model("bleu", (-0.1, 0.2), (-5.0, 0.6), (-4.9, 0.6), seeds=5), planned_seeds=8)])
    assert waiting.status.startswith("pending: 5 of 8 planned seeds") and "*" not in " ".join(waiting.details)


def test_claim_b_says_whether_no_pe_keeps_the_words_and_loses_their_order():
    bleu = one_model("bleu", (-0.1, 0.2), (-5.0, 0.6), (-4.9, 0.6))
    keeps = [bleu, one_model("unigram_f", (0.1, 0.2), (-0.3, 0.3), (-0.4, 0.4)),
             one_model("order_tau", (0.0, 0.01), (-0.08, 0.02), (-0.08, 0.02)),
             one_model("token_accuracy", (0.0, 0.1), (-0.5, 0.3), (-0.5, 0.3))]
    line = no_pe_claim([], "test", RULES, one_model=keeps).details[3]
    assert line.startswith("Word choice and word order on long sentences (secondary, unadjusted, deciding nothing)")
    assert line.endswith("no PE keeps the words (unigram F within ±1 point) and loses their order (τ below 0).")
    assert "teacher-forced token accuracy -0.50 [" in line
    drops = [bleu, one_model("unigram_f", (0.1, 0.2), (-4.0, 0.3), (-4.1, 0.4)),
             one_model("order_tau", (0.0, 0.01), (0.01, 0.02), (0.01, 0.02))]
    assert no_pe_claim([], "test", RULES, one_model=drops).details[3].endswith(
        "no PE is not shown to keep the words (unigram F within ±1 point) and is not shown to lose their order "
        "(τ below 0).")


def alignment(gap_short: float, gap_long: float, interaction: tuple, metric: str = "aer") -> AlignmentRow:
    better = -1 if metric == "aer" else 1
    return AlignmentRow(setting="nope", group=SHORT_GROUP, encoding="none", ablation="none", test_set="test", seeds=3,
                        metric=metric, better=better, short_sentences=2400, long_sentences=400, baseline_short=0.3,
                        baseline_long=0.35, system_short=0.3 + gap_short, system_long=0.35 + gap_long,
                        gap_short=Quantity(gap_short, gap_short - .01, gap_short + .01, 0.001),
                        gap_long=Quantity(gap_long, gap_long - .02, gap_long + .02, 0.001),
                        gap_interaction=Quantity(*interaction),
                        system_long_minus_short=Quantity(0.05, 0.04, 0.06, 0.001),
                        baseline_long_minus_short=Quantity(0.05, 0.04, 0.06, 0.001))


def test_claim_c_needs_the_gap_to_grow_with_length():
    grows = diagonal_claim([alignment(0.05, 0.15, (0.10, 0.07, 0.13, 0.001))], "test", RULES)
    assert grows.status == "supported"
    assert "AER (primary): no PE aligns worse on long sentences, the gap grows from short to long: holds" \
        in grows.details[0]
    assert "AER against silver links (lower is better)" in grows.details[0]
    shrinks = diagonal_claim([alignment(0.15, 0.05, (-0.10, -0.13, -0.07, 0.001))], "test", RULES)
    assert shrinks.status == "inconclusive" and "the gap shrinks from short to long" in shrinks.details[0]
    better = diagonal_claim([alignment(-0.05, -0.15, (-0.10, -0.13, -0.07, 0.001))], "test", RULES)
    assert better.status == "not supported as stated"   # no PE aligns better on long sentences: contradicted
    no_gap = diagonal_claim([alignment(0.0, 0.0, (0.0, -0.02, 0.02, 1.0))], "test", RULES)
    assert no_gap.status == "inconclusive"   # no margin for silver AER: "not shown" is not "the same"
    flat = diagonal_claim([alignment(0.05, 0.06, (0.01, -0.01, 0.03, 0.3))], "test", RULES)
    assert flat.status == "inconclusive" and "no change of the gap shown" in flat.details[0]


def test_claim_c_decides_on_aer_shows_every_metric_and_says_where_they_disagree():
    share = alignment(-0.1, -0.2, (-0.1, -0.12, -0.08, 0.001), "diagonal_share_normalised")
    tau = alignment(-0.1, -0.2, (-0.1, -0.12, -0.08, 0.001), "monotonicity")
    aer = alignment(0.0, 0.0, (0.0, -0.02, 0.02, 1.0))
    verdict = diagonal_claim([share, aer, tau], "test", RULES)
    assert verdict.status == "inconclusive"  # read on AER
    line = verdict.details[0]
    assert line.index("AER against silver links") < line.index("normalised diagonal share") < line.index("Kendall τ")
    assert "diagonal share: no PE aligns worse on long sentences, the gap grows from short to long" in line
    assert "diagonal share, τ say otherwise" in line
    agree = diagonal_claim([alignment(0.05, 0.15, (0.10, 0.07, 0.13, 0.001)),
                            alignment(-0.05, -0.15, (-0.10, -0.13, -0.07, 0.001), "monotonicity")], "test", RULES)
    assert agree.status == "supported" and "the metrics agree" in agree.details[0]
    assert diagonal_claim([share], "test", RULES).status == "supported"   # no AER recorded: the share decides
    elsewhere = dataclasses.replace(aer, test_set="multi30k")
    two = diagonal_claim([share, aer, elsewhere], "test", RULES)
    assert len(two.details) == 2 and two.details[1].startswith("`multi30k`")   # one line per test set
    assert two.details[0].count("AER against silver links") == 1


def test_a_decided_claim_c_names_the_metrics_that_disagree_wherever_it_is_summarised():
    """Gold AER decides; a diagonal share that says the gap shrinks is named in the verdict's dissent, so the README's
    sentence and the page's list of disagreements carry it; the gap's change is the row below the half's Δ."""
    from translate.study.pages.readme import claims_lines
    from translate.study.pages.results import undecided_lines

    aer = alignment(0.05, 0.15, (0.03, 0.001, 0.06, 0.04))
    shrinks = alignment(-0.2, -0.1, (0.1, 0.08, 0.12, 0.001), "diagonal_share_normalised")
    verdict = diagonal_claim([aer, shrinks], "test", RULES)
    assert verdict.status == "supported"
    assert verdict.dissent == ["diagonal share: no PE aligns worse on long sentences, the gap shrinks from short to "
                               "long"]
    text = "\n".join(claims_lines([verdict], "sweeps/x"))
    assert "| long | its condition: the gap grows from short to long (long − short) | +0.030 [+0.001, +0.060] AER " \
           "| met |" in text
    assert ("What the data show: long: +0.150 AER; not every metric agrees (the others decide nothing): diagonal "
            "share: no PE aligns worse on long sentences, the gap shrinks from short to long.") in text
    line = undecided_lines([verdict])[0]
    assert line.startswith("Where the data disagree or cannot decide: (c) is supported (long half holds) on its "
                           "deciding metric, but not every metric agrees (diagonal share: ")
    agree = diagonal_claim([aer, alignment(-0.1, -0.2, (-0.1, -0.12, -0.08, 0.001), "diagonal_share_normalised")],
                           "test", RULES)
    assert agree.status == "supported" and agree.dissent == [] and undecided_lines([agree]) == []
    waiting = diagonal_claim([dataclasses.replace(r, planned_seeds=8) for r in (aer, shrinks)], "test", RULES)
    assert waiting.dissent == []   # an interim look decides nothing, so nothing is named against it


def test_claim_c_before_its_verdict_names_the_primary_direction_the_others_are_read_against():
    """An interim look (or one seed) gives the primary no word; its unadjusted direction is still written, so that
    "say otherwise" says otherwise than something on the line."""
    share = alignment(-0.1, -0.2, (-0.1, -0.12, -0.08, 0.001), "diagonal_share_normalised")
    aer = alignment(0.0, 0.0, (0.0, -0.02, 0.02, 1.0))
    waiting = diagonal_claim([dataclasses.replace(r, planned_seeds=8) for r in (share, aer)], "test", RULES)
    line = waiting.details[0]
    assert waiting.status.startswith("pending: 3 of 8 planned seeds")
    assert line.index("an interim look") < line.index(
        "AER (primary, unadjusted): no difference shown on long sentences, no change of the gap shown") \
        < line.index("diagonal share says otherwise")
    one = diagonal_claim([dataclasses.replace(r, seeds=1) for r in (share, aer)], "test", RULES).details[0]
    assert "one seed; AER (primary, unadjusted): no difference shown" in one and "diagonal share says otherwise" in one


def test_claim_c_is_decided_on_the_human_gold_links_once_models_were_scored_on_them():
    silver = alignment(0.05, 0.15, (0.10, 0.07, 0.13, 0.001))
    gold = dataclasses.replace(alignment(0.0, 0.01, (0.01, -0.02, 0.04, 0.5)), test_set="hansards_gold")
    verdict = diagonal_claim([silver, gold], "test", RULES)
    assert verdict.status == "inconclusive"   # gold AER decides: no gap shown there, whatever silver says
    silver_line, gold_line = verdict.details
    assert "decides nothing: not the deciding test set" in silver_line
    assert gold_line.startswith("`hansards_gold`") and "AER against the human gold links (lower is better)" in gold_line
    assert verdict.family.endswith("over the 2 tests of claim (c) on this page")
    assert diagonal_claim([silver], "test", RULES).status == "supported"   # no gold scores: silver decides
    # the plan's ±0.05 on the gold links: about the same shown there contradicts the half; silver AER has no margin
    same = Quantity(0.005, -0.015, 0.025, 0.6, -0.012, 0.022)
    level = dataclasses.replace(gold, gap_long=same)
    contradicted = diagonal_claim([silver, level], "test", RULES)
    assert contradicted.status == "not supported as stated" and contradicted.halves[0].word == "contradicted"
    assert ("AER (primary): no difference shown on long sentences, no change of the gap shown, about the same on long "
            "sentences (90% [-0.012, +0.022] inside ±0.05): contradicted") in contradicted.details[1]
    wider = dataclasses.replace(gold, gap_long=Quantity(0.005, -0.05, 0.06, 0.8, -0.04, 0.051))
    assert diagonal_claim([silver, wider], "test", RULES).status == "inconclusive"   # 90% not inside ±0.05
    assert diagonal_claim([dataclasses.replace(level, test_set="test")], "test", RULES).status == "inconclusive"


def test_check_claims_gives_the_three_in_order():
    verdicts = check_claims([zero_dims(0.1, 0.3)] + two_groups(), [], "test", RULES)
    assert [v.claim[:3] for v in verdicts] == ["(a)", "(b)", "(c)"]
    assert [v.status for v in verdicts] == ["inconclusive", "supported", "not measured"]


def test_alignment_contrasts_from_fabricated_per_sentence_values():
    """Four short and four long sentences, each its own group: no PE aligns 0.1 worse on short and 0.3 worse on long
    sentences (normalised share): the gaps, their interaction and the levels come out as computed by hand."""
    words = [3, 4, 5, 6, 12, 13, 14, 15]
    base = np.array([0.5, 0.6, 0.5, 0.6, 0.4, 0.5, 0.4, 0.5])
    system = base - np.array([0.1] * 4 + [0.3] * 4)

    def job(name, values):
        scores = SetScores("test", by_length=LengthReport(per_sentence={"diagonal_share_normalised": list(values)}))
        return SimpleNamespace(name=name, test_sets=lambda: {"test": scores})
    nope, sin = job("nope", system), job("sin", base)
    test = SimpleNamespace(words=lambda _: words, groups=Groups.singletons(len(words)))
    aggregator = SimpleNamespace(paired=lambda setting, name: [(nope, sin)], test_set=lambda job, name: test,
                                 rules=SimpleNamespace(samples=999))
    row, = alignment_rows(aggregator, None, "test", RowSetting(setting="nope"))
    assert row.setting == "nope" and row.metric == "diagonal_share_normalised" and row.jobs == "nope"
    assert row.gap_short.delta == pytest.approx(-0.1) and row.gap_long.delta == pytest.approx(-0.3)
    assert row.gap_interaction.delta == pytest.approx(-0.2)
    assert row.gap_interaction.low == pytest.approx(-0.2) == row.gap_interaction.high  # constant gaps
    assert row.baseline_long_minus_short.delta == pytest.approx(0.45 - 0.55)
    assert row.system_long_minus_short.delta == pytest.approx(0.15 - 0.45)
    assert (row.short_sentences, row.long_sentences) == (4, 4)
    assert (row.system_short, row.baseline_short) == (pytest.approx(0.45), pytest.approx(0.55))


def test_the_readme_gives_each_claim_a_short_table_of_its_halves_and_the_forest_plot():
    """The README's summary: the forest plot, then per claim its headline, a table of its halves (each deciding Δ
    with its 95% interval and word, a half without runs as "not run") and one sentence of what the data show."""
    from translate.study.pages.readme import claims_lines

    b = no_pe_claim(two_groups(short_delta=-4.37, short_se=0.8, long_delta=-8.94, long_se=0.6), "test", RULES)
    a = zero_dims_claim([zero_dims(0.1, 0.3), zero_dims(0.1, 0.3, "multi30k")], "test", RULES)
    lines = claims_lines([a, b], "sweeps/x", "docs/results/forest.png")
    assert lines[2].startswith("![Every deciding Δ") and lines[2].endswith("(docs/results/forest.png)")
    text = "\n".join(lines)
    assert "**(a) Zeroing PE dimensions ≥ 400 barely changes BLEU on short sentences, and costs BLEU on long ones.** " \
           "— inconclusive (short half holds, long half not run)." in text
    assert "| short | `test`, trained on words 1-9 | +0.10 [-0.49, +0.69] BLEU | holds |" in text
    assert "| long | – | – | not run |" in text and "multi30k" not in text   # only the deciding test set
    assert "— not supported as stated (short half contradicted, long half holds)." in text
    condition = next(line for line in lines if "its condition" in line)   # the row below the long half's Δ
    assert condition.startswith("| long | its condition: Δ_long − Δ_short between the two groups | -4.57 [") \
        and condition.endswith("BLEU | met |")
    assert lines[lines.index(condition) - 1].startswith("| long | `long_test`")
    assert "What the data show: short: -4.37 BLEU (-15% of the baseline); long: -8.94 BLEU (-30% of the baseline)." \
        in text
    assert not any(line.startswith("  - ") for line in lines)   # the long lines stay on the page
