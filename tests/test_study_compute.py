"""The pages' compute table: per run folder, the jobs trained, their device and training hours times threads."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from translate.study.pages.compute import compute_lines


def job(name: str, minutes, threads: int = 1, device: str = "CPU, fp32", steps=1000) -> SimpleNamespace:
    return SimpleNamespace(name=name, config={"train.num_threads": threads, "train.device": "auto"},
                           metrics=SimpleNamespace(train_minutes=minutes, steps=steps, device=device))


def test_each_run_folder_sums_its_jobs_hours_times_threads():
    jobs = [job("claim_a/sin_seed1", 120), job("claim_a/sin_seed2", 60, threads=2),
            job("claim_a/sin_zero_dims_at_test_seed1", None, steps=None),   # an evaluation: no training
            job("gpu/sin_seed1", 30, threads=8, device="NVIDIA H100 80GB HBM3, bf16"),
            job("old/sin_seed1", 90, device="")]
    lines = compute_lines(jobs, Path("runs"))
    assert "| `runs/claim_a` | 2 | CPU, fp32 | 4.0 core-hours |" in lines      # 2 h + 1 h × 2 threads
    assert "| `runs/gpu` | 1 | NVIDIA H100 80GB HBM3, bf16 | 0.5 GPU-hours |" in lines
    assert "| `runs/old` | 1 | not recorded (train.device=auto) | 1.5 core-hours |" in lines
    assert compute_lines([job("a/b", None, steps=None)], Path("runs")) == []
