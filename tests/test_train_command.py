"""The training command as a newcomer meets it: an unknown option of a config group and a zero_dims `from` beyond a
narrower model's width are one `error:` line that says what to set; every error is printed once; a run that fails at
start-up leaves no run folder; `train.resume=auto` with a larger budget continues a finished run, and a rerun with
the same budget says there is nothing to train."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from conftest import CONF_DIR, TINY_RUN, make_config
from translate.cli.preflight import check_options
from translate.cli.train import run
from translate.assembly.settings import validate_config
from translate.config import ConfigError
from translate.training.checkpoint import load_checkpoint

REPO = Path(__file__).resolve().parents[1]


def train_command(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}  # this checkout's package from any folder
    return subprocess.run([sys.executable, "-m", "translate.train", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)


def said(result: subprocess.CompletedProcess) -> list[str]:
    """Every line of either stream that reports an error (the `error:` line, a logged [ERROR], a traceback)."""
    return [line for line in (result.stdout + result.stderr).splitlines()
            if "error" in line.lower() or "Traceback" in line]


# -- unknown options ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("override,message", [
    ("encoding=ropee", "encoding='ropee' is not allowed: did you mean rope or urpe or cope? expected one of "
                       "conf/encoding/: alibi, binary, cape,"),
    ("model=tinyy", "model='tinyy' is not allowed: did you mean tiny? expected one of conf/model/: base, base_cpu, "
                    "small, tiny"),
    ("ablation=zero_dim", "ablation='zero_dim' is not allowed: did you mean zero_dims?"),
    ("encoding=rope,alibii", "encoding='alibii' is not allowed: did you mean alibi?"),  # a sweep's list
    ("+sweep/pe=sinusoidl", "sweep/pe='sinusoidl' is not allowed: did you mean sinusoidal"),
    ("decode=zzz", "decode='zzz' is not allowed: expected one of conf/decode/: beam, greedy"),
    ("+sweep=[encodings,seedz]", "sweep='seedz' is not allowed: did you mean seeds"),  # a list of options
])
def test_an_unknown_option_of_a_group_names_the_closest_ones(override, message):
    with pytest.raises(ConfigError) as caught:
        check_options(CONF_DIR, [override])
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize("good", ["encoding=rope", "encoding=rope,alibi", "+sweep/pe=t5", "train.lr=0.1",
                                  "ablation=null", "~ablation", "data.path=/x",
                                  "+sweep=[encodings]", "+sweep=[claims_cpu,seeds]"])
def test_known_options_and_settings_pass(good):
    check_options(CONF_DIR, [good])


@pytest.mark.parametrize("args", [["encoding=ropee"], ["-m", "encoding=rope,ropee"]])
def test_the_command_answers_an_unknown_option_in_one_line_and_makes_no_folder(tmp_path, args):
    result = train_command(*args, f"hydra.run.dir={tmp_path}/run", f"hydra.sweep.dir={tmp_path}/sweep")
    assert result.returncode == 2
    assert said(result) == [result.stderr.strip()] and result.stderr.startswith(
        "error: encoding='ropee' is not allowed: did you mean rope or urpe or cope?")
    assert list(tmp_path.iterdir()) == []


# -- zero_dims on a narrower model ----------------------------------------------------------------------------------

@pytest.mark.parametrize("model,width,same_share", [("small", 256, 200), ("tiny", 64, 50)])
def test_zero_dims_on_a_narrower_model_says_what_to_set(model, width, same_share):
    with pytest.raises(ConfigError) as caught:
        validate_config(make_config(f"model={model}", "ablation=zero_dims"))
    assert (f"ablation.from=400 is not allowed: expected an integer in [0, {width}) (the PE table width of "
            f"Sinusoidal, d_model={width}); `from` counts dimensions, so set it for this width: "
            f"ablation.from={same_share} zeroes the same share as the notes' 400 of 512") in str(caught.value)
    validate_config(make_config(f"model={model}", "ablation=zero_dims", f"ablation.from={same_share}"))


# -- errors once, no folder left ------------------------------------------------------------------------------------

def test_an_error_at_start_up_is_printed_once_and_leaves_no_run_folder(tmp_path):
    run_dir = tmp_path / "runs" / "first"
    result = train_command("model=tiny", "ablation=zero_dims", f"hydra.run.dir={run_dir}")
    assert result.returncode == 2
    assert said(result) == [result.stderr.strip()] and result.stderr.startswith("error: ablation (translate.ablations")
    assert list(tmp_path.iterdir()) == []  # runs/ too: the command made it


def test_a_start_up_error_takes_back_the_dated_folder_and_keeps_what_was_there(tmp_path):
    """The default run folder, runs/<date>/<time>: the command made <date>/ and takes it back; runs/ and an earlier
    run in it stay."""
    earlier = tmp_path / "runs" / "earlier"
    earlier.mkdir(parents=True)
    (earlier / "metrics.json").write_text("{}")
    result = train_command(*TINY_RUN, "model.d_model=-1", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith("error: model.d_model=-1 is not allowed")
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
        "runs", "runs/earlier", "runs/earlier/metrics.json"]


def test_a_failing_run_keeps_a_folder_that_held_something_before(tmp_path):
    run_dir = tmp_path / "mine"
    run_dir.mkdir()
    (run_dir / "notes.txt").write_text("mine")
    result = train_command("model=tiny", "ablation=zero_dims", f"hydra.run.dir={run_dir}")
    assert result.returncode == 2 and (run_dir / "notes.txt").read_text() == "mine"
    assert "[ERROR] - ablation (translate.ablations" in (run_dir / "train.log").read_text()  # the log file keeps it


# -- continuing a finished run --------------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_finished_run_continues_with_a_larger_budget_and_a_same_budget_rerun_trains_nothing(
        tmp_path, tiny_config, cache_dir):
    straight = tmp_path / "straight"
    run(tiny_config("train.max_steps=15"), straight)
    finished = tmp_path / "finished"
    run(tiny_config("train.max_steps=10"), finished)
    args = (*TINY_RUN, f"data.cache_dir={cache_dir}", f"hydra.run.dir={finished}", "train.resume=auto")

    again = train_command(*args, "train.max_steps=10")
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stdout.strip() == (f"already finished: {finished / 'metrics.json'} (step 10 of train.max_steps=10); "
                                    f"nothing to train. Raise that budget to train on, or delete metrics.json to run "
                                    f"this job again")
    assert json.loads((finished / "metrics.json").read_text())["steps"] == 10

    longer = train_command(*args, "train.max_steps=15")
    assert longer.returncode == 0, longer.stderr[-3000:]
    assert "test BLEU" in longer.stdout and "continuing the finished run" in (finished / "train.log").read_text()
    assert json.loads((finished / "metrics.json").read_text())["steps"] == 15
    a, b = load_checkpoint(straight / "last.pt")["model"], load_checkpoint(finished / "last.pt")["model"]
    for name, tensor in a.items():  # 10 steps, then 5 more: the weights of 15 straight steps
        assert torch.equal(tensor, b[name]), name
