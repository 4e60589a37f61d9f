"""Length buckets: assignment at the edges, quantile buckets, length measures, config errors."""
from __future__ import annotations

import pytest
from conftest import make_config

from translate.config import ConfigError
from translate.data.cleaning import Pair
from translate.data.pipeline import TokenizedSplit
from translate.analysis.buckets import (LENGTH_OF, Bucket, assign, buckets_from_edges, make_buckets,
                                       quantile_edges)
from translate.analysis.run.settings import ReportSettings
from translate.assembly.settings import typed


def test_default_buckets_at_their_edges():
    settings = report_settings(make_config())
    buckets = make_buckets(settings.edges, settings.quantiles, [])
    assert [b.name for b in buckets] == ["1-5", "6-10", "11-15", "16-20", "21-30", "31-45", "46-60", "61+"]
    lengths = [1, 5, 6, 10, 11, 15, 16, 20, 21, 30, 31, 45, 46, 60, 61, 300]
    assert assign(lengths, buckets) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]


def test_custom_edges_and_single_length_names():
    buckets = buckets_from_edges([3, 4, 9])
    assert [(b.low, b.high) for b in buckets] == [(1, 3), (4, 4), (5, 9), (10, None)]
    assert [b.name for b in buckets] == ["1-3", "4", "5-9", "10+"]
    assert assign([3, 4, 5, 9, 10], buckets) == [0, 1, 2, 2, 3]


def test_quantile_buckets_hold_equal_counts():
    lengths = list(range(1, 101))
    buckets = make_buckets([5], 4, lengths)
    assert [b.name for b in buckets] == ["1-25", "26-50", "51-75", "76+"]
    counts = [assign(lengths, buckets).count(k) for k in range(4)]
    assert counts == [25, 25, 25, 25]


def test_quantiles_never_split_a_length_nor_leave_an_empty_last_bucket():
    lengths = [1] * 50 + [2] * 50
    assert quantile_edges(lengths, 4) == [1]
    assert quantile_edges([7] * 10, 3) == []  # one bucket: 1+
    assert make_buckets([5], 3, [7] * 10) == [Bucket(1, None)]


def test_length_measures():
    split = TokenizedSplit([Pair("Je suis là .", "I am here"), Pair("Oui", "Yes , I do")], [[5, 6, 7], [8]],
                           [[9], [10, 11]])
    assert LENGTH_OF["source_words"](split) == [4, 1]
    assert LENGTH_OF["reference_words"](split) == [3, 4]
    assert LENGTH_OF["source_subwords"](split) == [3, 1]


@pytest.mark.parametrize("override, key", [
    ("report.edges=[5,5,10]", "report.edges"),
    ("report.edges=[0,5]", "report.edges"),
    ("report.bucket_by=target_words", "report.bucket_by"),
    ("report.quantiles=1", "report.quantiles"),
    ("report.images=[cross,heatmaps]", "report.images"),
    ("report.bootstrap_samples=-1", "report.bootstrap_samples"),
])
def test_bad_report_settings_name_key_and_allowed(override, key):
    with pytest.raises(ConfigError, match=rf"{key}=.* is not allowed: expected"):
        report_settings(make_config(override))


def test_evaluate_config_has_the_report_group():
    settings = report_settings(make_config("checkpoint=x.pt", config_name="evaluate"))
    assert settings.bucket_by == "source_words" and list(settings.edges) == [5, 10, 15, 20, 30, 45, 60]


def report_settings(cfg) -> ReportSettings:
    return typed(cfg, "report", ReportSettings)
