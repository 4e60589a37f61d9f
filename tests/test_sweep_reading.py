"""The sweep reads what the runs wrote through the run's own types: every committed run's config.yaml and
metrics.json load (older layouts included), a key a section no longer has is skipped, a key an older run lacked
takes the section's default."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from translate.analysis.run.metrics_json import CARRIED, BucketStatistics, RunMetrics
from translate.analysis.run.settings import ReportSettings
from translate.analysis.sweep.jobs import JobSettings, find_jobs, word_span
from translate.analysis.sweep.reference_sentences import corpus_settings
from translate.analysis.sweep.aggregate import rules_from
from translate.analysis.sweep.rules import Rules, decides

ROOT = Path(__file__).resolve().parents[1]
RUNS = sorted((ROOT / "docs" / "results" / "runs").glob("**/metrics.json"))


@pytest.mark.parametrize("metrics_path", RUNS, ids=[str(p.parent.relative_to(ROOT)) for p in RUNS])
def test_every_committed_run_reads_through_the_types(metrics_path):
    raw = json.loads(metrics_path.read_text())
    metrics = RunMetrics.read(raw)
    assert list(metrics.test_sets) == list(raw["test_sets"]) and metrics.test_set == raw["test_set"]
    assert metrics.primary.bleu == raw["bleu"] and metrics.steps == raw.get("steps")
    for name, scores in metrics.test_sets.items():
        buckets = raw["test_sets"][name]["by_length"]["buckets"]
        assert [b.bucket for b in scores.by_length.buckets] == [b["bucket"] for b in buckets]
        assert [b.diagonal_share_normalised for b in scores.by_length.buckets] == [
            b.get("diagonal_share_normalised") for b in buckets]
    settings = JobSettings.read(OmegaConf.to_container(OmegaConf.load(metrics_path.parent / "config.yaml"),
                                                       resolve=True))
    assert settings.encoding == raw.get("encoding", settings.encoding)
    assert [spec.name for spec in settings.test_sets] == list(raw["test_sets"])
    folder = metrics_path.parent.name
    if "_words" in folder:  # e.g. sinusoidal_none_words1-9_seed1
        assert f"words{settings.train_words}_" in folder


def test_a_sweep_groups_its_jobs_by_their_typed_settings():
    jobs = find_jobs(ROOT / "docs" / "results" / "runs" / "seed_repro_cpu")
    assert {job.settings.train_words for job in jobs} == {"1-9", "11-17"}
    assert {job.settings.trained for job in jobs} == {(1, 9), (11, 17)}
    sinusoidal = [job for job in jobs if job.settings.encoding == "sinusoidal" and job.settings.ablation == "none"]
    assert len(sinusoidal) == 2 and all(job.tested_step == job.metrics.steps for job in sinusoidal)


def test_an_older_config_is_read_with_the_sections_defaults():
    tree = {"seed": 3, "encoding": {"name": "rope"}, "model": {"name": "tiny"},
            "data": {"name": "tatoeba", "tokenizer": {"model_type": "unigram", "vocab_size": 8000,
                                                      "character_coverage": 1.0},
                     "corpus": {"_target_": "translate.data.corpora.Tatoeba"}, "train_max_words": 9,
                     "a_key_since_removed": True}}
    settings = JobSettings.read(tree)
    assert (settings.seed, settings.encoding, settings.ablation, settings.model) == (3, "rope", "none", "tiny")
    assert settings.trained == (1, 9) and settings.train_words == "1-9" and settings.test_sets == []
    assert settings.report.min_bucket == ReportSettings().min_bucket == 50
    # the train-only filters (their role is declared on DataConfig) do not change which test sentences are read
    assert corpus_settings(settings.data).train_max_words is None and settings.data.train_max_words == 9
    assert JobSettings.read({"seed": 1}).trained is None and JobSettings.read({"seed": 1}).train_words == "all"


@pytest.mark.parametrize("trained", [(1, 9), (11, 17), (11, None), (1, 10), None])
def test_a_train_words_label_reads_back_as_the_lengths_it_was_written_from(trained):
    assert word_span(JobSettings(trained=trained).train_words) == trained


def test_a_train_words_label_of_no_known_form_names_itself():
    assert word_span(None) is None
    with pytest.raises(ValueError, match=r"train_words '9-' is none of 'LOW-HIGH', 'LOW\+' or 'all'"):
        word_span("9-")


def test_runs_before_test_sets_kept_one_split_at_the_top_level():
    old = RunMetrics.read({"bleu": 20.0, "chrf": 40.0, "sentences": 3, "split": "valid", "steps": 10,
                           "by_length": {"bucketed_by": "source_words", "buckets": [
                               {"bucket": "1-5", "low": 1, "high": 5, "sentences": 3, "bleu": 20.0,
                                "diagonal_share": 0.5, "a_statistic_since_removed": 1}]}})
    assert list(old.test_sets) == ["valid"] and old.test_set == "valid" and old.primary.bleu == 20.0
    bucket = old.primary.by_length.buckets[0]
    assert (bucket.bucket, bucket.diagonal_share, bucket.monotonicity) == ("1-5", 0.5, None)
    assert RunMetrics.read({}).test_sets == {} and RunMetrics.read({}).primary is None


def test_the_carried_statistics_are_the_fields_of_bucket_statistics():
    assert CARRIED == tuple(BucketStatistics.__dataclass_fields__)
    assert "diagonal_share_normalised" in CARRIED and "length_ratio" in CARRIED


def test_one_rule_decides_whether_a_bucket_counts():
    assert decides(50, 50) and not decides(49, 50) and not decides(None, 50) and not decides(0, 50)
    assert Rules(1000, 5, 1.0).decides(5) and not Rules(1000, 5, 1.0).decides(4)
    assert rules_from([], None, None, None) == Rules(10_000, ReportSettings().min_bucket, 1.0)   # no job: defaults
    assert rules_from([], 200, 5, 0.5) == Rules(200, 5, 0.5)


def test_the_csv_columns_are_the_report_rows_fields_with_every_carried_statistic():
    from dataclasses import fields

    from translate.analysis.sweep.rows import Comparison, Delta, ReportRow
    from translate.analysis.sweep.report_files import CSV_COLUMNS, CsvRow

    assert CSV_COLUMNS == tuple(f.name for f in fields(CsvRow))
    assert set(CARRIED) <= set(CSV_COLUMNS) and "repeated_words" in CSV_COLUMNS
    at = CSV_COLUMNS.index("interval") + 1  # the statistics sit between the scores and the comparison
    assert CSV_COLUMNS[at:at + len(CARRIED)] == CARRIED and CSV_COLUMNS[at + len(CARRIED)] == "delta_bleu"
    assert set(CSV_COLUMNS) <= set(ReportRow(compared=Comparison(Delta(p=0.1), Delta(p=0.1), Delta(p=0.1))).as_json())
    row = CsvRow.of(ReportRow(setting="rope", bucket="all", diagonal_share=0.5,
                              compared=Comparison(bleu=Delta(1.0, low90=-1.0, p=0.2, holm=0.4))))
    assert (row.setting, row.diagonal_share, row.monotonicity) == ("rope", 0.5, None)
    assert (row.delta_bleu, row.p_bleu, row.p_bleu_holm, row.p_chrf_holm) == (1.0, 0.2, 0.4, None)


@pytest.fixture(scope="module")
def written_report(tmp_path_factory) -> dict:
    """report.json of committed runs (the AER pair: rows, spans and alignment contrasts), written here: reports are
    not committed, every page builds its own."""
    from translate.analysis.sweep import build_report

    folder = tmp_path_factory.mktemp("report") / "aer_pair_cpu"
    shutil.copytree(ROOT / "docs" / "results" / "runs" / "aer_pair_cpu", folder,
                    ignore=shutil.ignore_patterns("report"))
    build_report(folder, samples=200, hparams=False)
    return json.loads((folder / "report" / "report.json").read_text(encoding="utf-8"))


def test_a_written_report_reads_back_into_its_rows_and_writes_the_same_keys(written_report):
    """report.json through the row types and back: every key and value in order; the two per-bucket keys older
    reports held and no run ever recorded (diagonal_share_low/high) are read and left out."""
    from translate.analysis.sweep.report_files import json_text, report_of_json

    data = written_report
    obsolete = ("diagonal_share_low", "diagonal_share_high")
    older = {**data, "rows": [{**row, **dict.fromkeys(obsolete)} for row in data["rows"]]}
    for source in (data, older):
        report = report_of_json(source)
        assert report.spans and report.alignment and report.rows[0].compared.bleu is None  # the baseline first
        again = json.loads(json_text(report))
        assert again["rows"] == data["rows"] and [list(r) for r in again["rows"]] == [list(r) for r in data["rows"]]
        assert again["spans"] == data["spans"] and [list(r) for r in again["spans"]] == [list(r) for r in data["spans"]]
        assert again["alignment"] == data["alignment"] and again["rules"] == data["rules"]
