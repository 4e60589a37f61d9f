"""The forest plot draws every deciding Δ the verdicts hold, claims and controls, with the numbers the page shows."""
from __future__ import annotations

from test_study_claims import RULES, alignment, span, two_groups, zero_dims
from translate.study.verdicts.claims import check_claims
from translate.study.verdicts.wording import delta_interval
from translate.study.verdicts.controls import check_controls
from translate.study.pages.forest import FOREST, forest_entries, write_forest


def test_the_forest_holds_each_deciding_delta_of_the_claims_and_controls(tmp_path):
    spans = [zero_dims(0.1, 0.3)] + two_groups() + [
        span("low", "train words 1-9", "sinusoidal", "zero_low_dims", "test", 1, 9, -2.0, 0.5, seeds=1)]
    verdicts = check_claims(spans, [alignment(0.05, 0.15, (0.10, 0.07, 0.13, 0.001))], "test", RULES)
    controls = check_controls(spans, "test", RULES)
    entries = forest_entries(verdicts + controls)
    labels = [label for label, _ in entries]
    assert labels == ["(a) short: `test`, trained on words 1-9", "(b) short: `test`, trained on words 1-9",
                      "(b) long: `long_test`, trained on words 11-17", "(c) long: `test`, trained on words 1-9",
                      "control zero_low_dims: `test`, trained on words 1-9"]
    page = "\n".join(line for v in verdicts + controls for line in v.details)
    for label, reading in entries[:3]:   # the BLEU Δs as the page prints them
        assert f"{reading.delta:+.2f} [{reading.low:+.2f}, {reading.high:+.2f}] BLEU" in page, label
    assert delta_interval(entries[3][1]) == "+0.150 [+0.130, +0.170] AER"
    assert [r.word for _, r in entries] == ["holds", "holds", "holds", "holds", "one seed"]
    assert write_forest(verdicts + controls, tmp_path, 1.0) == FOREST and (tmp_path / FOREST).stat().st_size > 10_000
    assert write_forest([], tmp_path / "none", 1.0) is None
