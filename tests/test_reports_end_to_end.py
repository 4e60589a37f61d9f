"""A tiny training run trained on short sentences only, then the standalone evaluation of its checkpoint."""
from __future__ import annotations

import json

import pytest
from conftest import make_config
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from translate.evaluate import evaluate
from translate.train import run


def tags(folder) -> dict:
    events = EventAccumulator(str(folder), size_guidance={"images": 0, "scalars": 0})
    events.Reload()
    return events.Tags()


@pytest.fixture(scope="module")
def trained(tmp_path_factory, cache_dir):
    from conftest import TINY_RUN

    run_dir = tmp_path_factory.mktemp("run")
    cfg = make_config(*TINY_RUN, f"data.cache_dir={cache_dir}", "data.train_max_words=3", "report.edges=[3,5]",
                      "report.bootstrap_samples=100", "train.max_steps=12", "train.valid_every=6")
    return run(cfg, run_dir), run_dir


@pytest.mark.slow
def test_training_writes_scores_by_length_beyond_the_training_lengths(trained):
    metrics, run_dir = trained
    saved = json.loads((run_dir / "metrics.json").read_text())
    by_length = saved["by_length"]
    assert by_length == metrics["by_length"] and by_length["bucketed_by"] == "source_words"
    buckets = {b["bucket"]: b for b in by_length["buckets"]}
    assert list(buckets) == ["1-3", "4-5", "6+"]
    assert sum(b["sentences"] for b in buckets.values()) == saved["sentences"]
    for name in ("4-5", "6+"):  # longer than anything trained on: decoded and scored, not crashed
        assert buckets[name]["sentences"] > 0 and buckets[name]["bleu"] is not None
        assert 0.0 <= buckets[name]["diagonal_share"] <= 1.0
    assert "data.train_max_words=3" in (run_dir / "by_length.md").read_text()

    found = tags(run_dir / "tb")
    assert {"bleu_by_length/1-3", "chrf_by_length/6+", "diagonal_share_by_length/4-5",
            "attention_entropy_by_length/1-3"} <= set(found["scalars"])
    assert {"by_length/bar_chart", "attention/cross/fixed/0", "attention/cross_heads/fixed/1",
            "attention/encoder_self/fixed/0", "attention/decoder_self/fixed/0", "encoding/table",
            "encoding/cosine_similarity", "encoding/dimension_variance"} <= set(found["images"])
    assert any(tag.startswith("attention/cross/6+/test") for tag in found["images"])


@pytest.mark.slow
def test_standalone_evaluation_reports_into_its_own_folder(trained, tmp_path):
    _, run_dir = trained
    cfg = make_config(f"checkpoint={run_dir / 'best.pt'}", f"output_dir={tmp_path}", "report.quantiles=3",
                      "report.bootstrap_samples=50", "report.probes_per_bucket=0", config_name="evaluate")
    metrics, out = evaluate(cfg)
    assert out == tmp_path
    buckets = metrics["by_length"]["buckets"]
    assert len(buckets) == 3 and sum(b["sentences"] for b in buckets) == metrics["sentences"]
    assert json.loads((out / "metrics.json").read_text())["by_length"] == metrics["by_length"]
    assert (out / "by_length.md").exists()
    found = tags(out / "tb")
    assert {f"bleu_by_length/{b['bucket']}" for b in buckets} <= set(found["scalars"])
    assert {"by_length/bar_chart", "attention/cross/fixed/0", "encoding/table"} <= set(found["images"])
