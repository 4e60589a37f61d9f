"""Checkpoints hold tensors and plain data only and are read with torch.load(weights_only=True): a file that carries a
pickled callable is refused by every command that opens one (train's resume, evaluate, translate) with one `error:`
line, exit status 2, and nothing in it runs; a record it lacks is named. What this project writes, older run folders
included, still loads, and a run resumed from it continues exactly; a run keeps best.pt and last.pt only."""
from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from omegaconf import OmegaConf

from conftest import TINY_RUN, make_config
from test_reliability import make_trainer, scalars
from translate.assembly.trained import load_model
from translate.training.checkpoint import (RESUME_RECORDS, CheckpointError, load_checkpoint, newest_valid_checkpoint,
                                           save_checkpoint)
from translate.assembly.trainer import model_from_config

REPO = Path(__file__).resolve().parents[1]


class RunsACommand:
    """Unpickling this calls os.system: what a hostile checkpoint carries."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {shlex.quote(str(self.marker))}",)


class PlainObject:
    """A class of someone else's code: unpickling it imports and builds it."""


def hostile_checkpoint(folder: Path, payload) -> Path:
    path = folder / "hostile.pt"
    torch.save({"format": 1, "config": payload, "tokenizer": b"", "model": {}, "progress": {"step": 1}}, path)
    return path


def test_the_payload_runs_when_read_the_unsafe_way(tmp_path):
    """The refusal tests below mean something: read as before (weights_only=False), the file runs its command."""
    marker = tmp_path / "MARKER"
    path = hostile_checkpoint(tmp_path, RunsACommand(marker))
    torch.load(path, weights_only=False)
    assert marker.exists()


@pytest.mark.parametrize("payload,named", [
    (RunsACommand(Path("/nonexistent/MARKER")), "posix.system"),
    (PlainObject(), "test_checkpoint_safety.PlainObject"),
    ({"on_load": functools.partial(print, "hello")}, "functools.partial"),
])
def test_anything_but_tensors_and_plain_data_is_refused_naming_it(tmp_path, payload, named):
    path = hostile_checkpoint(tmp_path, payload)
    with pytest.raises(CheckpointError) as caught:
        load_checkpoint(path)
    message = str(caught.value)
    assert message.startswith(f"checkpoint {path} is refused: it holds the Python object {named}, which loading "
                              f"would run; nothing in it was run.")
    assert "\n" not in message


@pytest.fixture
def hostile(tmp_path) -> tuple[Path, Path]:
    marker = tmp_path / "MARKER"
    return hostile_checkpoint(tmp_path, RunsACommand(marker)), marker


@pytest.mark.parametrize("command", ["train", "evaluate", "translate"])
def test_every_command_refuses_a_checkpoint_that_carries_a_callable(hostile, tmp_path, cache_dir, command):
    path, marker = hostile
    run_dir = tmp_path / "run"
    args = {
        "train": ["-m", "translate.train", *TINY_RUN, f"data.cache_dir={cache_dir}", f"train.resume={path}",
                  f"hydra.run.dir={run_dir}"],
        "evaluate": ["-m", "translate.evaluate", f"checkpoint={path}", f"output_dir={tmp_path / 'scores'}"],
        "translate": ["-m", "translate.translate", "--checkpoint", str(path), "Bonjour."],
    }[command]
    result = subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr[-2000:]
    assert not marker.exists()
    said = [line for line in (result.stdout + result.stderr).splitlines() if "error" in line.lower()]
    assert said == [f"error: checkpoint {path} is refused: it holds the Python object posix.system, which loading "
                    f"would run; nothing in it was run. A translate checkpoint holds tensors and plain data only, so "
                    f"this file was not written by translate or was altered"], result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert not run_dir.exists() and not (tmp_path / "scores").exists()  # a refused run leaves no folder


@pytest.fixture(scope="module")
def model_state(tiny_data, tmp_path_factory) -> dict:
    """The records evaluating and translating read, of an untrained tiny model."""
    cfg = make_config(*TINY_RUN, f"data.cache_dir={tmp_path_factory.getbasetemp()}")
    tok = tiny_data.tokenizer
    model = model_from_config(cfg, len(tok), tok.pad_id)
    return {"config": OmegaConf.to_container(cfg, resolve=True), "tokenizer": tok.model_proto,
            "model": model.state_dict(), "progress": {"step": 3}}


@pytest.mark.parametrize("change,message", [
    (lambda s: s.pop("config"), "lacks the record 'config'; a translate checkpoint holds config, tokenizer, model"),
    (lambda s: s.pop("tokenizer"), "lacks the record 'tokenizer'"),
    (lambda s: s.update(tokenizer="spm.model"), "record 'tokenizer' is a str; expected a bytes"),
    (lambda s: s.update(progress={"epoch": 1}), "record 'progress' has no integer 'step'"),
    (lambda s: s["config"].pop("encoding"), "its config lacks the section(s) ['encoding']"),
    (lambda s: s.update(tokenizer=b"not a model"), "its record 'tokenizer' is not a SentencePiece model"),
    (lambda s: s["model"].pop("decoder_norm.weight"), "its weights do not fit the model its config describes"),
])
def test_a_checkpoint_lacking_a_record_is_refused_naming_it(model_state, tmp_path, change, message):
    state = {**model_state, "config": {**model_state["config"]}, "model": dict(model_state["model"])}
    change(state)
    path = tmp_path / "best.pt"
    save_checkpoint(path, state)
    with pytest.raises(CheckpointError) as caught:
        load_model(path)
    assert str(caught.value).startswith(f"checkpoint {path}") and message in str(caught.value)


def test_the_translate_command_names_a_missing_record_in_one_line(model_state, tmp_path, capsys):
    from translate.cli import translate as cli

    path = tmp_path / "best.pt"
    save_checkpoint(path, {k: v for k, v in model_state.items() if k != "config"})
    assert cli.main(["--checkpoint", str(path), "Bonjour."]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (f"error: checkpoint {path} lacks the record 'config'; a translate checkpoint holds "
                                 f"config, tokenizer, model, optimizer, scheduler, progress, rng\n")


def test_resuming_needs_every_record(model_state, tmp_path):
    path = tmp_path / "last.pt"
    save_checkpoint(path, model_state)  # enough to translate with, not to continue training
    assert load_model(path).step == 3
    with pytest.raises(CheckpointError, match="lacks the record 'optimizer'"):
        load_checkpoint(path, RESUME_RECORDS)


def test_an_older_run_folder_resumes_exactly_and_then_keeps_two_checkpoints(tiny_config, tiny_data, tmp_path):
    """A folder as the previous code left it: last.pt, last.prev.pt (the last.pt before it) and best.pt, each written
    by torch.save of the same plain records. Resumed by this code it continues bit for bit as an uninterrupted run,
    and its first save removes last.prev.pt."""
    common = ("train.log_every=1", "train.save_every=2")
    straight = make_trainer(tiny_config, tiny_data, tmp_path / "a", "train.max_steps=8", *common)
    straight.train()

    old = tmp_path / "b"
    make_trainer(tiny_config, tiny_data, old, "train.max_steps=2", *common).train()
    step_2 = old / "step2.pt"
    shutil.copy(old / "last.pt", step_2)
    middle = make_trainer(tiny_config, tiny_data, old, "train.max_steps=4", *common)
    middle.resume(*newest_valid_checkpoint(old))
    middle.train()
    step_2.rename(old / "last.prev.pt")
    assert sorted(p.name for p in old.glob("*.pt")) == ["best.pt", "last.prev.pt", "last.pt"]
    assert torch.load(old / "last.pt", weights_only=True)["progress"]["step"] == 4

    resumed = make_trainer(tiny_config, tiny_data, old, "train.max_steps=8", *common)
    resumed.resume(*newest_valid_checkpoint(old))
    assert resumed.progress.step == 4
    resumed.train()
    assert scalars(tmp_path / "a" / "tb", "train/loss") == scalars(old / "tb", "train/loss")
    for (name, a), b in zip(straight.model.state_dict().items(), resumed.model.state_dict().values()):
        assert torch.equal(a, b), name
    assert sorted(p.name for p in old.glob("*.pt")) == ["best.pt", "last.pt"]
    assert sorted(p.name for p in (tmp_path / "a").glob("*.pt")) == ["best.pt", "last.pt"]


def test_the_weights_digest_names_the_model_bit_for_bit_whatever_the_key_order():
    from translate.training.checkpoint import weights_digest

    weights = {"b": torch.arange(6, dtype=torch.float32).reshape(2, 3), "a": torch.ones(4, dtype=torch.bfloat16),
               "c": torch.tensor(1.5)}  # a learned scalar (0-dim), as fire's

    digest = weights_digest(weights)
    assert digest == weights_digest(dict(reversed(list(weights.items())))) and len(digest) == 64
    flipped = weights["b"].clone()
    flipped.view(torch.int32)[0, 0] ^= 1  # the lowest bit of one weight
    assert weights_digest({**weights, "b": flipped}) != digest
    assert weights_digest({**weights, "b": weights["b"].reshape(3, 2)}) != digest  # same bytes, another shape
    assert weights_digest({"d": weights["b"], "a": weights["a"], "c": weights["c"]}) != digest  # another name
    assert weights_digest({**weights, "c": torch.tensor(1.25)}) != digest


def test_a_checkpoint_moved_from_another_checkout_resumes_and_one_with_another_tokenizer_is_refused(
        tiny_config, tiny_data, tmp_path):
    """A model SentencePiece trained elsewhere records that place's temporary path: the same tokenizer all the same
    (a pilot's checkpoint seeds its comparison in another worktree). A changed piece score is another tokenizer."""
    from sentencepiece import sentencepiece_model_pb2

    make_trainer(tiny_config, tiny_data, tmp_path / "run", "train.max_steps=2").train()
    state = torch.load(tmp_path / "run" / "last.pt", weights_only=True)
    model = sentencepiece_model_pb2.ModelProto()
    model.ParseFromString(state["tokenizer"])
    model.trainer_spec.input.append("/other/checkout/data/cache/tmpxyz/train.txt")
    torch.save({**state, "tokenizer": model.SerializeToString()}, tmp_path / "run" / "last.pt")
    moved = make_trainer(tiny_config, tiny_data, tmp_path / "run", "train.max_steps=4")
    moved.resume(tmp_path / "run" / "last.pt")
    assert moved.progress.step == 2
    model.pieces[10].score += 0.5
    torch.save({**state, "tokenizer": model.SerializeToString()}, tmp_path / "run" / "last.pt")
    with pytest.raises(CheckpointError, match="another SentencePiece model"):
        make_trainer(tiny_config, tiny_data, tmp_path / "run", "train.max_steps=4").resume(tmp_path / "run" / "last.pt")
