"""docs/results.md rests on runs committed under docs/results/runs/ (small files only: no checkpoints), and
scripts/write_results.py writes the page again from them byte for byte."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNS = Path("docs/results/runs/seed_repro_cpu")  # relative: the page names the folder it was written from


def committed_files() -> list[Path]:
    return [f for f in (ROOT / RUNS).rglob("*") if f.is_file() and "report" not in f.relative_to(ROOT / RUNS).parts]


def test_the_page_counts_the_committed_runs_which_hold_small_files_only():
    files = committed_files()
    jobs = [f.parent for f in files if f.name == "metrics.json"]
    assert jobs and not [f for f in files if f.suffix in (".pt", ".tmp")]
    assert sum(f.stat().st_size for f in files) < 10 * 2**20
    page = (ROOT / "docs" / "results.md").read_text()
    assert f"from `{RUNS}` ({len(jobs)} jobs," in page


@pytest.mark.slow
def test_results_page_is_written_again_byte_for_byte_from_the_committed_runs(tmp_path):
    """With the sweep report rebuilt from the runs' metrics.json, hypotheses and attention pictures (and the test sets
    read again from the corpus), the page and its pictures come out the same."""
    shutil.copytree(ROOT / RUNS, tmp_path / RUNS, ignore=shutil.ignore_patterns("report"))
    written = subprocess.run([sys.executable, str(ROOT / "scripts" / "write_results.py"), str(RUNS),
                              "--out", "docs/results.md"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert written.returncode == 0, written.stderr[-3000:]
    assert (tmp_path / "docs" / "results.md").read_text() == (ROOT / "docs" / "results.md").read_text()
    assert (tmp_path / "docs" / "results.md").read_bytes() == (ROOT / "docs" / "results.md").read_bytes()
    linked = set(re.findall(r"\]\(results/([^)]+\.png)\)", (ROOT / "docs" / "results.md").read_text()))
    assert linked and linked == {p.name for p in (tmp_path / "docs" / "results").glob("*.png")}
    assert all((ROOT / "docs" / "results" / name).exists() for name in linked)
