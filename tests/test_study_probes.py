"""The results page's probe section: per setting, layer and bucket, the mean accuracy over seeds with their range
(one seed: its interval over sentences), the most-common-position guess beside it, and nothing for runs without a
probe."""
from __future__ import annotations

from types import SimpleNamespace

from translate.analysis.sweep.cells import alignment_cell, words_cell
from translate.analysis.sweep.rows import ReportRow
from translate.study.pages.probes import probe_lines


def probe(accuracy: dict, majority: float = 0.1) -> dict:
    """{layer: accuracy on the 1-10 bucket}; the 11-17 bucket empty."""
    return {"sentences": 600, "max_position": 20, "trained_on": 360, "layers": {
        layer: {"1-10": {"sentences": 200, "accuracy": value, "accuracy_low": value - 0.01,
                         "accuracy_high": value + 0.01, "majority": majority},
                "11-17": {"sentences": 0, "accuracy": None, "accuracy_low": None, "accuracy_high": None,
                          "majority": None}}
        for layer, value in accuracy.items()}}


def setting(label: str, probes: list) -> SimpleNamespace:
    return SimpleNamespace(label=label, jobs=[SimpleNamespace(metrics=SimpleNamespace(position_probe=p))
                                              for p in probes])


def test_each_probed_setting_gets_a_table_of_layers_by_bucket():
    nope = setting("none, train words all", [probe({"encoder embedding": 0.30, "encoder 1": 0.31}, 0.10),
                                             probe({"encoder embedding": 0.28, "encoder 1": 0.35}, 0.12)])
    sinusoidal = setting("sinusoidal, train words all", [probe({"encoder embedding": 0.30, "encoder 1": 0.99})])
    lines = probe_lines([nope, setting("old run", [{}]), sinusoidal])
    text = "\n".join(lines)
    assert lines[0] == "## Why: what the models know of position" and "old run" not in text
    assert "**none, train words all** (2 seeds, 600 valid sentences probed, fitted on the first 360)" in text
    assert "| layer | 1-10 words (n=200) | 11-17 words (n=0) |" in text
    assert "| encoder 1 | 0.330 (0.310–0.350) | – |" in text        # mean over seeds and their range
    assert "| encoder 1 | 0.990 [0.980, 1.000] | – |" in text        # one seed: its interval over sentences
    assert "| always the most common position | 0.110 | – |" in text
    assert text.index("**none") < text.index("**sinusoidal")
    assert probe_lines([setting("old run", [{}])]) == []


def test_the_cells_show_aer_and_word_choice_and_order_where_recorded():
    row = ReportRow(diagonal_share_normalised=0.41, monotonicity=0.62, aer=0.35, token_accuracy=0.912,
                    unigram_f=0.831, order_tau=0.71)
    assert alignment_cell(row) == "0.41, τ 0.62, AER 0.35"
    assert words_cell(row) == "acc 91.2, F 83.1, τ 0.71"
    assert words_cell(ReportRow()) == "–" and alignment_cell(ReportRow(diagonal_share_normalised=0.4)) == "0.40"
