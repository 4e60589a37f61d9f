"""A tiny training run trained on short sentences only, then the standalone evaluation of its checkpoint."""
from __future__ import annotations

import json

import pytest
from conftest import make_config
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from translate.cli.evaluate import evaluate
from translate.cli.train import run


def tags(folder) -> dict:
    events = EventAccumulator(str(folder), size_guidance={"images": 0, "scalars": 0})
    events.Reload()
    return events.Tags()


TEST_SETS = ("{name:test,split:test},{name:flickr,src:multi30k/test_2016_flickr.fr.gz,"
             "ref:multi30k/test_2016_flickr.en.gz},{name:long_concat,long_concat_from:test}")


@pytest.fixture(scope="module")
def trained(tmp_path_factory, cache_dir):
    from conftest import TINY_RUN

    run_dir = tmp_path_factory.mktemp("run")
    cfg = make_config(*TINY_RUN, f"data.cache_dir={cache_dir}", "data.train_max_words=3", "report.edges=[3,5]",
                      "report.bootstrap_samples=100", "train.max_steps=12", "train.valid_every=6",
                      f"eval.test_sets=[{TEST_SETS}]")
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
    assert {"test/bleu_by_length/1-3", "test/chrf_by_length/6+", "test/diagonal_share_by_length/4-5",
            "test/attention_entropy_by_length/1-3", "test/bleu", "flickr/bleu", "long_concat/chrf",
            "long_concat/bleu_by_length/6+", "flickr/bleu_by_length/6+"} <= set(found["scalars"])
    assert {"test/by_length/bar_chart", "long_concat/by_length/bar_chart", "by_length/bleu_curve",
            "attention/cross/fixed/0", "attention/cross_heads/fixed/1",
            "attention/encoder_self/fixed/0", "attention/decoder_self/fixed/0", "encoding/table",
            "encoding/cosine_similarity", "encoding/dimension_variance"} <= set(found["images"])
    assert any(tag.startswith("attention/cross/6+/test") for tag in found["images"])


@pytest.mark.slow
def test_every_test_set_gets_its_own_scores_keyed_by_name(trained):
    metrics, run_dir = trained
    saved = json.loads((run_dir / "metrics.json").read_text())
    assert list(saved["test_sets"]) == ["test", "flickr", "long_concat"]
    assert saved["test_set"] == "test" and saved["split"] == "test"
    for key in ("bleu", "chrf", "sentences", "by_length"):  # the primary's scores stay at the top level
        assert saved[key] == saved["test_sets"]["test"][key]
    assert saved["test_sets"]["flickr"]["source"].startswith("files multi30k/test_2016_flickr")
    for name, scores in saved["test_sets"].items():
        assert scores["sentences"] == 100  # data.test_limit cuts every test set
        assert len((run_dir / f"{name}.hyp.txt").read_text().splitlines()) == 100
        assert sum(b["sentences"] for b in scores["by_length"]["buckets"]) == 100
    long_buckets = saved["test_sets"]["long_concat"]["by_length"]["buckets"]
    assert [b["sentences"] for b in long_buckets] == [0, 0, 100]  # every piece-join has 11+ French words
    assert (run_dir / "by_length.long_concat.md").exists() and (run_dir / "by_length.flickr.md").exists()


@pytest.mark.slow
def test_every_test_set_gets_aer_against_silver_links_per_bucket(trained):
    _, run_dir = trained
    saved = json.loads((run_dir / "metrics.json").read_text())
    chosen = {(s["by_length"]["aer_layer"], s["by_length"]["aer_threshold"]) for s in saved["test_sets"].values()}
    assert len(chosen) == 1          # chosen once, on the valid split, for every test set
    layer, threshold = chosen.pop()
    assert layer in (0, 1) and 0.0 < threshold < 1.0   # model=tiny: 2 decoder layers
    for name, scores in saved["test_sets"].items():
        by_length = scores["by_length"]
        assert by_length["aer_chosen_on"] == "valid" and 0.0 <= by_length["aer_valid"] <= 1.0
        for bucket in by_length["buckets"]:
            if bucket["sentences"]:
                assert bucket["aer_low"] <= bucket["aer"] <= bucket["aer_high"] and 0.0 <= bucket["aer"] <= 1.0
            else:
                assert bucket["aer"] is None
        assert len(by_length["per_sentence"]["aer"]) == 100
    assert "| AER |" in (run_dir / "by_length.md").read_text()
    assert "test/aer_by_length/1-3" in tags(run_dir / "tb")["scalars"]


@pytest.mark.slow
def test_every_bucket_reports_token_accuracy_word_choice_and_word_order(trained):
    _, run_dir = trained
    saved = json.loads((run_dir / "metrics.json").read_text())
    by_length = saved["test_sets"]["test"]["by_length"]
    for bucket in by_length["buckets"]:
        if bucket["sentences"]:
            assert 0.0 <= bucket["token_accuracy_low"] <= bucket["token_accuracy"] <= bucket["token_accuracy_high"] <= 1
            assert 0.0 <= bucket["unigram_f"] <= 1.0
    per_sentence = by_length["per_sentence"]
    assert len(per_sentence["token_accuracy"]) == len(per_sentence["unigram_f"]) == len(per_sentence["order_tau"]) == 100
    assert all(t is None or -1.0 <= t <= 1.0 for t in per_sentence["order_tau"])
    assert "| token accuracy | unigram F | order τ |" in (run_dir / "by_length.md").read_text()


@pytest.mark.slow
def test_standalone_evaluation_reports_into_its_own_folder(trained, tmp_path):
    _, run_dir = trained
    cfg = make_config(f"checkpoint={run_dir / 'best.pt'}", f"output_dir={tmp_path}", "report.quantiles=2",
                      "report.bootstrap_samples=50", "report.probes_per_bucket=0", config_name="evaluate")
    metrics, out = evaluate(cfg)
    assert out == tmp_path
    buckets = metrics["by_length"]["buckets"]
    assert len(buckets) == 2 and sum(b["sentences"] for b in buckets) == metrics["sentences"]
    assert all(b["aer"] is not None for b in buckets) and metrics["by_length"]["aer_chosen_on"] == "valid"
    assert json.loads((out / "metrics.json").read_text())["by_length"] == metrics["by_length"]
    assert (out / "by_length.md").exists()
    found = tags(out / "tb")
    assert list(metrics["test_sets"]) == ["test", "flickr", "long_concat"]  # the checkpoint's eval.test_sets
    assert {f"test/bleu_by_length/{b['bucket']}" for b in buckets} <= set(found["scalars"])
    assert {"test/by_length/bar_chart", "by_length/bleu_curve", "attention/cross/fixed/0",
            "encoding/table"} <= set(found["images"])


@pytest.mark.slow
def test_standalone_evaluation_takes_test_sets_of_its_own(trained, tmp_path):
    _, run_dir = trained
    cfg = make_config(f"checkpoint={run_dir / 'best.pt'}", "test_sets=[{name:valid,split:valid}]",
                      "report.bootstrap_samples=0", "report.images=[]", config_name="evaluate")
    metrics, out = evaluate(cfg)
    assert out == run_dir / "eval-valid-beam1"
    assert list(metrics["test_sets"]) == ["valid"] and metrics["split"] == "valid"
    assert "aer" in metrics["by_length"]["buckets"][0]
    assert (out / "valid.hyp.txt").exists()


@pytest.mark.slow
def test_standalone_evaluation_can_leave_aer_out(trained, tmp_path):
    _, run_dir = trained
    cfg = make_config(f"checkpoint={run_dir / 'best.pt'}", f"output_dir={tmp_path}", "test_sets=[{name:t,split:test}]",
                      "report.alignment_error_rate=false", "report.bootstrap_samples=0", "report.images=[]",
                      config_name="evaluate")
    metrics, _ = evaluate(cfg)
    assert "aer_layer" not in metrics["by_length"] and "aer" not in metrics["by_length"]["buckets"][0]
    assert "aer" not in metrics["by_length"]["per_sentence"]
