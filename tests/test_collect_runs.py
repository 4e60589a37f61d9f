"""scripts/collect_runs.py: a sweep's finished jobs without checkpoints, pieces adding up."""
from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_job(folder: Path, finished: bool, marker: str = "1") -> None:
    (folder / "tb").mkdir(parents=True)
    (folder / "config.yaml").write_text("seed: 1\n")
    (folder / "tb" / "events.out.tfevents.1").write_text(marker)
    (folder / "test.hyp.txt").write_text("hello\n")
    for checkpoint in ("last.pt", "best.pt", "last.prev.pt", "last.pt.tmp"):
        (folder / checkpoint).write_bytes(b"x" * 1000)
    if finished:
        (folder / "metrics.json").write_text(f'{{"marker": {marker}}}\n')


def test_collect_copies_finished_jobs_without_checkpoints_and_adds_pieces_up(tmp_path, capsys):
    collect_runs = load_script("collect_runs")
    sweep, dest = tmp_path / "sweep", tmp_path / "dest"
    make_job(sweep / "a_seed1", finished=True)
    make_job(sweep / "b_seed1", finished=False)
    assert collect_runs.main([str(sweep), str(dest)]) == 0
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == [
        "a_seed1/config.yaml", "a_seed1/metrics.json", "a_seed1/tb/events.out.tfevents.1", "a_seed1/test.hyp.txt"]
    assert "left out (unfinished, no metrics.json): " + str(sweep / "b_seed1") in capsys.readouterr().out

    # a second piece: b has finished since, a was run again; both land, a's newer copy replaces the old one
    shutil.rmtree(sweep / "a_seed1")
    make_job(sweep / "a_seed1", finished=True, marker="2")
    (sweep / "b_seed1" / "metrics.json").write_text("{}\n")
    assert collect_runs.main([str(sweep), str(dest)]) == 0
    assert (dest / "a_seed1" / "metrics.json").read_text() == '{"marker": 2}\n'
    assert (dest / "b_seed1" / "metrics.json").exists() and not list(dest.rglob("*.pt"))
    assert not list(dest.glob("*.collecting"))


def test_collect_refuses_a_missing_sweep_folder(tmp_path, capsys):
    assert load_script("collect_runs").main([str(tmp_path / "nowhere"), str(tmp_path / "dest")]) == 2
    assert "sweep_dir=" in capsys.readouterr().err
