"""The controls of claim (a) and claims (b) and (c) read against other encodings than sinusoidal: verdicts from
fabricated report rows that can come out either way, then the results page of a fabricated sweep holding them."""
from __future__ import annotations

import dataclasses

from test_sweep_aggregate import SMALL_TEST, broken_long, make_job, perfect, references  # noqa: F401 (fixture)
from test_study_claims import RULES, SHORT_GROUP, alignment, span, two_groups
from translate.analysis.sweep import build_report
from translate.study.verdicts.claims import diagonal_claim, no_pe_claim
from translate.study.verdicts.verdict import Reference
from translate.study.verdicts.controls import CONTROLS, check_controls, other_encodings
from translate.study.pages.results import write_results_page
from translate.analysis.sweep.rows import RowSetting, SpanRow

LOW_DIMS = {"_target_": "translate.ablations.zero_dims.ZeroDims", "name": "zero_low_dims", "from": None,
            "ranges": [[0, 112]]}


def control(ablation: str, delta: float, se: float, test_set: str = "test") -> SpanRow:
    """A control job's span on the short lengths it was trained on: Δ ± 1.96 se."""
    return span(ablation, SHORT_GROUP, "sinusoidal", ablation, test_set, 1, 9, delta, se)


def test_no_control_jobs_no_control_verdicts():
    assert check_controls(two_groups(), "test", RULES) == []


def test_the_positive_control_says_whether_a_retrained_model_shows_a_loss():
    hurt, = check_controls([control("zero_low_dims", -6.0, 0.5)], "test", RULES)
    assert hurt.status == "worse" and "zero_low_dims minus sinusoidal -6.00 [-6.98, -5.02] BLEU" in hurt.details[0]
    assert hurt.details[-1].startswith("Retrained without dims that carry position")
    unseen, = check_controls([control("zero_low_dims", -1.0, 1.0)], "test", RULES)   # 90% [-2.64, +0.64]: not within ±1
    assert unseen.status == "not shown to be worse"
    assert unseen.details[-1] == ("On `test` the loss is neither shown nor ruled out (too few sentences or seeds): "
                                  "there a loss like it may go unseen by (a) too.")
    made_up, = check_controls([control("zero_low_dims", -0.1, 0.2)], "test", RULES)   # 90% [-0.43, +0.23]: within ±1
    assert made_up.status == "not shown to be worse" and "(about the same: within ±1 BLEU)" in made_up.details[0]
    assert made_up.details[-1].startswith("On `test` a retrained model made up for the lost dims (about the same "
                                          "within ±1 BLEU): there (a), which retrains too, cannot show")
    both = check_controls([control("zero_low_dims", -1.0, 1.0), control("zero_low_dims", -6.0, 0.5, "other")],
                          "test", RULES)[0]
    assert both.status == "not shown to be worse"
    assert both.details[-1].startswith("On `other` the model retrained without dims that carry position loses BLEU, "
                                       "so there the test of (a) can see such a loss; on `test` the loss is neither")


def test_a_one_seed_positive_control_is_exploratory_and_says_why():
    one, = check_controls([span("zero_low_dims", SHORT_GROUP, "sinusoidal", "zero_low_dims", "test", 1, 9, -6.0,
                                0.5, seeds=1)], "test", RULES)
    assert one.status == "one seed" and "*" not in one.details[0] and one.family == ""
    assert one.details[-1].startswith("One seed: this pair of models shows what one retraining")


def test_the_mean_and_test_time_controls_are_equivalence_tests():
    mean, at_test = check_controls([control("zero_dims_mean", 0.2, 0.3), control("zero_dims_at_test", -4.0, 0.4)],
                                   "test", RULES)
    assert mean.claim.startswith("Control: PE dimensions ≥ 400 set to their mean") and mean.status == "about the same"
    assert at_test.status == "different" and "zero_dims_at_test minus sinusoidal" in at_test.details[0]
    mean_at_test, = check_controls([control("zero_dims_mean_at_test", 0.1, 0.3)], "test", RULES)
    assert mean_at_test.claim.startswith("Control: PE dimensions ≥ 400 set to their mean over positions at test time")
    assert mean_at_test.status == "about the same"
    wide, = check_controls([control("zero_dims_mean", 0.2, 1.5)], "test", RULES)
    assert wide.status == "inconclusive"
    assert [c.must_hurt for c in CONTROLS].count(True) == 1


def test_a_control_of_the_long_models_is_read_on_the_reserved_long_test_set():
    """(a)'s long half: dims >= 400 zeroed at test time in models trained on 11-17 words, on `long_test` (deciding)
    and on `test`'s few long sentences (shown, deciding nothing); beside the short models' reading."""
    long_ = span("zero_dims_at_test", "train words 11-17", "sinusoidal", "zero_dims_at_test", "long_test", 11, 17,
                 -3.0, 0.4, 1200)
    decoy = span("zero_dims_at_test", "train words 11-17", "sinusoidal", "zero_dims_at_test", "test", 11, 17, 0.1,
                  0.3, 250)
    at_test, = check_controls([control("zero_dims_at_test", 0.1, 0.2), long_, decoy], "test", RULES)
    assert at_test.status == "about the same (words 1-9); different (words 11-17)"
    assert [r.word for r in at_test.shown] == ["about the same", "different"]
    assert any(d.startswith("`long_test`, trained on words 11-17") and "different" in d for d in at_test.details)
    assert any(d.startswith("`test`, trained on words 11-17") and "decides nothing" in d for d in at_test.details)
    assert at_test.family.endswith("over the 2 tests of control zero_dims_at_test on this page")


def test_a_control_group_still_waiting_for_its_seeds_is_named_as_pending_not_as_disagreeing():
    """The long models' control at 3 of its 8 planned seeds: the short models' word stands, the long group's line
    says it is pending, and the status names each group rather than calling them different."""
    waiting = dataclasses.replace(span("zero_dims_at_test", "train words 11-17", "sinusoidal", "zero_dims_at_test",
                                       "long_test", 11, 17, -3.0, 0.4, 1200), planned_seeds=8)
    at_test, = check_controls([control("zero_dims_at_test", 0.1, 0.2), waiting], "test", RULES)
    assert at_test.status == "about the same (words 1-9); pending: 3 of 8 planned seeds (words 11-17)"
    assert [r.word for r in at_test.shown] == ["about the same", "pending: 3 of 8 planned seeds"]
    together, = check_controls([control("zero_dims_at_test", 0.1, 0.2), control("zero_dims_at_test", 0.0, 0.2)],
                               "test", RULES)
    assert together.status == "about the same"


def test_claims_b_and_c_read_against_another_encoding():
    """Spans whose Δ is against rope (a report with rope as its baseline): the verdict names rope."""
    rope = Reference("rope")
    b = no_pe_claim(two_groups(), "test", RULES, pe=rope)
    c = diagonal_claim([alignment(0.05, 0.15, (0.10, 0.07, 0.13, 0.001))], "test", RULES, pe=rope)
    assert (b.status, c.status) == ("supported", "supported"), (b.details, c.details)
    assert "no PE minus rope" in b.details[0] and "no PE minus rope" in c.details[0]
    rows = [RowSetting(encoding=e, ablation="none") for e in ("sinusoidal", "none", "rope")]
    assert other_encodings(rows) == ["rope"] and other_encodings(rows[:2]) == []


def test_the_results_page_shows_the_controls_and_the_other_encodings(tmp_path, references):  # noqa: F811
    """rope translates perfectly, no PE breaks the long sentences, zeroing dims [0, 112) breaks them too: the page
    reads (b) and (c) against rope as well, and the positive control as not shown worse on the short sentences
    (it translates them perfectly)."""
    good, bad = perfect(references), broken_long(references)
    sweep = tmp_path / "sweep"
    make_job(sweep / "sin", "sinusoidal", 1, (1, 9), good, references, 0.9)
    make_job(sweep / "rope", "rope", 1, (1, 9), good, references, 0.8)
    make_job(sweep / "nope", "none", 1, (1, 9), bad, references, 0.3)
    make_job(sweep / "low", "sinusoidal", 1, (1, 9), bad, references, 0.5, ablation=LOW_DIMS)
    build_report(sweep, samples=100, min_bucket=20)  # the small test set has 45 sentences of 11-15 words
    text = write_results_page(sweep, tmp_path / "docs" / "results.md").read_text()
    # one seed a setting: the positive control is exploratory, with no word
    assert "**Control: PE dimensions [0, 112) zeroed, the positive control: it must hurt.** — one seed." in text
    assert "One seed: this pair of models shows what one retraining" in text
    assert "**(b) Without PE, short sentences translate about as well, long ones much worse.** With rope as the " \
           "PE — " in text
    assert "`test`, all jobs, 1-9 words (n=" in text and "zero_low_dims minus sinusoidal" in text
    assert "tested at step 100" in text
    assert text.index("With rope as the PE") < text.index("## Scores")


def test_the_page_header_gives_the_range_of_a_budget_that_differs_between_jobs():
    from translate.analysis.sweep.cells import value_range

    assert value_range([85.17, 47.6, None], 1) == "47.6–85.2"  # None: an evaluation-only job
    assert value_range([600, 600], 0) == "600" and value_range([], 0) == "–"


def test_the_page_header_names_each_model_size_of_its_comparisons():
    """Claim (a) trains at base_cpu beside (b) and (c) at small: the header names both sizes, not the first row's."""
    from translate.study.pages.results import models
    from translate.analysis.sweep.rows import ReportRow

    small = ReportRow(model="small", parameters=7578624, steps=3400)
    base_cpu = ReportRow(model="base_cpu", parameters=19869696, steps=3000)
    control_at_test = ReportRow(model="base_cpu", parameters=19869696, steps=None)  # evaluation only
    assert models([small, small]) == "model small, 7,578,624 parameters"
    assert models([base_cpu, small, control_at_test]) == \
        "models small (7,578,624 parameters) and base_cpu (19,869,696 parameters)"
