"""translate.study ablate-at-test on a real tiny sweep job: the test-time control is written beside the job as a job of the
sweep (config.yaml naming the ablation <name>_at_test, decoded as the job was), the report pairs it with the model
it came from, a rerun does nothing, and an evaluation inside a job's folder is not taken for a job."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TINY_RUN, make_config
from omegaconf import OmegaConf

from translate.analysis.sweep import build_report
from translate.analysis.sweep.jobs import find_jobs
from translate.cli.evaluate import evaluate
from translate.cli.train import run
from translate.study.__main__ import main as study


JOB = "sinusoidal_none_words1-3_seed1"
AT_TEST = "sinusoidal_zero_dims_at_test_words1-3_seed1"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory, cache_dir) -> Path:
    root = tmp_path_factory.mktemp("sweep")
    cfg = make_config(*TINY_RUN, f"data.cache_dir={cache_dir}", "data.train_max_words=3", "report.edges=[3,5]",
                      "report.bootstrap_samples=50", "report.probes_per_bucket=0", "train.max_steps=12",
                      "train.valid_every=6", "decode.max_length_extra=7")
    run(cfg, root / JOB)
    return root


@pytest.mark.slow
def test_the_control_is_a_job_of_the_sweep_paired_with_its_model(sweep, capsys):
    assert study(["ablate-at-test", str(sweep), "ablation.from=32"]) == 0
    out = sweep / AT_TEST
    config = OmegaConf.load(out / "config.yaml")
    trained = OmegaConf.load(sweep / JOB / "config.yaml")
    assert config.ablation.name == "zero_dims_at_test" and config.ablation["from"] == 32
    assert trained.ablation.name == "none" and config.decode == trained.decode and config.report == trained.report
    hyps = (out / "test.hyp.txt").read_text().splitlines()
    assert len(hyps) == len((sweep / JOB / "test.hyp.txt").read_text().splitlines())

    written = (out / "metrics.json").stat().st_mtime_ns
    assert study(["ablate-at-test", str(sweep), "ablation.from=32"]) == 0  # a rerun: nothing to do
    assert "there already" in capsys.readouterr().out and (out / "metrics.json").stat().st_mtime_ns == written

    report = build_report(sweep, samples=50, hparams=False)
    whole = {r.ablation: r for r in report.rows if r.bucket == "all"}
    assert set(whole) == {"none", "zero_dims_at_test"}
    assert whole["zero_dims_at_test"].compared.bleu.delta == pytest.approx(
        whole["zero_dims_at_test"].bleu.value - whole["none"].bleu.value, abs=0.02)


@pytest.mark.slow
def test_an_evaluation_inside_a_job_folder_is_not_a_job(sweep):
    evaluate(make_config(f"checkpoint={sweep / JOB / 'best.pt'}", "report.bootstrap_samples=0", "report.images=[]",
                         config_name="evaluate"))
    nested = [p for p in (sweep / JOB).iterdir() if p.name.startswith("eval-")]
    assert nested and (nested[0] / "config.yaml").exists() and (nested[0] / "metrics.json").exists()
    assert {job.name for job in find_jobs(sweep)} <= {JOB, AT_TEST}


@pytest.mark.slow
def test_bad_input_is_named(sweep, tmp_path, capsys):
    assert study(["ablate-at-test", str(sweep), "--ablation", "zero_dimz"]) == 2
    assert "--ablation 'zero_dimz' is not a conf/ablation option; allowed: " in capsys.readouterr().err
    assert study(["ablate-at-test", str(sweep), "--jobs", "encoding=rope"]) == 1
    assert "no finished job" in capsys.readouterr().err
    copy = tmp_path / "copy" / JOB
    copy.mkdir(parents=True)
    tested = Path(json.loads((sweep / JOB / "metrics.json").read_text())["checkpoint"]).name  # last.pt by default
    for name in ("config.yaml", "metrics.json", "test.hyp.txt", tested):
        (copy / name).write_bytes((sweep / JOB / name).read_bytes())
    assert study(["ablate-at-test", str(tmp_path / "copy")]) == 1  # dims >= 400 of a 64-wide model
    error = capsys.readouterr().err
    assert f"{JOB}: error: " in error and "400" in error and "64" in error
    assert not (tmp_path / "copy" / AT_TEST / "metrics.json").exists()
    (copy / tested).unlink()
    assert study(["ablate-at-test", str(tmp_path / "copy")]) == 1  # trained elsewhere: no checkpoint here
    assert f"no checkpoint {tested}" in capsys.readouterr().err
