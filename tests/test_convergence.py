"""Was a model still learning when it was scored: the valid-BLEU slope before the tested step (convergence.valid_trend),
carried into the report rows (rows.Convergence) and said beside each claim's Δ (claims.where)."""
from __future__ import annotations

from dataclasses import fields

import pytest
from scipy import stats

from translate.analysis.run.convergence import valid_trend
from translate.analysis.run.metrics_json import RunMetrics
from translate.study.verdicts.wording import where
from translate.analysis.sweep.rows import Convergence, ReportRow, SpanComparison, SpanDelta, SpanRow
from translate.analysis.sweep.report_files import CSV_COLUMNS


def curve(bleu_at: dict[int, float]) -> list[list[float]]:
    return [[step, bleu, 3.0] for step, bleu in sorted(bleu_at.items())]


RISING = curve({step: 20 + step / 500 for step in range(200, 3401, 200)})        # +2 BLEU per 1,000 steps, exact
FLAT = curve({step: 30 + (0.4 if step % 400 else -0.4) for step in range(200, 3401, 200)})


def test_a_straight_rising_line_has_its_slope_per_thousand_steps_and_is_rising():
    trend = valid_trend(RISING, 3400)
    assert trend.slope == pytest.approx(2.0)
    assert trend.low == pytest.approx(2.0) and trend.high == pytest.approx(2.0)
    assert (trend.first, trend.last, trend.points) == (1800, 3400, 9)   # the last half: steps 1,700-3,400
    assert trend.rising


def test_a_curve_wobbling_around_a_level_is_not_rising():
    trend = valid_trend(FLAT, 3400)
    assert trend.low < 0 < trend.high and not trend.rising


def test_the_interval_and_p_come_from_one_t_distribution():
    """p < 0.05 exactly when the 95% interval leaves out 0 (both from linregress's slope and its standard error)."""
    bleu = {2400: 41.08, 2600: 42.37, 2800: 43.23, 3000: 43.12, 3200: 43.17, 3400: 43.47}
    trend = valid_trend(curve(bleu), 3400)
    fit = stats.linregress(list(bleu), list(bleu.values()))
    assert trend.slope == pytest.approx(fit.slope * 1000) and trend.p == pytest.approx(fit.pvalue)
    assert (trend.p < 0.05) == (trend.low > 0 or trend.high < 0)
    for shifted in (-0.5, 0.5):   # a curve with the same wobble whose interval straddles 0 has p > 0.05
        tilted = {s: b - (s - 2400) * trend.slope / 1000 + shifted for s, b in bleu.items()}
        flat = valid_trend(curve(tilted), 3400)
        assert flat.slope == pytest.approx(0, abs=1e-9) and flat.p > 0.05 and flat.low < 0 < flat.high


def test_only_validations_up_to_the_tested_step_count():
    """A model tested at step 1,400 (best.pt) is judged on the last half of its 1,400 steps, not on what came later."""
    later_drop = RISING[:7] + curve({step: 0.0 for step in range(1600, 3401, 200)})
    trend = valid_trend(later_drop, 1400)
    assert (trend.first, trend.last) == (800, 1400) and trend.slope == pytest.approx(2.0)


def test_a_short_run_is_judged_on_its_last_validations_not_on_its_climb_from_the_start():
    """A 1,000-step run that climbs from 5 to 38 BLEU and then levels off is not "still rising" at step 1,000: the
    climb out of the random start (steps 200-600) lies outside the window, which fits the last half of the run."""
    levelled = curve({200: 5.3, 400: 25.9, 600: 38.0, 800: 38.6, 1000: 38.1})
    trend = valid_trend(levelled, 1000)
    assert (trend.first, trend.last, trend.points) == (600, 1000, 3)
    assert trend.slope == pytest.approx(0.25) and not trend.rising
    whole_run = stats.linregress([200, 400, 600, 800, 1000], [5.3, 25.9, 38.0, 38.6, 38.1])
    assert whole_run.slope * 1000 > 35   # what a window as long as the run would have reported


@pytest.mark.parametrize("points, at", [(RISING, None), (RISING[:1], 200), ([], 3400)])
def test_fewer_than_two_validations_or_no_tested_step_give_no_trend(points, at):
    assert valid_trend(points, at) is None


def test_two_validations_give_a_slope_without_an_interval_and_are_never_called_rising():
    trend = valid_trend(curve({300: 19.61, 600: 32.91}), 600)
    assert trend.slope == pytest.approx((32.91 - 19.61) / 300 * 1000)
    assert (trend.low, trend.high, trend.p, trend.tested, trend.rising) == (None, None, None, False, False)
    c = Convergence.of([trend])
    assert (c.rising_seeds, c.trend_seeds) == (0, 0)
    assert c.cell() == "+44.33 (two validations: no interval)"
    assert c.describe() == "valid BLEU +44.33 per 1,000 steps over steps 300-600 (two validations: no interval)"


def test_run_metrics_judge_the_model_they_tested():
    metrics = RunMetrics.read({"valid_curve": RISING, "steps": 3400, "tested_step": 2000, "checkpoint": "last.pt"})
    assert metrics.trend.last == 2000
    assert RunMetrics.read({"steps": 3400}).trend is None


def test_convergence_over_seeds_counts_the_rising_ones():
    trends = [valid_trend(RISING, 3400), valid_trend(FLAT, 3400), None]
    c = Convergence.of(trends)
    assert c.valid_slope == pytest.approx(round((2.0 + trends[1].slope) / 2, 2))
    assert (c.rising_seeds, c.trend_seeds, c.from_step, c.to_step) == (1, 2, 1800, 3400)
    assert c.cell() == f"{c.valid_slope:+.2f} (shown rising: 1/2)"
    assert Convergence.of([None]) == Convergence() and Convergence().cell() == "–" and Convergence().describe() == ""


def test_report_rows_keep_convergence_through_json():
    row = ReportRow(setting="none", bucket="all", convergence=Convergence(1.31, 0, 1, 2400, 3400))
    data = row.as_json()
    assert (data["valid_slope"], data["rising_seeds"], data["trend_seeds"]) == (1.31, 0, 1)
    assert (data["from_step"], data["to_step"]) == (2400, 3400)
    assert ReportRow.read(data).convergence == Convergence(1.31, 0, 1, 2400, 3400)
    assert ReportRow.read({"setting": "old"}).convergence == Convergence()   # an older report.json


def span(convergence: Convergence, baseline: Convergence) -> SpanRow:
    delta = SpanDelta(delta=-1.0, low=-2.0, high=0.0, p=0.05, low90=-1.8, high90=-0.2)
    return SpanRow(test_set="test", group="train words 11-17", seeds=1, bucket="trained 11-17", sentences=300,
                   tested_steps=[3400], convergence=convergence,
                   compared=SpanComparison(delta, delta, baseline_convergence=baseline))


def test_spans_keep_both_models_convergence_through_json_and_say_it_beside_the_delta():
    r = span(Convergence(2.03, 1, 1, 2400, 3400), Convergence(0.47, 0, 1, 2400, 3400))
    back = SpanRow.read(r.as_json())
    assert back.convergence == r.convergence
    assert back.compared.baseline_convergence == Convergence(0.47, 0, 1, 2400, 3400)
    text = where(back)
    assert ("tested at step 3400; valid BLEU +2.03 per 1,000 steps over steps 2400-3400 (shown still rising (95% "
            "interval above 0) in 1 of 1 seed); baseline +0.47 (shown still rising (95% interval above 0) in 0 of 1 "
            "seed))" in text)


def test_a_span_without_curves_says_only_where_it_was_tested():
    assert where(span(Convergence(), Convergence())).endswith("tested at step 3400)")


def test_report_csv_has_a_column_for_every_convergence_field():
    """tables.CsvRow lists Convergence's fields by hand: a field added there must be added to report.csv too."""
    names = [f.name for f in fields(Convergence)]
    assert [c for c in CSV_COLUMNS if c in names] == names
