"""The controls of claim (a) and claims (b) and (c) read against other encodings than sinusoidal: verdicts from
fabricated report rows that can come out either way, then the results page of a fabricated sweep holding them."""
from __future__ import annotations

from test_report_aggregate import SMALL_TEST, broken_long, make_job, perfect, references  # noqa: F401 (fixture)
from test_report_aggregate_claims import BASE, rows_for, sweep_rows
from translate.analysis.sweep import build_report
from translate.analysis.sweep.claims import Reference, diagonal_claim, no_pe_claim
from translate.analysis.sweep.controls import CONTROLS, check_controls, other_encodings
from translate.analysis.sweep.results_page import write_results_page

GROUP = "train words 1-9"
LOW_DIMS = {"_target_": "translate.ablations.zero_dims.ZeroDims", "name": "zero_low_dims", "from": None,
            "ranges": [[0, 112]]}


def control_rows(ablation: str, short_delta: float, short_width: float) -> list[dict]:
    """A control job whose Δ on the short buckets is short_delta ± short_width (0 on the long ones)."""
    bleu = {b: v + (short_delta if b in ("1-5", "6-10") else 0) for b, v in BASE.items()}
    return rows_for(GROUP, "sinusoidal", ablation, bleu, {b: bleu[b] - BASE[b] for b in BASE},
                    {"1-5": short_width, "6-10": short_width}, {b: 0.6 for b in BASE})


def test_no_control_jobs_no_control_verdicts():
    assert check_controls(sweep_rows()) == []


def test_the_positive_control_says_where_a_retrained_model_shows_a_loss():
    hurt, = check_controls(sweep_rows() + control_rows("zero_low_dims", -6.0, 1.0))
    assert hurt.status == "worse" and "zero_low_dims minus sinusoidal: 1-5 (n=1000, trained lengths): -6.00 " \
                                      "[-7.00, -5.00] BLEU" in hurt.details[0]
    assert hurt.details[-1].startswith("Worse on 1-5 words (trained on words 1-9), 6-10 words (trained on words 1-9)")
    assert "Not shown" not in hurt.details[-1]
    unseen, = check_controls(sweep_rows() + control_rows("zero_low_dims", -1.0, 2.0))
    assert unseen.status == "not shown to be worse" and "a retrained model made up for the lost dims" in \
        unseen.details[-1] and "Worse on" not in unseen.details[-1]
    rows = control_rows("zero_low_dims", -1.0, 2.0)
    for r in rows:  # 6-10 clearly worse, 1-5 not
        if r["bucket"] == "6-10":
            r.update(delta_bleu=-3.0, delta_bleu_low=-4.0, delta_bleu_high=-2.0)
    partly, = check_controls(sweep_rows() + rows)
    assert partly.status == "partly worse"
    assert "Worse on 6-10 words (trained on words 1-9)" in partly.details[-1]
    assert "Not shown to be worse on 1-5 words (trained on words 1-9)" in partly.details[-1]


def test_the_mean_and_test_time_controls_are_equivalence_tests():
    rows = (sweep_rows() + control_rows("zero_dims_mean", 0.2, 0.5) + control_rows("zero_dims_at_test", -4.0, 0.5))
    mean, at_test = check_controls(rows)
    assert mean.claim.startswith("Control: PE dimensions ≥ 400 set to their mean") and mean.status == "about the same"
    assert at_test.status == "different" and "zero_dims_at_test minus sinusoidal" in at_test.details[0]
    wide, = check_controls(sweep_rows() + control_rows("zero_dims_mean", 0.2, 3.0))
    assert wide.status == "not shown to be about the same"
    assert [c.must_hurt for c in CONTROLS].count(True) == 1


def test_claims_b_and_c_read_against_another_encoding():
    """Rows whose Δ is against rope (a report with rope as its baseline): the verdict names rope, and the sinusoidal
    rows in the same list are not read as the PE."""
    rows = [dict(r, encoding="rope") if r["encoding"] == "sinusoidal" and r["ablation"] == "none" else r
            for r in sweep_rows()]
    rope = Reference("rope")
    b, c = no_pe_claim(rows, pe=rope), diagonal_claim(rows, pe=rope)
    assert (b.status, c.status) == ("supported", "supported")
    assert "no PE minus rope, short:" in b.details[0] and "with rope / without PE" in c.details[0]
    assert no_pe_claim(rows).status == "not measured"  # no sinusoidal job there any more
    assert other_encodings(rows) == ["rope"] and other_encodings(sweep_rows()) == []


def test_the_results_page_shows_the_controls_and_the_other_encodings(tmp_path, references):  # noqa: F811
    """rope translates perfectly, no PE breaks the long sentences, zeroing dims [0, 112) breaks them too: the page
    reads (b) and (c) against rope as well, and the positive control as not shown worse on the short sentences."""
    good, bad = perfect(references), broken_long(references)
    sweep = tmp_path / "sweep"
    make_job(sweep / "sin", "sinusoidal", 1, (1, 9), good, references, 0.9)
    make_job(sweep / "rope", "rope", 1, (1, 9), good, references, 0.8)
    make_job(sweep / "nope", "none", 1, (1, 9), bad, references, 0.3)
    make_job(sweep / "low", "sinusoidal", 1, (1, 9), bad, references, 0.5, ablation=LOW_DIMS)
    build_report(sweep, samples=100, min_bucket=20)  # the small test set has 45 sentences of 11-15 words
    text = write_results_page(sweep, tmp_path / "docs" / "results.md").read_text()
    assert "**Control: PE dimensions [0, 112) zeroed, the positive control: it must hurt.** — not shown to be " \
           "worse." in text
    assert "**(b) Without PE, short sentences translate about as well, long ones much worse.** With rope as the " \
           "PE — " in text
    assert "no PE minus rope, short: 1-5" in text and "diagonal share with rope / without PE" in text
    assert text.index("With rope as the PE") < text.index("## Scores")


def test_the_page_header_gives_the_range_of_a_budget_that_differs_between_jobs():
    from translate.analysis.sweep.results_page import span

    rows = [{"train_minutes": 85.17}, {"train_minutes": 47.6}, {"train_minutes": None}]  # None: evaluation only
    assert span(rows, "train_minutes", 1) == "47.6–85.2"
    assert span([{"steps": 600}, {"steps": 600}], "steps", 0) == "600" and span([], "steps", 0) == "–"
