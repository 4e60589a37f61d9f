"""A real tiny multirun, as `make sweep` runs it: one piece of the sweep (piece=K/N) first, then the whole sweep,
which skips the finished job; two jobs in parallel (joblib), one folder per job; interrupted (here: stopped at 4
steps) and rerun, each job continues from its last.pt; then the report and the results page."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TINY_RUN

ROOT = Path(__file__).resolve().parents[1]
FAST = ("data.valid_limit=40", "data.test_limit=60", "train.valid_every=1000", "train.save_every=2",
        "train.valid_bleu_limit=20", "train.num_threads=1", "report.bootstrap_samples=50")


def sweep(sweep_dir: Path, cache_dir: Path, steps: int, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "translate.train", "+sweep=encodings", "encoding=sinusoidal,none",
               f"hydra.sweep.dir={sweep_dir}", "hydra.launcher.n_jobs=2", *TINY_RUN, *FAST,
               f"train.max_steps={steps}", f"data.cache_dir={cache_dir}", *extra]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.mark.slow
def test_sweep_resumes_then_reports(tmp_path, cache_dir):
    sweep_dir = tmp_path / "sweep"
    first = sweep(sweep_dir, cache_dir, 4, "piece=2/2")  # one piece: job 1 (none) only
    assert "not in piece=2/2" in first.stdout
    assert [p.parent.name for p in sweep_dir.glob("*/metrics.json")] == ["none_none_seed1"]
    finished = (sweep_dir / "none_none_seed1" / "metrics.json").stat().st_mtime_ns
    whole = sweep(sweep_dir, cache_dir, 4)  # the whole sweep: job 0 trains, the finished job 1 is skipped
    assert whole.stdout.count("already finished") == 1
    assert (sweep_dir / "none_none_seed1" / "metrics.json").stat().st_mtime_ns == finished
    jobs = {p.name: p for p in sweep_dir.iterdir() if p.is_dir()}
    assert set(jobs) == {"sinusoidal_none_seed1", "none_none_seed1"}
    assert all(json.loads((job / "metrics.json").read_text())["steps"] == 4 for job in jobs.values())

    for job in jobs.values():  # as if interrupted after the step-4 checkpoint, before the end
        (job / "metrics.json").unlink()
    sweep(sweep_dir, cache_dir, steps=8)  # the same folders: each job continues from its step-4 last.pt
    for name, job in jobs.items():
        metrics = json.loads((job / "metrics.json").read_text())
        assert metrics["steps"] == 8 and metrics["encoding"] == name.split("_")[0]
        assert "resumed from" in (job / "train.log").read_text()

    report = subprocess.run([sys.executable, "-m", "translate.report", str(sweep_dir), "--samples", "100"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr[-3000:]
    rows = json.loads((sweep_dir / "report" / "report.json").read_text())["rows"]
    whole = {r["setting"]: r for r in rows if r["bucket"] == "all"}
    assert set(whole) == {"sinusoidal", "none"} and whole["none"]["p_bleu"] is not None
    assert whole["sinusoidal"]["parameters"] == whole["none"]["parameters"]
    assert (sweep_dir / "report" / "bleu_by_length.png").exists()

    page = tmp_path / "docs" / "results.md"
    written = subprocess.run([sys.executable, "-m", "translate.study", "results", str(sweep_dir), "--out", str(page)],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert written.returncode == 0, written.stderr[-3000:]
    text = page.read_text()
    assert "## What the numbers say" in text and "(c) With PE" in text
    assert "(2 jobs," in text  # each job once, though each is scored on two test sets
    # verdicts and tables read one test set at a time: a bucket of two test sets holds different sentences
    assert "Each verdict is decided on `test`" in text  # and lists the other test sets beside it
    assert "`multi30k_flickr2016`, all jobs (1 seed; " in text  # (c), per sentence, on the second test set too
    assert "### Whole test set on `multi30k_flickr2016`" in text
    assert "One seed per setting" in text  # single-seed verdicts say that seed variance is not measured
    assert (page.with_suffix("") / "bleu_by_length.png").exists()
    # the page is a function of the run folders' small files (metrics.json, hypotheses, TensorBoard images): with the
    # report rebuilt from them, the page is written again byte for byte
    first = page.read_bytes()
    shutil.rmtree(sweep_dir / "report")
    assert subprocess.run([sys.executable, "-m", "translate.report", str(sweep_dir), "--samples", "100"], cwd=ROOT,
                          capture_output=True, timeout=300).returncode == 0
    again = subprocess.run([sys.executable, "-m", "translate.study", "results", str(sweep_dir), "--out", str(page)],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and page.read_bytes() == first
