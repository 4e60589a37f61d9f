"""What each run folder of a page cost: its jobs' training time times the threads each used (core-hours on a
CPU), or GPU-hours, summed per folder, with the device. Training time is the runs' own `train_minutes`, which
counts every resumed stretch of a job (wall-clock, pauses included); the final evaluation and the test-time controls
are not in it."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from translate.analysis.sweep.jobs import Job


def folder_of(job: Job) -> str:
    """The run folder a job belongs to: its path under the page's runs, without the job's own folder."""
    parent = Path(job.name).parent
    return "." if str(parent) == "." else str(parent)


def on_gpu(device: str) -> bool:
    """A device as the runs record it ("NVIDIA H100 ..., bf16", "CPU, fp32") names a GPU."""
    return "nvidia" in device.lower() or "cuda" in device.lower()


def hours(job: Job) -> Optional[float]:
    """Core-hours (CPU: minutes × train.num_threads) or GPU-hours of a job's training; None for an evaluation."""
    minutes = job.metrics.train_minutes if job.metrics else None
    if not minutes or not job.metrics.steps:
        return None
    threads = 1 if on_gpu(job.metrics.device) else int(job.config.get("train.num_threads") or 1)
    return minutes * threads / 60


def device_of(job: Job) -> str:
    """"CPU, fp32" as the run recorded it; older runs did not: their config's setting is named instead."""
    return job.metrics.device or f"not recorded (train.device={job.config.get('train.device')})"


def compute_lines(jobs: list[Job], runs: Path) -> list[str]:
    """The table of a page's run folders: jobs trained, device, core-hours (or GPU-hours)."""
    folders: dict[str, list[Job]] = {}
    for job in jobs:
        if hours(job) is not None:
            folders.setdefault(folder_of(job), []).append(job)
    if not folders:
        return []
    lines = ["## Compute", "", "| run folder | jobs trained | device | hours of training |", "|---|--:|---|--:|"]
    for folder, members in sorted(folders.items()):
        devices = sorted({device_of(job) for job in members})
        unit = "GPU-hours" if any(on_gpu(d) for d in devices) else "core-hours"
        total = sum(hours(job) for job in members)
        lines.append(f"| `{runs / folder if folder != '.' else runs}` | {len(members)} | {'; '.join(devices)} | "
                     f"{total:,.1f} {unit} |")
    return lines + ["", "Training time only (`train_minutes` of each job, every resumed stretch counted) times the "
                    "threads it used; the final evaluation and the test-time controls add a few minutes a job. The "
                    "minutes are wall-clock: a job slowed by another beside it, or paused while the machine was timed "
                    "or tested, counts that time too, so read them as an upper bound of the core time used.", ""]
