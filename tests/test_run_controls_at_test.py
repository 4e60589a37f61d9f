"""A run's own test-time controls (eval.at_test): scored at the end of the run from the checkpoint its test scores
came from, each into a folder beside it that a sweep's report pairs with the model; none for a model trained with
an ablation; a rerun of the finished run scores a control that is missing; every bad entry is named before any data
is read."""
from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TINY_RUN, make_config
from omegaconf import OmegaConf

from translate.analysis.sweep import build_report
from translate.assembly.controls_at_test import control_folder
from translate.assembly.settings import validate_config
from translate.cli.controls_at_test import evaluate_at_test
from translate.cli.train import run
from translate.config import ConfigError

REPO = Path(__file__).resolve().parents[1]
JOB = "sinusoidal_none_words1-3_seed1"
CONTROLS = "eval.at_test=[{ablation: zero_dims, from: 32}, {ablation: zero_dims, name: zero_dims_mean, from: 32, " \
           "fill: mean}]"
SHORT = ("data.train_max_words=3", "report.edges=[3,5]", "report.bootstrap_samples=50", "report.probes_per_bucket=0",
         "train.max_steps=12", "train.valid_every=6", "decode.max_length_extra=7")


@pytest.fixture(scope="module")
def sweep(tmp_path_factory, cache_dir) -> Path:
    root = tmp_path_factory.mktemp("sweep")
    run(make_config(*TINY_RUN, f"data.cache_dir={cache_dir}", *SHORT, CONTROLS), root / JOB)
    return root


@pytest.mark.slow
def test_each_control_is_written_beside_the_run_and_paired_with_its_model(sweep):
    trained = OmegaConf.load(sweep / JOB / "config.yaml")
    hyps = len((sweep / JOB / "test.hyp.txt").read_text().splitlines())
    for label, fill in (("zero_dims", "zero"), ("zero_dims_mean", "mean")):
        out = sweep / f"sinusoidal_{label}_at_test_words1-3_seed1"
        config = OmegaConf.load(out / "config.yaml")
        assert config.ablation.name == f"{label}_at_test" and config.ablation["from"] == 32
        assert config.ablation.fill == fill and config.decode == trained.decode and config.report == trained.report
        assert len((out / "test.hyp.txt").read_text().splitlines()) == hyps
        assert json.loads((out / "metrics.json").read_text())["checkpoint"] == str(sweep / JOB / "last.pt")
    report = build_report(sweep, samples=50, hparams=False)
    whole = {r.ablation: r for r in report.rows if r.bucket == "all"}
    assert set(whole) == {"none", "zero_dims_at_test", "zero_dims_mean_at_test"}
    for label in ("zero_dims_at_test", "zero_dims_mean_at_test"):
        assert whole[label].compared.bleu.delta == pytest.approx(whole[label].bleu.value - whole["none"].bleu.value,
                                                                 abs=0.02)


@pytest.mark.slow
def test_a_control_scores_as_the_same_evaluation_run_afterwards(sweep, tmp_path):
    """One rule for the run's own control and for translate.study ablate-at-test: the same numbers."""
    evaluate_at_test(sweep / JOB / "last.pt", OmegaConf.load(sweep / JOB / "config.yaml"), tmp_path / "again",
                     ["ablation=zero_dims", "ablation.from=32", "ablation.fill=mean"])
    own = json.loads((sweep / "sinusoidal_zero_dims_mean_at_test_words1-3_seed1" / "metrics.json").read_text())
    again = json.loads((tmp_path / "again" / "metrics.json").read_text())
    assert (again["bleu"], again["chrf"]) == (own["bleu"], own["chrf"])
    assert (tmp_path / "again" / "test.hyp.txt").read_text() == (
        sweep / "sinusoidal_zero_dims_mean_at_test_words1-3_seed1" / "test.hyp.txt").read_text()


@pytest.mark.slow
def test_a_model_trained_with_an_ablation_scores_no_control(tmp_path, cache_dir, caplog):
    job = tmp_path / "sinusoidal_zero_dims_words1-3_seed1"
    caplog.set_level(logging.INFO, logger="translate.train")
    run(make_config(*TINY_RUN, f"data.cache_dir={cache_dir}", *SHORT, "train.max_steps=4", "ablation=zero_dims",
                    "ablation.from=32", CONTROLS), job)
    assert sorted(p.name for p in tmp_path.iterdir()) == [job.name]
    assert "it was trained with ablation zero_dims" in caplog.text


def controls_error(tiny_config, entries: str) -> str:
    with pytest.raises(ConfigError) as error:
        validate_config(tiny_config(f"eval.at_test={entries}"))
    return str(error.value)


def test_every_bad_entry_is_named_before_any_data_is_read(tiny_config):
    assert controls_error(tiny_config, "[{ablation: zero_dimz}]").startswith(
        "eval.at_test[0].ablation='zero_dimz' is not allowed: expected a conf/ablation option: ")
    assert "zero_dims" in controls_error(tiny_config, "[{ablation: zero_dimz}]")
    assert controls_error(tiny_config, "[{ablation: zero_dims, from: 32}, {ablation: zero_dims, fro: 3}]") == (
        "eval.at_test[1].fro is not a setting of ablation zero_dims: allowed: ablation, name, from, ranges, fill, "
        "mean_positions")
    assert "given twice" in controls_error(tiny_config, "[{ablation: scale}, {ablation: scale, factor: 2.0}]")
    assert "eval.at_test[0].name=" in controls_error(tiny_config, "[{ablation: scale, name: 'a/b'}]")
    assert "expected a mapping {ablation: OPTION" in controls_error(tiny_config, "[zero_dims]")
    too_wide = controls_error(tiny_config, "[{ablation: zero_dims}]")  # dims >= 400 of a 64-wide model
    assert too_wide.startswith("eval.at_test[0] (translate.ablations.zero_dims.ZeroDims) cannot be applied")
    assert "400" in too_wide and "64" in too_wide
    assert "read ablation.X below as eval.at_test[0].X" in too_wide   # where to set the hint's `ablation.from=50`
    assert "read ablation.X" not in str(pytest.raises(ConfigError, validate_config,
                                                      tiny_config("ablation=zero_dims")).value)
    assert validate_config(tiny_config("eval.at_test=[{ablation: zero_dims, from: 32}]")).controls[0].ablation[
        "from"] == 32


def test_a_controls_folder_is_the_runs_name_with_the_control_in_place_of_its_ablation():
    assert control_folder(Path("s/sinusoidal_none_words1-9_seed1"), "none", "zero_dims_mean") == Path(
        "s/sinusoidal_zero_dims_mean_at_test_words1-9_seed1")
    assert control_folder(Path("runs/12-00-00"), "none", "zero_dims") == Path("runs/12-00-00_zero_dims_at_test")


@pytest.mark.slow
def test_the_command_scores_its_controls_and_a_rerun_scores_a_missing_one(tmp_path, cache_dir):
    """Through `python -m translate.train`: the controls are composed inside the command's own Hydra."""
    run_dir = tmp_path / "run"
    command = [sys.executable, "-m", "translate.train", *TINY_RUN, f"hydra.run.dir={run_dir}",
               f"data.cache_dir={cache_dir}", *SHORT, "train.max_steps=4", "train.resume=auto",
               "eval.at_test=[{ablation: zero_dims, from: 32}]"]
    first = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-2000:]
    control = tmp_path / "run_zero_dims_at_test"
    assert OmegaConf.load(control / "config.yaml").ablation.name == "zero_dims_at_test"
    (control / "metrics.json").unlink()
    again = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "already finished" in again.stdout and (control / "metrics.json").exists()
