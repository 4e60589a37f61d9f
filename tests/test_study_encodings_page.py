"""docs/encodings_results.md from fabricated encodings and length_extrapolation sweeps (the run folders of
test_sweep_aggregate: config.yaml, metrics.json and hypotheses made from the real Tatoeba test references), so the
expected ranking is known: rope translates every sentence right, sinusoidal breaks sentences of more than 10 French
words, none those of more than 5."""
from __future__ import annotations

import dataclasses
import importlib
import os
import re
import shutil
from pathlib import Path

import pytest

from test_sweep_aggregate import make_job, perfect, references  # noqa: F401  (references: a fixture)
from translate.analysis.sweep import build_report
from translate.study.pages.encodings import REPORT_PICTURES, paired_cell, ranks, trained_on
from translate.study.pages.page import load_report
from translate.analysis.sweep.rows import Comparison, Delta, ReportRow, Score
from translate.scoring.repetition import repeated_word_percent
from translate.study.__main__ import main as study

SAMPLES = 50  # bootstrap resamples: enough for intervals and p-values, fast


def broken_from(pairs, words: int) -> list[str]:
    """Right on sentences of up to `words` French words, the first three words of the reference beyond."""
    return [p.en if len(p.fr.split()) <= words else " ".join(p.en.split()[:3]) for p in pairs]


def fabricate(root: Path, pairs, words: tuple) -> Path:
    """Three encodings, one seed each, trained on `words` (low, high) French words."""
    for encoding, hyps in (("rope", perfect(pairs)), ("sinusoidal", broken_from(pairs, 10)),
                           ("none", broken_from(pairs, 5))):
        make_job(root / f"{encoding}_none_seed1", encoding, 1, words, hyps, pairs, 0.5)
    build_report(root, samples=SAMPLES, hparams=False)
    return root


@pytest.fixture(scope="module", autouse=True)
def one_read_of_the_test_split():
    """Every report built here reads the same Tatoeba test split: read it once, not once a report (~3 s each)."""
    from translate.analysis.sweep.reference_sentences import TestSets  # here: a Test* name at module level gets collected

    shared = TestSets()
    with pytest.MonkeyPatch.context() as patch:
        # the module by name: the package's `aggregate` attribute is the function of that name
        patch.setattr(importlib.import_module("translate.analysis.sweep.aggregate"), "TestSets", lambda: shared)
        yield


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory, references) -> tuple[Path, Path]:  # noqa: F811
    root = tmp_path_factory.mktemp("sweeps")
    return (fabricate(root / "encodings", references, ("null", "null")),
            fabricate(root / "length_extrapolation", references, (1, 10)))


@pytest.fixture(scope="module")
def page(sweeps, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs") / "encodings_results.md"
    encodings, extrapolation = sweeps
    assert study(
        ["encodings", str(encodings), "--extrapolation", str(extrapolation), "--out", str(out)]) == 0
    return out


def section(text: str, heading: str) -> str:
    """From `heading` to the next heading of the same or a higher level."""
    level = heading.split(" ")[0]
    start = text.index(heading + "\n")
    after = re.search(rf"^#{{1,{len(level)}}} ", text[start + len(heading):], re.M)
    return text[start:start + len(heading) + after.start()] if after else text[start:]


def table(text: str) -> list[list[str]]:
    """The markdown table in `text` (a section holding one) as cells, header first, the |---| line left out."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines if not line.startswith("|-")]


def whole_split(sweep: Path) -> dict[str, ReportRow]:
    return {r.setting: r for r in load_report(sweep).rows if r.bucket == "all"}


def test_encodings_are_ranked_by_bleu_and_the_baseline_has_no_delta(page, sweeps):
    lines = table(section(page.read_text(), "## Ranking on the whole test split"))
    header, rows = lines[0], {line[1]: dict(zip(lines[0], line)) for line in lines[1:]}
    assert header == ["rank", "encoding", "seeds", "BLEU", "Δ BLEU vs baseline", "chrF", "parameters", "steps",
                      "tested at step", "valid BLEU per 1k steps before it", "target tokens/s", "train minutes"]
    scores = whole_split(sweeps[0])
    assert [line[1] for line in lines[1:]] == sorted(scores, key=lambda s: -scores[s].bleu.value) == [
        "rope", "sinusoidal", "none"]  # neither the report's order (baseline first) nor the alphabet
    assert [line[0] for line in lines[1:]] == ["1", "2", "3"]
    rope = rows["rope"]
    assert re.fullmatch(r"100\.00 \[\d+\.\d\d, \d+\.\d\d\]", rope["BLEU"])  # one seed: the bootstrap interval
    assert rope["BLEU"].startswith(f"{scores['rope'].bleu.value:.2f} [{scores['rope'].bleu.low:.2f}, ")
    assert rows["sinusoidal"]["Δ BLEU vs baseline"] == "–"
    assert rope["Δ BLEU vs baseline"].startswith("+") and rows["none"]["Δ BLEU vs baseline"].startswith("-")
    assert "(p" in rope["Δ BLEU vs baseline"] and rope["tested at step"] == "100"
    assert rope["valid BLEU per 1k steps before it"] == scores["rope"].convergence.cell()
    assert (rope["chrF"], rope["parameters"], rope["steps"], rope["target tokens/s"], rope["train minutes"]) == (
        f"{scores['rope'].chrf.value:.2f} [{scores['rope'].chrf.low:.2f}, {scores['rope'].chrf.high:.2f}]",
        "231,680", "100", "1,000", "2.5")


def test_the_bleu_by_length_table_has_one_column_per_bucket_in_ranked_order(page, sweeps):
    lines = table(section(page.read_text(), "## BLEU by length"))
    buckets = list(dict.fromkeys(r.bucket for r in load_report(sweeps[0]).rows if r.bucket != "all"))
    assert len(buckets) >= 4
    assert [h.split(": ")[1].split(" (n=")[0] for h in lines[0][1:]] == buckets  # "trained lengths: 1-5 (n=...)"
    assert [line[0] for line in lines[1:]] == ["rope", "sinusoidal", "none"]
    assert all(len(line) == 1 + len(buckets) for line in lines)
    assert lines[1][1].startswith("100.00 [")  # the run's own bucket interval


def test_pictures_are_copied_beside_the_page_and_linked(page, sweeps):
    text, assets = page.read_text(), page.with_suffix("")
    for sweep, prefix in zip(sweeps, ("", "extrapolation_")):
        drawn = [name for name, _ in REPORT_PICTURES if (sweep / "report" / name).exists()]
        assert {"bleu_by_length.png", "bleu_length_curve.png", "learning_curves.png"} <= set(drawn)
        for name in drawn:
            assert (assets / f"{prefix}{name}").read_bytes() == (sweep / "report" / name).read_bytes()
            assert f"](encodings_results/{prefix}{name})" in text


def test_the_extrapolation_section_ranks_every_bucket_and_says_what_was_trained(page, sweeps):
    part = section(page.read_text(), "## Length extrapolation: trained on ≤ 10 words")
    assert f"From `{sweeps[1]}`" in part
    lines = table(part)
    columns = {h.split(" (n=")[0]: [line[i] for line in lines[1:]] for i, h in enumerate(lines[0])}
    assert columns["rank"] == ["1", "2", "3"]
    assert [c.split(" ")[0] for c in columns["trained lengths: 1-5"]] == ["none", "rope", "sinusoidal"]  # a tie
    assert [c.split(" ")[0] for c in columns["trained lengths: 6-10"]] == ["rope", "sinusoidal", "none"]
    assert [c.split(" ")[0] for c in columns["beyond training lengths: 11-15"]][0] == "rope"
    assert columns["beyond training lengths: 11-15"][0].startswith("rope 100.00 [")


def test_the_extrapolation_section_pairs_each_encoding_with_the_baseline_in_every_bucket(page, sweeps):
    """Fabricated: sinusoidal breaks past 10 words, none past 5, rope never; so beyond the training lengths rope
    gains on the baseline, and none loses from 6 words on."""
    lines = table(section(page.read_text(), "## Length extrapolation: Δ BLEU vs baseline by length (`test`)"))
    columns = {h.split(" (n=")[0]: dict((line[0], line[i]) for line in lines[1:]) for i, h in enumerate(lines[0])}
    assert list(columns["setting"]) == ["rope", "sinusoidal", "none"]  # ranked by whole-split BLEU
    beyond = columns["beyond training lengths: 11-15"]
    assert beyond["sinusoidal"] == "–"  # the baseline has no Δ
    decides = "too few" not in next(h for h in lines[0] if h.startswith("beyond training lengths: 11-15"))
    test = r" \(p[ =<].*\)\*?" if decides else ""   # a bucket too small to decide: no p
    assert re.fullmatch(r"\+\d+\.\d\d \[\+\d+\.\d\d, \+\d+\.\d\d\]" + test, beyond["rope"])
    assert columns["trained lengths: 6-10"]["none"].startswith("-")
    assert columns["trained lengths: 1-5"]["rope"].startswith("+0.00")  # both right on the shortest


def test_a_bucket_too_small_to_decide_gets_its_delta_but_no_star_and_no_p():
    row = ReportRow(decides=True, compared=Comparison(bleu=Delta(1.36, 1.36, 1.36, 0.0001, holm=0.001)))
    assert paired_cell(row) == "+1.36 [+1.36, +1.36] (p < 0.001)*"
    # e.g. one sentence: every resample the same, a p of the bootstrap floor that tests nothing
    assert paired_cell(dataclasses.replace(row, decides=False)) == "+1.36 [+1.36, +1.36]"


def test_the_extrapolation_section_shows_how_long_the_translations_are_against_the_references(page, sweeps):
    """Fabricated: past 10 words sinusoidal writes only the reference's first three words, so its output is shorter
    than the reference there and exactly as long up to 10 words."""
    lines = table(section(page.read_text(), "## Length extrapolation: output length / reference length (`test`)"))
    columns = {h.split(" (n=")[0]: dict((line[0], line[i]) for line in lines[1:]) for i, h in enumerate(lines[0])}
    rows = {(r.setting, r.bucket): r for r in load_report(sweeps[1]).rows if r.test_set == "test"}
    assert columns["trained lengths: 6-10"]["sinusoidal"] == "1.00" == columns["beyond training lengths: 11-15"]["rope"]
    assert float(columns["beyond training lengths: 11-15"]["sinusoidal"]) < 0.5
    assert columns["beyond training lengths: 11-15"]["sinusoidal"] == f"{rows['sinusoidal', '11-15'].length_ratio:.2f}"


def test_the_header_states_folders_model_size_budget_seeds_and_jobs(page, sweeps):
    text = page.read_text()
    header = text.splitlines()[2]
    for sweep in sweeps:
        assert f"`{sweep}`: 3 encodings × 1 seed, 3 finished jobs; model tiny, 231,680 parameters, 100 steps and " \
               f"2.5 training minutes per job" in header
    n = whole_split(sweeps[0])["rope"].sentences
    assert "trained on every length" in header and "trained on ≤ 10 words" in header
    assert f"tested on {n:,} sentences of `test`; intervals from {SAMPLES} bootstrap resamples" in header
    assert "- Bootstrap: 50 samples" in section(text, "## How to read the numbers")


def test_the_page_is_written_again_byte_for_byte_from_rebuilt_reports(page, sweeps):
    first = page.read_bytes()
    for sweep in sweeps:
        shutil.rmtree(sweep / "report")
        build_report(sweep, samples=SAMPLES, hparams=False)
    assert study(
        ["encodings", str(sweeps[0]), "--extrapolation", str(sweeps[1]), "--out", str(page)]) == 0
    assert page.read_bytes() == first


def test_a_missing_folder_is_an_error_that_names_it(tmp_path, sweeps, capsys):
    out = tmp_path / "docs" / "encodings_results.md"
    assert study(["encodings", str(tmp_path / "nowhere"), "--out", str(out)]) == 2
    assert f"error: sweep folder {tmp_path / 'nowhere'} does not exist" in capsys.readouterr().err
    assert study(["encodings", str(sweeps[0]), "--extrapolation", str(tmp_path / "elsewhere"), "--out", str(out)]) == 2
    assert str(tmp_path / "elsewhere") in capsys.readouterr().err
    assert not out.exists() and not out.with_suffix("").exists()  # nothing written before both reports are read


def test_equal_bleu_shares_a_rank_and_training_lengths_read_as_words():
    rows = [ReportRow(bleu=Score(value)) for value in (30.0, 20.0, 20.0, 10.0, None)]
    assert ranks(rows) == ["1", "2", "2", "4", "–"]
    assert [trained_on(w) for w in ("1-10", "11-17", "5+", "all")] == [
        "≤ 10 words", "11–17 words", "≥ 5 words", "every length"]



def test_a_page_empties_its_picture_folder_of_older_pictures_and_keeps_other_files(tmp_path):
    from translate.study.pages.page import fresh_assets

    assets = tmp_path / "docs" / "results"
    (assets / "runs").mkdir(parents=True)
    (assets / "attention_of_an_older_page.png").write_bytes(b"png")
    (assets / "runs" / "metrics.json").write_text("{}")
    assert fresh_assets(tmp_path / "docs" / "results.md") == assets
    assert not list(assets.glob("*.png")) and (assets / "runs" / "metrics.json").exists()


def test_a_stale_report_is_written_again_with_its_rules_before_a_page_reads_it(tmp_path, references):  # noqa: F811
    """Jobs collected into a folder after its report was built, or run again since, are on the next page; the
    rebuilt report keeps the rules (here: 50 bootstrap samples, not the default) it was built with."""
    sweep = tmp_path / "encodings"
    make_job(sweep / "sinusoidal_none_seed1", "sinusoidal", 1, ("null", "null"), broken_from(references, 10),
             references, 0.5)
    build_report(sweep, samples=SAMPLES, hparams=False)
    assert {r.setting for r in load_report(sweep).rows} == {"sinusoidal"}

    make_job(sweep / "rope_none_seed1", "rope", 1, ("null", "null"), perfect(references), references, 0.5)
    report = load_report(sweep)
    assert {r.setting for r in report.rows} == {"sinusoidal", "rope"}
    assert report.rules.samples == SAMPLES

    report_json = sweep / "report" / "report.json"
    built = report_json.stat().st_mtime
    assert load_report(sweep).rows == report.rows and report_json.stat().st_mtime == built  # fresh: read, not built
    rerun = sweep / "rope_none_seed1" / "metrics.json"
    os.utime(rerun, (built + 10, built + 10))
    load_report(sweep)
    assert report_json.stat().st_mtime > built


def test_the_extrapolation_section_shows_repeated_words_per_bucket_read_from_the_hypotheses(page, references):  # noqa: F811
    """rope's output is the reference itself, sinusoidal's the reference's first three words past 10 French words:
    each cell is the percentage of that bucket's output words repeating the word before, of those very outputs."""
    lines = table(section(page.read_text(), "## Length extrapolation: repeated words in the output, % (`test`)"))
    columns = {h.split(" (n=")[0]: dict((line[0], line[i]) for line in lines[1:]) for i, h in enumerate(lines[0])}
    in_bucket = [p for p in references if 11 <= len(p.fr.split()) <= 15]
    beyond = columns["beyond training lengths: 11-15"]
    assert beyond["rope"] == f"{repeated_word_percent(perfect(in_bucket)):.2f}"
    assert beyond["sinusoidal"] == f"{repeated_word_percent(broken_from(in_bucket, 10)):.2f}"


def test_repeated_words_count_a_word_equal_to_the_one_before_it_within_a_translation():
    assert repeated_word_percent(["my old old old movie"]) == 40.0      # 2 repeats in 5 words
    assert repeated_word_percent(["the cat saw the dog"]) == 0.0        # a word seen earlier, not just before
    assert repeated_word_percent(["it is", "is it"]) == 0.0             # never across two translations
    assert repeated_word_percent(["", "go go"]) == 50.0
    assert repeated_word_percent([""]) is None
