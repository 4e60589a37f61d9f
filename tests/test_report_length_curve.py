"""The sweep report's BLEU-against-length curve: one line per setting, from long_concat when a job scored it."""
from __future__ import annotations

from pathlib import Path

from translate.analysis.sweep.jobs import Job, Setting
from translate.analysis.sweep.plots import curve_test_set, length_curve, write_length_curve


def by_length(bleus: list) -> dict:
    edges = [(1, 10), (11, 20), (21, None)]
    return {"bucketed_by": "source_words", "buckets": [{"bucket": f"{lo}", "low": lo, "high": hi, "bleu": b}
                                                       for (lo, hi), b in zip(edges, bleus)]}


def setting(label: str, words: tuple, bleus_by_seed: list) -> Setting:
    config = {"data.train_min_words": words[0], "data.train_max_words": words[1]}
    jobs = [Job(Path("."), {**config, "seed": k}, {"test_set": "test", "test_sets": {
        "test": {"by_length": by_length([0, 0, 0])}, "long_concat": {"by_length": by_length(b),
                                                                  "source": "long_concat of split test (synthetic)"}}})
        for k, b in enumerate(bleus_by_seed)]
    return Setting(key=(label,), jobs=jobs, label=label)


def test_the_curve_has_a_line_per_setting_from_long_concat_with_seeds_averaged(tmp_path):
    settings = [setting("sinusoidal", (1, 9), [[30, 20, 10], [32, 22, 12]]), setting("none", (1, 9), [[25, 5, None]])]
    fig = length_curve(settings)
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    assert list(lines["sinusoidal"].get_ydata()) == [31, 21, 11]  # long_concat, not the all-zero test set
    assert list(lines["sinusoidal"].get_xdata()) == [5.5, 15.5, 21]
    assert list(lines["none"].get_ydata()) == [25, 5]  # an empty bucket is left out
    grey = [p for p in fig.axes[0].patches]
    assert len(grey) == 1 and grey[0].get_x() == 0.5  # the trained 1-9 words, shaded
    assert write_length_curve(settings, tmp_path) == [("BLEU against length", "bleu_length_curve.png")]
    assert (tmp_path / "bleu_length_curve.png").read_bytes()[:4] == b"\x89PNG"


def test_old_metrics_without_test_sets_use_the_primary_scores():
    assert curve_test_set({"bleu": 3.0}) == "test"
    assert curve_test_set({"test_set": "test", "test_sets": {"test": {}, "long_concat": {
        "source": "long_concat of split test (synthetic)"}}}) == "long_concat"
