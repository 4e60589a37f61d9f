"""Training processes killed with SIGKILL at random moments (inside checkpoint writes too), or stopped with
SIGINT / SIGTERM, resume without losing anything; a resumed run's losses equal an uninterrupted run's."""
from __future__ import annotations

import json
import os
import random
import shlex
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import torch

from test_reliability import scalars
from translate.data.cleaning import DropCounts, clean_pairs
from translate.data.corpora import Tatoeba
from translate.training.checkpoint import load_checkpoint, newest_valid_checkpoint
from translate.io import WRITE_PAUSE_ENV

REPO = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("TRANSLATE_DATA_DIR") or REPO.parent / "shared" / "data")  # as the code finds them
SHARED_ZIP = CORPORA / "tatoeba" / "fra-eng.zip"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def small_zip(tmp_path_factory) -> Path:
    """Every 40th real Tatoeba pair (about 3,500): start-up reads it in a fraction of the full corpus's time."""
    pairs = clean_pairs(Tatoeba.read_lines(SHARED_ZIP, DropCounts()), DropCounts())[::40]
    path = tmp_path_factory.mktemp("corpus") / "fra-eng.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("fra.txt", "".join(f"{p.en}\t{p.fr}\n" for p in pairs))
    return path


def train_args(small_zip: Path, cache_dir: Path, run_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "translate.train", "model=tiny", f"data.path={small_zip}",
            "data.corpus.valid_size=40", "data.corpus.test_size=40", "data.valid_limit=20", "data.test_limit=8",
            "data.tokenizer.vocab_size=500", f"data.cache_dir={cache_dir}", "train.max_tokens=500",
            "train.warmup_steps=10", "train.valid_every=1000", "train.valid_bleu_limit=4", "train.max_minutes=null",
            "train.log_every=1", "train.num_threads=1", "report.images=[]", "report.bootstrap_samples=0",
            f"hydra.run.dir={run_dir}", *extra]


def start(args: list[str], **env) -> subprocess.Popen:
    return subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **env})


def finish(args: list[str], **env) -> subprocess.CompletedProcess:
    result = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=300, env={**os.environ, **env})
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def saved_step(run_dir: Path) -> int:
    found = newest_valid_checkpoint(run_dir)  # raises if a checkpoint exists but none is usable
    return found[1]["progress"]["step"] if found else 0


def wait_for(condition, process: subprocess.Popen, timeout: float = 120) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_kill_9_then_resume_gives_the_losses_of_an_uninterrupted_run(small_zip, cache_dir, tmp_path):
    common = ("train.max_steps=40", "train.save_every=5")
    finish(train_args(small_zip, cache_dir, tmp_path / "straight", *common))

    run_dir = tmp_path / "killed"
    process = start(train_args(small_zip, cache_dir, run_dir, *common))
    last, seen = run_dir / "last.pt", {"mtime": None}

    def twenty_steps_saved() -> bool:
        if not last.exists() or last.stat().st_mtime == seen["mtime"]:
            return False
        seen["mtime"] = last.stat().st_mtime
        return load_checkpoint(last)["progress"]["step"] >= 20
    assert wait_for(twenty_steps_saved, process), "the run never saved step 20"
    process.kill()  # SIGKILL: no handler runs, nothing is flushed
    process.wait()
    killed_at = saved_step(run_dir)
    assert 20 <= killed_at < 40
    finish(train_args(small_zip, cache_dir, run_dir, *common, "train.resume=auto"))

    straight, resumed = scalars(tmp_path / "straight" / "tb", "train/loss"), scalars(run_dir / "tb", "train/loss")
    assert sorted(straight) == list(range(1, 41)) and resumed == straight
    a, b = load_checkpoint(tmp_path / "straight" / "last.pt"), load_checkpoint(last)
    assert a["progress"]["step"] == b["progress"]["step"] == 40
    assert a["progress"]["epoch"] == b["progress"]["epoch"]
    assert a["progress"]["batch_in_epoch"] == b["progress"]["batch_in_epoch"]
    for name, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][name]), name
    assert json.loads((run_dir / "metrics.json").read_text())["steps"] == 40


def test_ten_random_kills_lose_no_saved_progress(small_zip, cache_dir, tmp_path):
    """Kills at random moments; every third one waits for a checkpoint write to be half done, then kills."""
    run_dir, rng = tmp_path / "run", random.Random(7)
    args = train_args(small_zip, cache_dir, run_dir, "train.max_steps=30", "train.save_every=3", "train.resume=auto")
    pause = {WRITE_PAUSE_ENV: "0.3"}  # each atomic write sleeps half-way, so a kill can land inside it
    previous, inside_write = 0, 0
    for kill in range(10):
        process = start(args, **pause)
        if kill % 3 == 1:
            landed = wait_for(lambda: any(run_dir.glob(".last.pt.*.tmp")), process)
            inside_write += landed
        else:
            wait_for(lambda: False, process, timeout=rng.uniform(0.5, 8.0))
        process.kill()
        process.wait()
        if kill % 3 == 1 and landed:
            assert list(run_dir.glob(".last.pt.*.tmp")), "the kill did not land inside the write"
        step = saved_step(run_dir)
        assert step >= previous, f"kill {kill}: saved progress went back from {previous} to {step}"
        previous = step
    assert inside_write == 3
    finish(args)
    assert load_checkpoint(run_dir / "last.pt")["progress"]["step"] == 30
    assert json.loads((run_dir / "metrics.json").read_text())["steps"] == 30
    assert not list(run_dir.glob(".*.tmp"))


def test_ctrl_c_saves_and_prints_the_command_that_resumes(small_zip, cache_dir, tmp_path):
    """SIGINT here; SIGTERM takes the same path (tested in-process in test_reliability.py)."""
    sig = signal.SIGINT
    run_dir = tmp_path / "run"
    process = start(train_args(small_zip, cache_dir, run_dir, "train.max_steps=300", "train.save_every=1000"))
    log = run_dir / "train.log"  # the trainer logs its size once the signal handlers are in place
    assert wait_for(lambda: log.exists() and "parameters; target padding" in log.read_text(), process)
    time.sleep(0.5)
    process.send_signal(sig)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 128 + sig, stderr[-3000:]
    assert "Traceback" not in stderr
    step = load_checkpoint(run_dir / "last.pt")["progress"]["step"]
    assert 0 < step < 300
    assert f"interrupted: training stopped at step {step}; checkpoint saved to {run_dir / 'last.pt'}." in stderr
    command = stderr.split("Resume with:\n  ", 1)[1].strip()
    assert command.endswith(f"hydra.run.dir={run_dir} train.resume=auto")
    assert sorted(scalars(run_dir / "tb", "train/loss")) == list(range(1, step + 1))  # flushed before exiting
    argv = shlex.split(command)
    assert argv[:3] == ["python", "-m", "translate.train"]
    finish([sys.executable, *argv[1:]])
    assert json.loads((run_dir / "metrics.json").read_text())["steps"] == 300
