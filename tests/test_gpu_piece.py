"""scripts/gpu_piece.sh, run here on the CPU as it runs on a lent GPU machine: one piece of a sweep trained, its
finished jobs packed into one archive under $OUT (the device brings back at most 8 files, 2 folders down), and a
wall-clock guard that still writes the archive when a job outlasts it."""
from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from conftest import TINY_RUN
from test_sweep_end_to_end import FAST as SWEEP_FAST

ROOT = Path(__file__).resolve().parents[1]
FAST = (*SWEEP_FAST, "hydra.launcher.n_jobs=1")  # one job at a time: the guard test stops the one it trains


def gpu_piece(out: Path, sweep_dir: Path, piece: str, *overrides: str, minutes: str = "8", at_test: str = ""):
    env = dict(os.environ, OUT=str(out), PYTHON=sys.executable, SWEEP_DIR=str(sweep_dir), PIECE_MINUTES=minutes,
               GPU_BUNDLE=str(out / "no-bundle-here"), AT_TEST=at_test)
    return subprocess.run(["bash", "scripts/gpu_piece.sh", "encodings", piece, "encoding=sinusoidal,none",
                           *TINY_RUN, *FAST, *overrides], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)


def members(archive: Path) -> list[str]:
    with tarfile.open(archive) as tar:
        return [m.name.removeprefix("./") for m in tar.getmembers() if m.isfile()]


@pytest.mark.slow
def test_a_piece_comes_back_as_one_archive_and_the_guard_still_packs_what_finished(tmp_path, cache_dir):
    out, sweep_dir = tmp_path / "out", tmp_path / "sweep"
    out.mkdir()
    first = gpu_piece(out, sweep_dir, "2/2", "train.max_steps=4", f"data.cache_dir={cache_dir}")
    assert first.returncode == 0, first.stderr[-3000:]
    assert [p.name for p in out.iterdir()] == ["encodings.2of2.tgz"]  # one file, whatever the jobs hold
    files = members(out / "encodings.2of2.tgz")
    assert "none_none_seed1/metrics.json" in files and "none_none_seed1/test.hyp.txt" in files
    assert not [f for f in files if f.startswith("sinusoidal")]  # job 1 is not in piece 2/2
    assert not [f for f in files if f.endswith((".pt", ".tmp"))]  # never checkpoints

    # piece 1/2 with a budget it cannot meet in the guard's 45 seconds: stopped, yet the archive is written with
    # every job that finished in the sweep folder (the one of piece 2/2), and the status says it was stopped
    stopped = gpu_piece(out, sweep_dir, "1/2", "train.max_steps=100000", f"data.cache_dir={cache_dir}",
                        minutes="0.75")  # time to start up and train a few steps on a busy machine
    assert stopped.returncode == 124, stopped.stderr[-3000:]
    assert "stopped after 0.75 minutes" in stopped.stderr
    assert "left out (unfinished, no metrics.json)" in stopped.stdout + stopped.stderr
    files = members(out / "encodings.1of2.tgz")
    assert "none_none_seed1/metrics.json" in files
    assert not [f for f in files if f.startswith("sinusoidal")]
    assert (sweep_dir / "sinusoidal_none_seed1" / "last.pt").exists()  # SIGTERM saved it: a later call resumes


@pytest.mark.slow
def test_at_test_packs_the_test_time_control_of_the_pieces_sinusoidal_job(tmp_path, cache_dir):
    """AT_TEST: the sinusoidal job is evaluated again with its PE dims >= 32 zeroed, and again with them set to their
    mean, on the machine that holds its checkpoint; each evaluation comes back in the archive as a job of its own."""
    out = tmp_path / "out"
    out.mkdir()
    done = gpu_piece(out, tmp_path / "sweep", "1/2", "train.max_steps=4", f"data.cache_dir={cache_dir}",
                     at_test="zero_dims ablation.from=32;zero_dims ablation.from=32 ablation.name=zero_dims_mean "
                             "ablation.fill=mean")
    assert done.returncode == 0, done.stderr[-3000:]
    files = members(out / "encodings.1of2.tgz")
    assert {"sinusoidal_none_seed1/metrics.json", "sinusoidal_zero_dims_at_test_seed1/metrics.json",
            "sinusoidal_zero_dims_at_test_seed1/config.yaml", "sinusoidal_zero_dims_at_test_seed1/test.hyp.txt",
            "sinusoidal_zero_dims_mean_at_test_seed1/metrics.json"} <= set(files)  # two controls, split on ";"
    assert not [f for f in files if f.endswith((".pt", ".tmp"))]


def test_it_says_how_to_call_it_and_needs_out(tmp_path):
    usage = subprocess.run(["bash", "scripts/gpu_piece.sh", "encodings"], cwd=ROOT, capture_output=True, text=True)
    assert usage.returncode == 2 and "usage: bash scripts/gpu_piece.sh SWEEP PIECE" in usage.stderr
    env = {k: v for k, v in os.environ.items() if k != "OUT"}
    no_out = subprocess.run(["bash", "scripts/gpu_piece.sh", "encodings", "1/2"], cwd=ROOT, env=env,
                            capture_output=True, text=True)
    assert no_out.returncode != 0 and "OUT is not set" in no_out.stderr
