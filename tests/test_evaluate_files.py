"""Scoring a checkpoint on one's own files: `translate.evaluate` takes the key training uses (eval.test_sets) and,
when every test set is a pair of files, reads no training corpus: the tokenizer and the model come from the
checkpoint. The hypotheses are the same as when the corpus is read."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from conftest import TINY_RUN, make_config, untrained_checkpoint
from translate.cli import evaluate as evaluate_cli
from translate.config import ConfigError

REPO = Path(__file__).resolve().parents[1]
FAST = ("report.images=[]", "report.bootstrap_samples=0")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory, tiny_data, cache_dir) -> Path:
    """A tiny model (untrained: its output is deterministic, which is all these tests need) on the tiny slice."""
    cfg = make_config(*TINY_RUN, f"data.cache_dir={cache_dir}")
    return untrained_checkpoint(cfg, tiny_data, tmp_path_factory.mktemp("run") / "best.pt", step=7)


@pytest.fixture(scope="module")
def own_files(tmp_path_factory, tiny_data) -> tuple[Path, Path]:
    """Two plain-text files, line-aligned: French and its English translation."""
    folder = tmp_path_factory.mktemp("mine")
    pairs = tiny_data.splits["valid"].pairs[:12]
    (folder / "news.fr").write_text("".join(p.fr + "\n" for p in pairs), encoding="utf-8")
    (folder / "news.en").write_text("".join(p.en + "\n" for p in pairs), encoding="utf-8")
    return folder / "news.fr", folder / "news.en"


def entry(own_files, name: str = "mine") -> str:
    return f"{{name: {name}, src: {own_files[0]}, ref: {own_files[1]}}}"


def evaluate_config(checkpoint: Path, out: Path, *overrides: str):
    cfg = make_config(f"checkpoint={checkpoint}", f"output_dir={out}", *FAST, *overrides, config_name="evaluate")
    if "alignment_error_rate" in cfg.report:  # the AER report runs a word aligner: not what these tests are about
        cfg.report.alignment_error_rate = False
    return cfg


def test_own_files_are_scored_without_reading_the_training_corpus(checkpoint, own_files, tmp_path, monkeypatch):
    empty = tmp_path / "no_corpus"
    empty.mkdir()
    monkeypatch.setenv("TRANSLATE_DATA_DIR", str(empty))
    monkeypatch.setattr(evaluate_cli, "prepare_data", lambda *a, **k: pytest.fail("the training corpus was read"))
    cfg = evaluate_config(checkpoint, tmp_path / "scores", f"eval.test_sets=[{entry(own_files)}]",
                          f"data_path={empty}")
    metrics, out = evaluate_cli.evaluate(cfg)
    assert out == tmp_path / "scores" and metrics["step"] == 7
    assert list(metrics["test_sets"]) == ["mine"] and metrics["test_sets"]["mine"]["sentences"] == 12
    assert len((out / "mine.hyp.txt").read_text(encoding="utf-8").splitlines()) == 12
    job = OmegaConf.load(out / "config.yaml")  # what a sweep report reads: the test sets this evaluation used
    assert OmegaConf.to_container(job.eval.test_sets) == [{"name": "mine", "src": str(own_files[0]),
                                                           "ref": str(own_files[1])}]


def test_file_pairs_get_the_hypotheses_they_get_when_the_corpus_is_read(checkpoint, own_files, tmp_path):
    alone, _ = evaluate_cli.evaluate(evaluate_config(checkpoint, tmp_path / "a", f"eval.test_sets=[{entry(own_files)}]"))
    with_corpus, _ = evaluate_cli.evaluate(evaluate_config(
        checkpoint, tmp_path / "b", f"eval.test_sets=[{entry(own_files)}, {{name: valid, split: valid}}]"))
    assert (tmp_path / "a" / "mine.hyp.txt").read_bytes() == (tmp_path / "b" / "mine.hyp.txt").read_bytes()
    assert alone["test_sets"]["mine"]["bleu"] == with_corpus["test_sets"]["mine"]["bleu"]
    assert "valid" in with_corpus["test_sets"]


def test_the_older_key_still_works_and_both_at_once_are_refused(checkpoint, own_files, tmp_path):
    old = evaluate_config(checkpoint, tmp_path, f"test_sets=[{entry(own_files, 'old')}]")
    assert [s.name for s in evaluate_cli.test_set_specs(old, OmegaConf.create({}))] == ["old"]
    both = evaluate_config(checkpoint, tmp_path, f"test_sets=[{entry(own_files)}]",
                           f"eval.test_sets=[{entry(own_files)}]")
    with pytest.raises(ConfigError, match="eval.test_sets and test_sets are the same setting, given twice"):
        evaluate_cli.test_set_specs(both, OmegaConf.create({}))
    bad = evaluate_config(checkpoint, tmp_path, "eval.test_sets=[{name: x}]")
    with pytest.raises(ConfigError, match=r"^eval.test_sets\[0\] \(x\) sets none of them"):
        evaluate_cli.test_set_specs(bad, OmegaConf.create({}))


def test_the_command_scores_two_plain_text_files_in_a_folder_without_any_corpus(checkpoint, own_files, tmp_path):
    """As the README shows it: absolute paths, run from a folder holding no corpus, TRANSLATE_DATA_DIR empty."""
    empty = tmp_path / "no_corpus"
    empty.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "translate.evaluate", f"checkpoint={checkpoint}",
         f"eval.test_sets=[{entry(own_files)}]", f"data_path={empty}", *FAST],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "TRANSLATE_DATA_DIR": str(empty)})
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "every test set is a pair of files: the training corpus is not read" in result.stdout
    out = checkpoint.parent / "eval-mine-beam1"
    assert f"written: {out / 'metrics.json'}" in result.stdout
    assert json.loads((out / "metrics.json").read_text())["test_sets"]["mine"]["sentences"] == 12
    assert "mine BLEU " in result.stdout and "(12 sentences)" in result.stdout


def test_the_command_without_a_checkpoint_says_so_in_one_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "translate.evaluate"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == ("error: checkpoint is not given: expected checkpoint=PATH, the best.pt or "
                                     "last.pt of a run, e.g. python -m translate.evaluate "
                                     "checkpoint=runs/DATE/TIME/best.pt")


def test_lines_that_cannot_be_scored_keep_their_place_and_are_named(checkpoint, own_files, tmp_path, caplog,
                                                                     monkeypatch):
    """Line i of the hypotheses is line i of the input; an undecodable or empty line gets an empty hypothesis, is
    left out of the scores by the stated rule, and is named in the log with its file and line."""
    from translate.analysis.run import test_set_reports

    scored = test_set_reports.score_split
    monkeypatch.setattr(test_set_reports, "score_split", lambda translator, split: (  # hypotheses one can place
        scored(translator, split)[0], [f"hyp of {p.fr}" for p in split.pairs]))
    fr, en = own_files[0].read_bytes().splitlines()[:3], own_files[1].read_bytes().splitlines()[:3]
    (tmp_path / "l.fr").write_bytes(b"\n".join([b"Je suis all\xe9 \xe0 la gare.", fr[0], b"", fr[1], fr[2]]) + b"\n")
    (tmp_path / "l.en").write_bytes(b"\n".join([b"I went to the station.", en[0], b"Nothing.", en[1], b"  "]) + b"\n")
    files = f"[{{name: l, src: {tmp_path / 'l.fr'}, ref: {tmp_path / 'l.en'}}}]"
    metrics, out = evaluate_cli.evaluate(make_config(f"checkpoint={checkpoint}", f"output_dir={tmp_path / 'o'}", *FAST,
                                                     f"eval.test_sets={files}", config_name="evaluate"))
    hyps = (out / "l.hyp.txt").read_text(encoding="utf-8").split("\n")[:-1]
    assert hyps == ["", f"hyp of {fr[0].decode()}", "", f"hyp of {fr[1].decode()}", ""]
    scores = metrics["test_sets"]["l"]
    assert scores["sentences"] == 2 and scores["lines"]["not_scored"] == 3
    assert [(s["file"].endswith(f), s["line"]) for s, f in zip(scores["lines"]["skipped_lines"],
                                                                 ("l.fr", "l.fr", "l.en"))] == [(True, 1), (True, 3),
                                                                                                (True, 5)]
    logged = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("l.fr line 1: is not valid UTF-8" in m for m in logged) and any("l.fr line 3: empty" in m
                                                                                for m in logged)
    assert not any("alignment_error_rate" in m for m in logged)  # the default asks AER only where it can be had
    printed = evaluate_cli.summary(metrics, out)
    assert "(2 sentences; 3 of 5 lines not scored, each named above)" in printed[0]
    assert printed[1].startswith("rule: a line whose French or English side is empty or not valid UTF-8")


def test_a_file_that_is_not_text_is_an_error_naming_it(checkpoint, own_files, tmp_path):
    (tmp_path / "image.fr").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\n" * 12)
    files = f"[{{name: x, src: {tmp_path / 'image.fr'}, ref: {own_files[1]}}}]"
    with pytest.raises(ValueError, match=r"image.fr is not a text file \(it holds NUL bytes\)"):
        evaluate_cli.evaluate(evaluate_config(checkpoint, tmp_path / "o", f"eval.test_sets={files}"))
