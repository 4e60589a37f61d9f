"""A comparison's budget from its pilots (translate.study.verdicts.pilots): the largest plateau step, the pilots found
by setting among the comparison's jobs, and the page naming jobs tested elsewhere than the budget."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from translate.analysis.sweep.jobs import SweepError, find_jobs
from translate.study.verdicts.pilots import budget, budget_lines, read_pilots


def job(folder: Path, encoding: str, seed: int, steps: int, tested: int, curve: dict[int, float],
        pilot: bool = False, lr: float = 0.002) -> None:
    folder.mkdir(parents=True)
    train = {"max_steps": 4000 if pilot else steps, "lr": lr, "early_stop_patience": 3 if pilot else None,
             "test_checkpoint": "best" if pilot else "last"}
    (folder / "config.yaml").write_text(yaml.safe_dump({"seed": seed, "encoding": {"name": encoding}, "train": train}))
    best = max(curve, key=curve.get)
    (folder / "metrics.json").write_text(json.dumps({
        "steps": steps, "tested_step": tested, "best_valid_step": best,
        "valid_curve": [[s, b, 3.0] for s, b in sorted(curve.items())], "test_set": "test"}))


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    job(tmp_path / "pilots" / "sin", "sinusoidal", 1, 2000, 1400, {800: 30.0, 1400: 34.5, 2000: 33.9}, pilot=True)
    job(tmp_path / "pilots" / "none", "none", 1, 1400, 800, {400: 20.0, 800: 25.25, 1400: 24.0}, pilot=True)
    for seed in (1, 2):
        job(tmp_path / "runs" / f"sin{seed}", "sinusoidal", seed, 1400, 1400, {1400: 34.0})
        job(tmp_path / "runs" / f"none{seed}", "none", seed, 1400, 1400 if seed == 1 else 1000, {1400: 25.0})
    job(tmp_path / "runs" / "other_lr", "sinusoidal", 1, 500, 500, {500: 10.0}, lr=0.01)   # not these pilots' setting
    return tmp_path


def test_the_budget_is_the_largest_plateau_step(sweep):
    pilots = {p.name: p for p in read_pilots(sweep / "pilots")}
    assert (pilots["sin"].best_step, pilots["sin"].best_bleu, pilots["sin"].steps) == (1400, 34.5, 2000)
    assert (pilots["none"].best_step, pilots["none"].best_bleu, pilots["none"].patience) == (800, 25.25, 3)
    assert budget(list(pilots.values())) == 1400


def test_the_page_finds_the_comparisons_jobs_by_setting_and_names_those_tested_off_budget(sweep):
    text = "\n".join(budget_lines([sweep / "pilots"], find_jobs(sweep / "runs")))
    assert "(2 jobs, the pilots, each stopped after 3 validations without a better valid BLEU)" in text
    assert "sinusoidal, train words all: 34.50 at step 1,400 (trained to 2,000)" in text
    assert "none, train words all: 25.25 at step 800 (trained to 1,400)" in text
    # four jobs share the pilots' settings (the other learning rate does not); one was tested at step 1,000
    assert "Budget 1,400 steps: the 4 jobs of these settings were tested at step(s) 1,000, 1,400, not at the budget" \
        in text


def test_jobs_all_at_the_budget_are_said_to_be(sweep):
    (sweep / "runs" / "none2").rename(sweep / "none2_elsewhere")
    text = "\n".join(budget_lines([sweep / "pilots"], find_jobs(sweep / "runs")))
    assert "the 3 jobs of these settings (every seed) were all tested at step 1,400" in text


def test_an_unfinished_pilot_or_a_missing_folder_is_an_error_naming_it(sweep):
    (sweep / "pilots" / "none" / "metrics.json").unlink()
    with pytest.raises(SweepError, match="pilots still running or interrupted in .*pilots: none"):
        read_pilots(sweep / "pilots")
    with pytest.raises(SweepError, match="nowhere does not exist"):
        budget_lines([sweep / "nowhere"], [])
