"""A comparison's budget from its pilots (translate.study.verdicts.pilots): the largest plateau step, the pilots found
by setting among the comparison's jobs, and the page naming jobs tested elsewhere than the budget."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from translate.analysis.sweep.jobs import SweepError, find_jobs
from translate.study.verdicts.pilots import budget, budget_lines, kept_dropout, plateau_steps, read_pilots


def job(folder: Path, encoding: str, seed: int, steps: int, tested: int, curve: dict[int, float],
        pilot: bool = False, lr: float = 0.002, dropout: float = 0.1) -> None:
    folder.mkdir(parents=True)
    train = {"max_steps": 4000 if pilot else steps, "lr": lr, "early_stop_patience": 3 if pilot else None,
             "test_checkpoint": "best" if pilot else "last"}
    (folder / "config.yaml").write_text(yaml.safe_dump({"seed": seed, "encoding": {"name": encoding}, "train": train,
                                                        "model": {"dropout": dropout}}))
    best = max(curve, key=curve.get)
    (folder / "metrics.json").write_text(json.dumps({
        "steps": steps, "tested_step": tested, "best_valid_step": best,
        "valid_curve": [[s, b, 3.0] for s, b in sorted(curve.items())], "test_set": "test"}))


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    # each pilot stopped 3 validations (its patience) after its best
    job(tmp_path / "pilots" / "sin", "sinusoidal", 1, 2000, 1400,
        {800: 30.0, 1400: 34.5, 1600: 34.0, 1800: 33.8, 2000: 33.9}, pilot=True)
    job(tmp_path / "pilots" / "none", "none", 1, 1400, 800, {400: 20.0, 800: 25.25, 1000: 24.0, 1200: 24.5,
                                                            1400: 24.0}, pilot=True)
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


def test_a_test_time_control_beside_a_pilot_is_not_a_pilot(sweep):
    """A sinusoidal pilot scores its test-time controls at its end: evaluation-only jobs in the pilots' folder, with
    no steps and no best-valid step. They are the pilot's model again and set nothing."""
    control = sweep / "pilots" / "sin_zero_dims_at_test"
    control.mkdir()
    (control / "config.yaml").write_text((sweep / "pilots" / "sin" / "config.yaml").read_text())
    (control / "metrics.json").write_text(json.dumps({"test_set": "test", "step": 1400,
                                                      "checkpoint": str(sweep / "pilots" / "sin" / "best.pt")}))
    assert sorted(p.name for p in read_pilots(sweep / "pilots")) == ["none", "sin"]
    assert plateau_steps(sweep / "pilots") == {"sin": 1400, "none": 800}


def test_an_unfinished_pilot_or_a_missing_folder_is_an_error_naming_it(sweep):
    (sweep / "pilots" / "none" / "metrics.json").unlink()
    with pytest.raises(SweepError, match="pilots still running or interrupted in .*pilots: none"):
        read_pilots(sweep / "pilots")
    with pytest.raises(SweepError, match="nowhere does not exist"):
        budget_lines([sweep / "nowhere"], [])


def test_a_pilot_stopped_by_its_cap_before_its_plateau_sets_no_budget(sweep):
    """Best valid BLEU one validation before the cap is no plateau: the rule asks for 3 validations without a better
    one. The budget refuses it, naming the pilot and what to do; the page says which pilot the cap stopped."""
    shutil.rmtree(sweep / "pilots" / "sin")
    job(sweep / "pilots" / "sin", "sinusoidal", 1, 4000, 3800, {3600: 33.5, 3800: 33.77, 4000: 33.55}, pilot=True)
    with pytest.raises(SweepError, match=r"sin stopped at step 4,000 before its plateau: best valid BLEU 33.77 at step "
                                         r"3,800, then 1 validation\(s\) without a better one, of the 3 .*larger "
                                         r"train.max_steps"):
        plateau_steps(sweep / "pilots")
    text = "\n".join(budget_lines([sweep / "pilots"], find_jobs(sweep / "runs")))
    assert "except sinusoidal, train words all, stopped by the step cap before its plateau" in text


def pilots_at(root: Path, dropout: float, bleu: dict[str, float], after_best: int = 3) -> Path:
    """A folder of pilots at one dropout: {encoding: best valid BLEU at step 1,000}, each `after_best` validations on."""
    for encoding, best in bleu.items():
        curve = {1000: best} | {1000 + 200 * i: best - 1 for i in range(1, after_best + 1)}
        job(root / f"dropout{dropout}" / encoding, encoding, 1, max(curve), 1000, curve, pilot=True, dropout=dropout)
    return root / f"dropout{dropout}"


def test_the_dropout_kept_is_the_one_whose_shared_pilots_score_higher(tmp_path):
    # the zeroed setting was piloted at dropout 0.3 only (the plan's order): the sinusoidal pair alone decides
    low = pilots_at(tmp_path, 0.1, {"sinusoidal": 33.77})
    high = pilots_at(tmp_path, 0.3, {"sinusoidal": 35.02, "sinusoidal_zero_dims": 20.0})
    choice = kept_dropout([low, high])
    assert (choice.dropout, choice.pilot_dir) == (0.3, high)
    assert choice.reason() == ("sinusoidal, train words all: dropout 0.1 33.77 at step 1,000, "
                               "dropout 0.3 35.02 at step 1,000")
    assert kept_dropout([pilots_at(tmp_path / "other", 0.1, {"sinusoidal": 36.0}), high]).dropout == 0.1


def test_a_tie_keeps_the_first_folders_dropout(tmp_path):
    low = pilots_at(tmp_path, 0.1, {"sinusoidal": 34.0})
    high = pilots_at(tmp_path, 0.3, {"sinusoidal": 34.0})
    assert kept_dropout([low, high]).dropout == 0.1 and kept_dropout([high, low]).dropout == 0.3


def test_the_dropout_is_never_chosen_on_a_pilot_short_of_its_plateau_or_on_unlike_folders(tmp_path):
    low = pilots_at(tmp_path, 0.1, {"sinusoidal": 34.0}, after_best=1)
    high = pilots_at(tmp_path, 0.3, {"sinusoidal": 30.0})
    with pytest.raises(SweepError, match="dropout0.1/sinusoidal stopped at step 1,200 before its plateau"):
        kept_dropout([low, high])
    with pytest.raises(SweepError, match="two folders hold the same dropout"):
        kept_dropout([high, pilots_at(tmp_path / "again", 0.3, {"sinusoidal": 31.0})])
    with pytest.raises(SweepError, match="no setting was piloted at every dropout"):
        kept_dropout([high, pilots_at(tmp_path / "none", 0.1, {"none": 31.0})])


def test_the_page_says_which_dropout_was_kept_and_that_the_other_set_no_budget(tmp_path):
    low = pilots_at(tmp_path, 0.1, {"sinusoidal": 33.77})
    high = pilots_at(tmp_path, 0.3, {"sinusoidal": 35.02, "sinusoidal_zero_dims": 20.0})
    job(tmp_path / "runs" / "sin1", "sinusoidal", 1, 1000, 1000, {1000: 34.0}, dropout=0.3)
    lines = budget_lines([low, high], find_jobs(tmp_path / "runs"))
    low_line = next(line for line in lines if line.startswith(f"- `{low}`"))
    high_line = next(line for line in lines if line.startswith(f"- `{high}`"))
    assert low_line.endswith("Dropout not kept (dropout 0.3 scored higher: sinusoidal, train words all: dropout 0.1 "
                             "33.77 at step 1,000, dropout 0.3 35.02 at step 1,000): no budget.")
    assert "Dropout 0.3 kept, its pilots' best valid BLEU the higher" in high_line
    assert high_line.endswith("Budget 1,000 steps: the 1 jobs of these settings (every seed) were all tested at step "
                              "1,000.")
    # folders that pilot nothing at another dropout are read alone, as before
    assert not any("Dropout" in line for line in budget_lines([high], find_jobs(tmp_path / "runs")))
