"""From pilots to a comparison: the budget is the largest plateau step, and a job started from its pilot's best.pt
trains on to the budget exactly as a fresh run of that seed would."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from translate.cli.train import run
from translate.study.__main__ import main as study
from translate.training.checkpoint import load_checkpoint


def start_main(argv: list[str]) -> int:
    return study(["pilots", *argv])


def pilot(folder: Path, best_step: int | None, finished: bool = True, dropout: float = 0.1,
          best_bleu: float = 30.0) -> None:
    """A pilot that stopped 3 validations (its patience) after its best."""
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text(f"seed: 1\ntrain: {{early_stop_patience: 3}}\nmodel: {{dropout: {dropout}}}\n")
    (folder / "best.pt").write_bytes(f"checkpoint at {best_step}".encode())
    if finished:
        curve = [[best_step, best_bleu, 2.0]] + [[best_step + 200 * i, best_bleu - 1, 2.0] for i in (1, 2, 3)]
        (folder / "metrics.json").write_text(json.dumps({"best_valid_step": best_step, "steps": best_step + 600,
                                                         "valid_curve": curve}))


def test_the_budget_is_the_largest_plateau_and_each_job_starts_from_its_pilot(tmp_path, capsys):
    pilot(tmp_path / "pilots" / "a", 1200)
    pilot(tmp_path / "pilots" / "b", 1600)
    (tmp_path / "runs" / "b").mkdir(parents=True)
    (tmp_path / "runs" / "b" / "last.pt").write_bytes(b"already training")
    assert start_main([str(tmp_path / "pilots"), str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    assert '{"budget_steps": 1600}' in out and "train.max_steps=1600" in out
    assert (tmp_path / "runs" / "a" / "last.pt").read_bytes() == b"checkpoint at 1200"
    assert (tmp_path / "runs" / "b" / "last.pt").read_bytes() == b"already training"  # never overwritten


def test_unfinished_pilots_give_no_budget(tmp_path, capsys):
    pilot(tmp_path / "pilots" / "a", 1200)
    pilot(tmp_path / "pilots" / "b", None, finished=False)
    assert start_main([str(tmp_path / "pilots"), str(tmp_path / "runs")]) == 2
    assert "pilots still running or interrupted" in capsys.readouterr().err and not (tmp_path / "runs").exists()


@pytest.mark.slow
def test_a_job_started_from_a_pilots_best_checkpoint_equals_a_fresh_run(tmp_path, tiny_config):
    run(tiny_config("train.max_steps=10", "report.images=[]", "report.bootstrap_samples=0"), tmp_path / "pilot")
    assert load_checkpoint(tmp_path / "pilot" / "best.pt")["progress"]["step"] == 10  # its first validation
    fresh = run(tiny_config("train.max_steps=20", "report.images=[]", "report.bootstrap_samples=0"), tmp_path / "fresh")
    (tmp_path / "started").mkdir()
    shutil.copyfile(tmp_path / "pilot" / "best.pt", tmp_path / "started" / "last.pt")
    started = run(tiny_config("train.max_steps=20", "train.resume=auto", "report.images=[]",
                              "report.bootstrap_samples=0"), tmp_path / "started")
    weights = [load_checkpoint(tmp_path / name / "last.pt")["model"] for name in ("fresh", "started")]
    assert weights[0].keys() == weights[1].keys()
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    assert started["bleu"] == fresh["bleu"] and started["tested_step"] == fresh["tested_step"] == 20


def test_budget_only_copies_nothing(tmp_path, capsys):
    pilot(tmp_path / "pilots" / "a", 1200)
    assert start_main([str(tmp_path / "pilots"), "--budget-only"]) == 0
    assert '{"budget_steps": 1200}' in capsys.readouterr().out and not (tmp_path / "runs").exists()


def test_a_pilot_collected_without_checkpoints_still_counts_and_its_job_trains_from_step_0(tmp_path, capsys):
    """Pilots committed as small files only (their checkpoints gone with the machine that trained them) still give
    their plateau step; their jobs start afresh, which is the same model."""
    pilot(tmp_path / "pilots" / "collected", 3400)
    (tmp_path / "pilots" / "collected" / "best.pt").unlink()
    pilot(tmp_path / "pilots" / "here", 1400)
    assert start_main([str(tmp_path / "pilots"), str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    assert '{"budget_steps": 3400}' in out and "has no best.pt, so the job trains from step 0" in out
    assert not (tmp_path / "runs" / "collected").exists()
    assert (tmp_path / "runs" / "here" / "last.pt").read_bytes() == b"checkpoint at 1400"


def test_the_dropout_command_prints_the_kept_dropout_and_its_pilots_folder(tmp_path, capsys):
    pilot(tmp_path / "low" / "sinusoidal", 3800, best_bleu=33.77)
    pilot(tmp_path / "high" / "sinusoidal", 4400, dropout=0.3, best_bleu=35.02)
    assert study(["dropout", str(tmp_path / "low"), str(tmp_path / "high")]) == 0
    out = capsys.readouterr().out
    assert "dropout 0.1 33.77 at step 3,800, dropout 0.3 35.02 at step 4,400" in out
    assert json.loads(out.splitlines()[-1]) == {"model.dropout": 0.3, "pilots": str(tmp_path / "high")}
    assert study(["dropout", str(tmp_path / "low")]) == 2
    assert "two or more folders" in capsys.readouterr().err
