"""The sweep report's BLEU-against-length curve: one line per setting, from long_concat when a job scored it."""
from __future__ import annotations

from pathlib import Path

from translate.analysis.run.metrics_json import RunMetrics
from translate.analysis.sweep.jobs import Job, JobSettings, Setting
from translate.analysis.sweep.plots import curve_test_set, length_curve, write_length_curve


def by_length(bleus: list) -> dict:
    edges = [(1, 10), (11, 20), (21, None)]
    return {"bucketed_by": "source_words", "buckets": [{"bucket": f"{lo}", "low": lo, "high": hi, "bleu": b}
                                                       for (lo, hi), b in zip(edges, bleus)]}


def setting(label: str, words: tuple, bleus_by_seed: list) -> Setting:
    config = {"data.train_min_words": words[0], "data.train_max_words": words[1]}
    jobs = [Job(Path("."), {**config, "seed": k}, RunMetrics.read({"test_set": "test", "test_sets": {
        "test": {"by_length": by_length([0, 0, 0])}, "long_concat": {"by_length": by_length(b),
                                                                  "source": "long_concat of split test (synthetic)"}}}),
                settings=JobSettings(seed=k, trained=words))
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
    old = RunMetrics.read({"bleu": 3.0, "split": "test", "by_length": by_length([20, 10, 5])})
    assert curve_test_set(old) == "test" and old.primary.bleu == 3.0
    assert [b.bleu for b in old.primary.by_length.buckets] == [20, 10, 5]
    assert curve_test_set(RunMetrics.read({"test_set": "test", "test_sets": {"test": {}, "long_concat": {
        "source": "long_concat of split test (synthetic)"}}})) == "long_concat"


def test_old_runs_tested_best_pt_at_the_step_of_the_best_valid_bleu():
    curve = [[50, 10.0, 3.0], [100, 12.0, 2.8], [150, 12.0, 2.7], [200, 11.0, 2.6]]
    assert RunMetrics.read({"steps": 200, "checkpoint": "run/best.pt", "valid_curve": curve}).model_step == 100
    assert RunMetrics.read({"steps": 200, "checkpoint": "run/last.pt", "valid_curve": curve}).model_step == 200
    assert RunMetrics.read({"steps": 200, "tested_step": 150, "checkpoint": "best.pt"}).model_step == 150
