"""The comparison against published results: each encoding's kind read from its class's contracts, the buckets in
range and beyond the training lengths found from the rows (not from names), and the published direction stated from
the report's words. Read from committed runs of the length-extrapolation sweep (trained on at most 10 words; tested on
the test split and on long_concat, whose sentences are all longer)."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from translate.analysis.sweep import build_report
from translate.analysis.sweep.jobs import find_jobs
from translate.study.verdicts.published import (direction, encoding_kinds, lead_ruled_out, length_gap,
                                                length_reading, overfitting_shown,
                                                published_readme_lines, published_section, shortfall)
from translate.analysis.sweep.rows import Comparison, Delta, ReportRow
from translate.ablations.shuffle import ShuffledEncoding
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
    assert [c.position_kind() for c in (Sinusoidal, Learned, T5, ALiBi, RoPE, NoEncoding)] == [
        "absolute", "absolute", "relative", "relative", "relative", "none"]
    assert ShuffledEncoding(T5(64, 4)).kind() == "relative"   # an ablation keeps the kind of the encoding it wraps
    assert Sinusoidal(64, 4).kind() == "absolute"


@pytest.mark.parametrize("in_range, beyond, says", [
    (["about the same"], ["better", "better", "too few"],
     "the published direction: ahead on 2 of the 2 deciding buckets beyond the training lengths, behind on none"),
    (["about the same"], ["better", "better"], "level within them, as reported"),
    (["worse"], ["worse", "worse"], "the opposite direction: behind on 2 of the 2 deciding buckets"),
    (["worse"], ["worse", "inconclusive", "worse"], "the opposite direction: behind on 2 of the 3 deciding buckets"),
    (["better"], ["better", "worse"], "mixed: ahead on 1 and behind on 1 of the 2 deciding buckets"),
    (["better"], ["about the same", "about the same"], "about the same on each of the 2 deciding buckets"),
    (["better"], ["inconclusive", "about the same"], "neither ahead nor behind shown on any of the 2 deciding"),
    (["inconclusive"], ["too few"], "not measured"),
    (["worse"], ["better"], "within them: worse (reported: a tie)"),
])
def test_the_published_direction_is_read_from_the_words_of_deciding_buckets(in_range, beyond, says):
    assert says in direction(in_range, beyond)


@pytest.mark.parametrize("in_range, beyond, shown", [
    (["about the same"], ["better", "inconclusive", "too few"], True),
    (["about the same", "about the same"], ["better", "worse"], False),      # behind somewhere beyond
    (["about the same", "inconclusive"], ["better"], False),                 # level not shown within
    (["too few"], ["better"], False),                                        # nothing decides within
    (["about the same"], ["inconclusive", "about the same"], False),         # not ahead beyond
])
def test_neishi_and_yoshinaga_are_borne_out_only_by_a_lead_beyond_and_a_tie_within(in_range, beyond, shown):
    assert overfitting_shown(in_range, beyond) is shown


def test_the_published_size_of_the_lead_is_checked_against_each_interval():
    deltas = [Delta(delta=-2.1, low=-3.3, high=-0.9), Delta(delta=3.0, low=0.5, high=5.5),
              Delta(delta=1.0, low=-1.0, high=3.0), None]
    assert lead_ruled_out(deltas) == ("; a lead as large as the smallest reported (+4.4 BLEU) lies above the 95% "
                                      "interval on 2 of 3")
    assert lead_ruled_out([None, Delta(delta=1.0)]) == ""


@pytest.mark.parametrize("low, high, shown", [(-0.06, -0.01, "shorter"), (0.01, 0.2, "longer"),
                                               (-0.05, 0.02, "no length difference shown")])
def test_a_gap_in_length_is_read_from_the_interval_of_the_length_ratio(low, high, shown):
    assert length_gap(Delta(delta=(low + high) / 2, low=low, high=high)).endswith(f"], {shown}")
    assert length_gap(None) == "no Δ of the length ratio"


def test_the_length_reading_names_only_the_buckets_where_bleu_is_shown_better_or_worse():
    def row(holm, delta, decides=True):
        return ReportRow(decides=decides, compared=Comparison(
            bleu=Delta(delta, delta - 1, delta + 1, holm, low90=delta - 0.8, high90=delta + 0.8, holm=holm),
            length_ratio=Delta(-0.05, -0.08, -0.02)))
    beyond = [("11-17", row(0.001, -3.0)), ("18-20", row(0.4, -1.0)), ("21-30", row(0.01, 2.0)),
              ("31+", row(0.001, -2.0, decides=False))]
    assert length_reading("t5", beyond, 1.0) == ("t5: 11-17: BLEU worse, ratio -0.050 [-0.080, -0.020], shorter; "
                                                 "21-30: BLEU better, ratio -0.050 [-0.080, -0.020], shorter")
    assert length_reading("t5", beyond[1:2] + beyond[3:], 1.0) is None      # inconclusive, too few: no gap to read


def test_the_shortfall_beyond_the_training_lengths_is_read_for_every_encoding():
    assert shortfall({"a": (1.0, [0.8, 0.5]), "b": (0.99, [0.9, None])}).startswith(
        "as reported, every encoding's outputs are shorter on each bucket beyond the training lengths than on them "
        "(beyond: 0.50-0.90)")
    assert shortfall({"a": (1.0, [0.8, 0.5]), "b": (0.9, [0.95])}) == (
        "outputs shorter on each bucket beyond the training lengths for 1 of 2 encodings: a")
    assert shortfall({"a": (None, [0.8])}) == "not measured"


@pytest.fixture(scope="module")
def section(tmp_path_factory):
    folder = tmp_path_factory.mktemp("published") / "runs"
    for name in PICKED:
        shutil.copytree(RUNS / f"{name}_none_seed1", folder / f"{name}_none_seed1")
    report = build_report(folder, samples=200, hparams=False)
    return report, published_section(report, find_jobs(folder), "runs"), find_jobs(folder)


def test_kinds_come_from_metrics_json_and_older_runs_from_the_classes_they_named(tmp_path):
    kinds = encoding_kinds(find_jobs(RUNS))   # committed before metrics.json kept the kind: read from the classes
    assert kinds["t5"] == kinds["shaw"] == kinds["alibi"] == "relative" and kinds["learned"] == "absolute"
    assert kinds["none"] == "none" and kinds["sinusoidal"] == "absolute"
    for name, target in (("t5_none_seed1", "os.system"), ("learned_none_seed1", "translate.encodings.t5.T5")):
        shutil.copytree(RUNS / name, tmp_path / name)
        config = (tmp_path / name / "config.yaml").read_text()
        (tmp_path / name / "config.yaml").write_text(re.sub(r"_target_: translate\.encodings\.\w+\.\w+",
                                                            f"_target_: {target}", config, count=1))
    metrics = json.loads((tmp_path / "learned_none_seed1" / "metrics.json").read_text())
    (tmp_path / "learned_none_seed1" / "metrics.json").write_text(json.dumps({**metrics, "encoding_kind": "absolute"}))
    # a recorded kind wins over the class the config names; a target outside translate.encodings is never imported
    assert encoding_kinds(find_jobs(tmp_path)) == {"learned": "absolute"}


def test_the_section_reads_trained_buckets_in_range_and_the_all_longer_test_set_beyond(section):
    report, lines, _ = section
    text = "\n".join(lines)
    header = next(line for line in lines if line.startswith("| encoding"))
    assert "`test` 1-5" in header and "`test` 6-10" in header               # trained on at most 10 words
    assert "`long_concat` 11-15" in header and "`multi30k" not in header    # all its sentences are longer
    assert "`test` 11-15" not in header
    t5 = next(line for line in lines if line.startswith("| t5 |"))
    assert "| relative | 1 |" in t5 and "ratio " in t5
    assert t5.count("(p") == header.count("Δ BLEU")                         # a Δ in every column
    assert "Rosendahl et al. 2019" in text and "Neishi & Yoshinaga 2019" in text
    t5_reading = next(line for line in lines if line.startswith("  - t5 (relative): "))
    assert "deciding bucket" in t5_reading
    assert "smallest reported (+4.4 BLEU) lies above the 95% interval on" in t5_reading
    assert any(line.startswith("  - rope (relative): ") for line in lines)
    learned = next(line for line in lines if line.startswith("  - learned: beyond the training lengths "))
    assert "beyond the training lengths 11-15 " in learned and "; within them 1-5 " in learned   # buckets named
    neishi = next(line for line in lines if line.startswith("- Neishi & Yoshinaga 2019"))
    assert "of the 2 decided here (rope, t5) show that" in neishi     # alibi has no Δ: not counted
    assert not any(line.startswith("  - sinusoidal") for line in lines)     # the baseline is not compared to itself
    assert any(line.startswith("  - alibi: not compared") for line in lines)
    varis = next(line for line in lines if line.startswith("- Variš & Bojar 2021"))
    assert "on `test` 6-10, then on each bucket of `long_concat`: sinusoidal " in varis
    t5_row = next(r for r in report.rows if r.setting == "t5" and r.bucket == "6-10" and r.test_set == "test")
    assert f"t5 {t5_row.length_ratio:.2f} → " in varis
    assert any(line.startswith("  - t5: ") for line in lines[lines.index(varis):])


def test_the_length_ratio_gets_a_delta_beside_bleu_and_no_holm_test(section):
    report, _, _ = section
    rows = [r for r in report.rows if r.compared.bleu is not None]
    assert rows and all(r.compared.length_ratio is not None for r in rows)
    ratio = rows[0].compared.length_ratio
    assert ratio.low <= ratio.delta <= ratio.high and ratio.holm is None
    assert all(d is not ratio for r in rows for m in ("bleu", "chrf") for d in r.compared.tests(m))


def test_the_readme_block_is_the_sections_deltas_and_its_readings_word_for_word(section):
    report, lines, jobs = section
    block = published_readme_lines(report, jobs, "runs")
    header = next(line for line in block if line.startswith("| encoding"))
    assert "| Δ BLEU `test` 1-5 |" in header and "| Δ BLEU `long_concat` 11-15 |" in header
    page_t5 = next(line for line in lines if line.startswith("| t5 |"))
    block_t5 = next(line for line in block if line.startswith("| t5 |"))
    assert "ratio " not in block_t5 and [c for c in block_t5.split(" | ") if "(p" in c] == [
        c for c in page_t5.split(" | ") if "(p" in c]                     # the page's Δ cells, no scores
    readings = lines[lines.index("### What the published results predict, and what this corpus shows") + 2:-1]
    assert readings and block[-len(readings):] == readings


def test_an_encoding_with_fewer_seeds_than_planned_is_shown_as_an_interim_look(tmp_path):
    """Run 3's committed jobs with t5 cut to seed 1 of its sweep's 3: its row and its reading are pending, with Δ and
    its interval but no p, star or word; sinusoidal, with its 3 seeds, stays the baseline."""
    runs = ROOT / "docs" / "results" / "runs" / "extrapolation_published_cpu"
    for job in [*runs.glob("sinusoidal_*"), *runs.glob("none_*"), *runs.glob("t5_*_seed1")]:
        shutil.copytree(job, tmp_path / job.name)
    report = build_report(tmp_path, samples=200, hparams=False)
    lines = published_section(report, find_jobs(tmp_path), "runs")
    t5 = next(line for line in lines if line.startswith("| t5 |"))
    assert "| relative | pending: 1 of 3 planned seeds |" in t5
    assert t5.count(" interim") == t5.count("ratio ") > 0
    assert "(p" not in t5 and "*" not in t5 and "better" not in t5 and "worse" not in t5 and "inconclusive" not in t5
    assert ("  - t5 (relative): pending: 1 of 3 planned seeds, an interim look: no verdict until the planned seeds "
            "are in.") in lines
    none = next(line for line in lines if line.startswith("| none |"))
    assert "| none | 3 |" in none and "(p" in none                         # a finished comparison keeps its words
    compared = [r for r in report.rows if r.compared.bleu is not None and r.decides]
    assert all(r.compared.bleu.holm is None for r in compared if r.setting == "t5")   # in no Holm family yet
    assert all(r.compared.bleu.holm is not None for r in compared if r.setting == "none")
