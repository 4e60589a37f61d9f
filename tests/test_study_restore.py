"""translate.study restore: committed finished jobs go back into their sweep folder, so that a sweep run again in a
fresh checkout trains only what is missing."""
from __future__ import annotations

from pathlib import Path

from test_study_collect import files, make_job

from translate.study.__main__ import main as study


def collected(folder: Path, finished: bool, marker: str = "1") -> None:
    """A job as docs/results/runs holds it: collect_runs' copy, without checkpoints."""
    folder.mkdir(parents=True)
    make_job(folder, finished, marker)
    for checkpoint in folder.glob("*.pt*"):
        checkpoint.unlink()


def test_finished_committed_jobs_are_restored_and_nothing_in_the_sweep_is_touched(tmp_path, capsys):
    runs, sweep = tmp_path / "runs", tmp_path / "sweep"
    collected(runs / "sinusoidal_seed1", finished=True)
    collected(runs / "none_seed1", finished=True, marker="2")
    collected(runs / "none_seed2", finished=False)           # never committed so, but never restored either
    (sweep / "none_seed1").mkdir(parents=True)                 # training here: its own last.pt, no metrics yet
    (sweep / "none_seed1" / "last.pt").write_bytes(b"mine")
    assert study(["restore", str(runs), str(sweep)]) == 0
    assert "restored 1 finished jobs" in capsys.readouterr().out
    assert files(sweep / "sinusoidal_seed1") == files(runs / "sinusoidal_seed1")
    assert (sweep / "sinusoidal_seed1" / "metrics.json").read_text() == '{"marker": 1}\n'
    assert sorted(p.name for p in (sweep / "none_seed1").iterdir()) == ["last.pt"]
    assert not (sweep / "none_seed2").exists() and not list(sweep.glob("*.staging"))
    assert study(["restore", str(runs), str(sweep)]) == 0   # again: nothing more
    assert "restored 0 finished jobs" in capsys.readouterr().out


def test_a_comparison_with_no_committed_runs_restores_nothing(tmp_path, capsys):
    assert study(["restore", str(tmp_path / "not_yet"), str(tmp_path / "sweep")]) == 0
    assert "nothing to restore" in capsys.readouterr().out and not (tmp_path / "sweep").exists()


def test_a_restored_job_is_skipped_by_a_rerun_of_its_sweep(tmp_path):
    """What makes a restored job count: a rerun finds its metrics.json and no checkpoint, and trains nothing."""
    from translate.cli.train import nothing_left

    collected(tmp_path / "job", finished=True)
    assert nothing_left(None, tmp_path / "job") == "no checkpoint is left in the folder to continue from"
