"""The committed results: scripts/collect_runs.py brings a sweep's small files over (no checkpoints), and
scripts/write_results.py writes docs/results.md from the committed runs byte for byte."""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNS = Path("docs/results/runs/seed_repro_cpu")  # relative: the page names the folder it was written from


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


def test_committed_runs_hold_small_files_only():
    files = [f for f in (ROOT / RUNS).rglob("*") if f.is_file() and "report" not in f.relative_to(ROOT / RUNS).parts]
    metrics = [f for f in files if f.name == "metrics.json"]
    assert len(metrics) == 6, "docs/results/runs/seed_repro_cpu should hold the six jobs of make repro"
    assert not [f for f in files if f.suffix in (".pt", ".tmp")]
    assert sum(f.stat().st_size for f in files) < 40 * 2**20


@pytest.mark.slow
def test_results_page_is_written_again_byte_for_byte_from_the_committed_runs(tmp_path):
    """docs/results.md is a function of the committed runs: with the sweep report rebuilt from their metrics.json,
    hypotheses and TensorBoard logs (and the test sets read again from the corpus), the page comes out the same."""
    shutil.copytree(ROOT / RUNS, tmp_path / RUNS, ignore=shutil.ignore_patterns("report"))
    written = subprocess.run([sys.executable, str(ROOT / "scripts" / "write_results.py"), str(RUNS),
                              "--out", "docs/results.md"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert written.returncode == 0, written.stderr[-3000:]
    assert (tmp_path / "docs" / "results.md").read_text() == (ROOT / "docs" / "results.md").read_text()
    assert (tmp_path / "docs" / "results.md").read_bytes() == (ROOT / "docs" / "results.md").read_bytes()
    pictures = {p.name for p in (tmp_path / "docs" / "results").iterdir() if p.suffix == ".png"}
    assert pictures and pictures <= {p.name for p in (ROOT / "docs" / "results").iterdir()}
