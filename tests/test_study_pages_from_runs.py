"""The results pages rest on runs committed under docs/results/runs/ (small files only: no checkpoints), and their
scripts write each page again from those runs byte for byte."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
THIS_CHECKOUT = {**os.environ, "PYTHONPATH": str(ROOT)}  # the pages are written in a scratch folder, by this code

# (committed runs, the script that writes the page, the page, more runs the page reads: (option, folder) pairs, and
# whether the page writes a results block of the README). The runs' folders are relative: the page names them.
PAGES = [
    (Path("docs/results/runs/claims_cpu"), "results", Path("docs/results.md"),
     (("--pilots", Path("docs/results/runs/claims_cpu_pilot")),
      ("--pilots", Path("docs/results/runs/claim_a_cpu_pilot")),
      ("--pilots", Path("docs/results/runs/claim_b_within_cpu_pilot")),
      ("--pilots", Path("docs/results/runs/claim_a_long_cpu_pilot")),
      ("--pilots", Path("docs/results/runs/claim_a_long_cpu_pilot_dropout")), ("--plan", Path("docs/preregistration.md")),
      ("--silver-check", Path("docs/results/silver_against_gold.json"))), True),
    (Path("docs/results/runs/seed_repro_cpu"), "results", Path("docs/results_600_steps.md"), (), False),
    (Path("docs/results/runs/encodings_cpu"), "encodings", Path("docs/encodings_results.md"),
     (("--extrapolation", Path("docs/results/runs/length_extrapolation_cpu")),
      ("--published", Path("docs/results/runs/extrapolation_published_cpu")),
      ("--longer-inputs", Path("docs/results/runs/length_extrapolation_longer_cpu"))), True),
]
IDS = [page.stem for _, _, page, _, _ in PAGES]


def committed_files(runs: Path) -> list[Path]:
    return [f for f in (ROOT / runs).rglob("*") if f.is_file() and "report" not in f.relative_to(ROOT / runs).parts]


@pytest.mark.parametrize("runs, command, page, more, readme", PAGES, ids=IDS)
def test_the_page_counts_the_committed_runs_which_hold_small_files_only(runs, command, page, more, readme):
    text = (ROOT / page).read_text()
    folders = [(runs, "")] + [(folder, option) for option, folder in more if (ROOT / folder).is_dir()]  # no plan
    for folder, option in folders:
        files = committed_files(folder)
        jobs = [f.parent for f in files if f.name == "metrics.json"]
        # a pilots' line counts the pilots, not the test-time controls scored beside one (no training steps)
        named = [job for job in jobs if option != "--pilots" or json.loads((job / "metrics.json").read_text())
                 .get("steps") is not None]
        assert jobs and not [f for f in files if f.suffix in (".pt", ".tmp")]
        # Small files only, however many jobs a sweep adds: a job's folder stays under 2 MiB (model=small's
        # checkpoint alone is ~90 MiB with its optimizer state).
        for job in jobs:
            assert sum(f.stat().st_size for f in files if job in f.parents) < 2 * 2**20, job
        assert re.search(rf"`{folder}`[^\n]*?\b{len(named)} (finished )?jobs?\b", text), \
            f"{page} does not name {folder} with its {len(named)} jobs"


@pytest.mark.slow
@pytest.mark.parametrize("runs, command, page, more, readme", PAGES, ids=IDS)
def test_page_is_written_again_byte_for_byte_from_the_committed_runs(runs, command, page, more, readme, tmp_path):
    """With the sweep reports rebuilt from the runs' metrics.json, hypotheses and attention pictures (and the test
    sets read again from the corpus), the page and its pictures come out the same."""
    options = []
    for folder in [runs] + [folder for _, folder in more]:
        if (ROOT / folder).is_file():   # the analysis plan the page quotes
            (tmp_path / folder).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / folder, tmp_path / folder)
        else:
            shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("report"))
    for option, folder in more:
        options += [option, str(folder)]
    shutil.copyfile(ROOT / "README.md", tmp_path / "README.md")  # its results blocks are the pages' numbers
    if readme:
        options += ["--readme", "README.md"]
    written = subprocess.run([sys.executable, "-m", "translate.study", command, str(runs), "--out", str(page), *options],
                             cwd=tmp_path, capture_output=True, text=True, timeout=600, env=THIS_CHECKOUT)
    assert written.returncode == 0, written.stderr[-3000:]
    assert (tmp_path / page).read_text() == (ROOT / page).read_text()
    assert (tmp_path / "README.md").read_text() == (ROOT / "README.md").read_text()  # copied by code, not by hand
    assert (tmp_path / page).read_bytes() == (ROOT / page).read_bytes()
    assets = page.with_suffix("")  # the page's pictures: docs/results/ beside docs/results.md
    linked = set(re.findall(rf"\]\({assets.name}/([^)]+\.png)\)", (ROOT / page).read_text()))
    assert linked and linked == {p.name for p in (tmp_path / assets).glob("*.png")}
    assert all((ROOT / assets / name).exists() for name in linked)


def test_the_readme_default_run_block_is_its_committed_metrics():
    """The default run's figures in the README are written from its committed metrics.json by code."""
    import json

    from translate.study.pages.readme import default_run_block, first_command_lines, replace_block

    folder, loaded = Path("docs/results/runs/default_train"), "docs/results/runs/default_train_loaded"
    metrics = json.loads((ROOT / folder / "metrics.json").read_text())
    readme = (ROOT / "README.md").read_text()
    assert replace_block(readme, "default", default_run_block(str(folder), loaded, ROOT)) == readme
    assert replace_block(readme, "first", first_command_lines(str(folder), loaded, ROOT)) == readme
    first = readme.split("<!-- results:first -->")[1].split("<!-- /results:first -->")[0]
    assert f"trains {metrics['steps']:,} steps" in first and f"{metrics['test_sets']['test']['bleu']:.2f}" in first
    assert f"{metrics['test_sets']['test']['bleu']:.2f}" in readme and not list((ROOT / folder).glob("*.pt"))


def test_the_busy_run_sentence_says_whether_the_model_and_scores_are_the_same():
    from translate.study.pages.readme import loaded_run_lines

    quiet = {"weights_sha256": "ab" * 32, "run_minutes": 19.5, "steps": 1500, "test_sets": {"test": {"bleu": 38.1}}}
    busy = {**quiet, "run_minutes": 61.25}
    line = loaded_run_lines(quiet, busy, "runs/busy")[-1]
    assert "1,500 steps in 61.2 minutes in all (quiet: 19.5)" in line
    assert "the same weights bit for bit" in line and "the same test BLEU" in line
    other = loaded_run_lines(quiet, {**busy, "weights_sha256": "cd" * 32, "test_sets": {"test": {"bleu": 37.9}}},
                             "runs/busy")[-1]
    assert "other weights" in other and "`test` 37.9 against 38.1" in other
