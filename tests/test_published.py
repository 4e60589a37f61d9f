"""The comparison against published results: each encoding's kind read from its class's contracts, the buckets in
range and beyond the training lengths found from the rows (not from names), and the published direction stated from
the report's words. Read from committed runs of the length-extrapolation sweep (trained on at most 10 words; tested on
the test split and on long_concat, whose sentences are all longer)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from translate.analysis.sweep import build_report
from translate.analysis.sweep.jobs import find_jobs
from translate.analysis.sweep.published import direction, encoding_kinds, position_kind, published_section
from translate.encodings.alibi import ALiBi
from translate.encodings.learned import Learned
from translate.encodings.none import NoEncoding
from translate.encodings.rope import RoPE
from translate.encodings.sinusoidal import Sinusoidal
from translate.encodings.t5 import T5

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "docs" / "results" / "runs" / "length_extrapolation_cpu"
PICKED = ("sinusoidal", "t5", "rope", "learned", "none", "alibi")   # alibi stopped at another step: no Δ


def test_the_kind_of_an_encoding_is_the_contract_its_class_fulfils():
    assert [position_kind(c) for c in (Sinusoidal, Learned, T5, ALiBi, RoPE, NoEncoding)] == [
        "absolute", "absolute", "relative", "relative", "relative", "none"]


@pytest.mark.parametrize("in_range, beyond, says", [
    (["about the same"], ["better", "better", "too few"], "the same direction: ahead on every deciding bucket"),
    (["about the same"], ["better", "better"], "level within them, as reported"),
    (["worse"], ["worse", "worse"], "the opposite direction"),
    (["better"], ["better", "inconclusive"], "no clear direction"),
    (["inconclusive"], ["too few"], "not measured"),
    (["worse"], ["better"], "within them: worse (reported: a tie)"),
])
def test_the_published_direction_is_read_from_the_words_of_deciding_buckets(in_range, beyond, says):
    assert says in direction(in_range, beyond)


@pytest.fixture(scope="module")
def section(tmp_path_factory):
    folder = tmp_path_factory.mktemp("published") / "runs"
    for name in PICKED:
        shutil.copytree(RUNS / f"{name}_none_seed1", folder / f"{name}_none_seed1")
    report = build_report(folder, samples=200, hparams=False)
    return report, published_section(report, find_jobs(folder), "runs")


def test_kinds_come_from_the_classes_the_jobs_named():
    kinds = encoding_kinds(find_jobs(RUNS))
    assert kinds["t5"] == kinds["shaw"] == kinds["alibi"] == "relative" and kinds["learned"] == "absolute"
    assert kinds["none"] == "none" and kinds["sinusoidal"] == "absolute"


def test_the_section_reads_trained_buckets_in_range_and_the_all_longer_test_set_beyond(section):
    report, lines = section
    text = "\n".join(lines)
    header = next(line for line in lines if line.startswith("| encoding"))
    assert "`test` 1-5" in header and "`test` 6-10" in header               # trained on at most 10 words
    assert "`long_concat` 11-15" in header and "`multi30k" not in header    # all its sentences are longer
    assert "`test` 11-15" not in header
    t5 = next(line for line in lines if line.startswith("| t5 |"))
    assert "| relative | 1 |" in t5 and "ratio " in t5
    assert t5.count("(p") == header.count("Δ BLEU")                         # a Δ in every column
    assert "Rosendahl et al. 2019" in text and "Neishi & Yoshinaga 2019" in text
    assert any(line.startswith("  - t5 (relative): ") for line in lines)
    assert any(line.startswith("  - rope (relative): ") for line in lines)
    assert any(line.startswith("  - learned: beyond the training lengths ") for line in lines)
    assert not any(line.startswith("  - sinusoidal") for line in lines)     # the baseline is not compared to itself
    assert any(line.startswith("  - alibi: not compared") for line in lines)
