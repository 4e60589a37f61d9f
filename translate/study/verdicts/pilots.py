"""A comparison's step budget from its pilots, and what the results page says about it.

The budget rule: the pilots of a comparison (seed 1 of each of its settings, conf/sweep/*_pilot.yaml) train until
valid BLEU, on their own group's lengths, has not improved for `train.early_stop_patience` validations; each records
the step of its best valid BLEU (`best_valid_step`). The comparison's budget is the largest of those steps: every job
trains to it and is tested there, so that no Δ compares models scored at different points of their curves.
translate.study pilots starts the runs from it; the results page shows it beside the jobs it set.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from translate.analysis.sweep.jobs import Job, SweepError, find_jobs
from translate.analysis.sweep.cells import number

# What a pilot sets differently from the comparison's job of its setting and seed: where it stops and which
# checkpoint it tests. Everything else is the same, which is how a pilot finds its comparison's jobs.
PILOT_KEYS = ("train.max_steps", "train.early_stop_patience", "train.test_checkpoint")


@dataclass(frozen=True)
class Pilot:
    """One pilot: where its valid BLEU peaked and how far it trained looking for a better one."""

    name: str                  # its folder, e.g. sinusoidal_none_words1-9_seed1
    label: str                 # "sinusoidal, train words 1-9"
    best_step: int
    best_bleu: Optional[float]
    steps: Optional[int]       # trained, until the patience ran out (or the cap)
    patience: Optional[int]
    setting: tuple             # the job's setting without PILOT_KEYS: what its comparison's jobs have, every seed


def comparable(job: Job) -> tuple:
    """A job's setting without what a pilot sets differently (PILOT_KEYS); like Job.setting, without the seed."""
    return tuple((k, v) for k, v in job.setting if k not in PILOT_KEYS)


def label(job: Job) -> str:
    s = job.settings
    pe = s.encoding + (f" + {s.ablation}" if s.ablation != "none" else "")
    return f"{pe}, train words {s.train_words}"


def read_pilots(pilot_dir: Path) -> list[Pilot]:
    """Every pilot under `pilot_dir`; SweepError when one is unfinished or recorded no best-valid step."""
    jobs = find_jobs(pilot_dir)
    unfinished = [job.name for job in jobs if not job.finished]
    if unfinished:
        raise SweepError(f"pilots still running or interrupted in {pilot_dir}: {', '.join(unfinished)}; finish them "
                         f"first (rerun the pilot sweep: it resumes)")
    pilots = []
    for job in jobs:
        step = job.metrics.best_valid_step
        if not step:
            raise SweepError(f"{job.path / 'metrics.json'} has no best_valid_step: was it trained by a pilot sweep?")
        bleu = next((point[1] for point in job.metrics.valid_curve if int(point[0]) == int(step)), None)
        patience = job.config.get("train.early_stop_patience")
        pilots.append(Pilot(job.name, label(job), int(step), bleu, job.metrics.steps,
                            None if patience is None else int(patience), comparable(job)))
    return pilots


def budget(pilots: list[Pilot]) -> int:
    """The comparison's step budget: the largest plateau step of its pilots."""
    return max(p.best_step for p in pilots)


def plateau_steps(pilot_dir: Path) -> dict[str, int]:
    """{pilot folder name: its best-valid step}."""
    return {p.name: p.best_step for p in read_pilots(pilot_dir)}


def pilot_text(p: Pilot) -> str:
    """"sinusoidal, train words 1-9: 43.47 at step 3,400 (trained to 4,000)": its best valid BLEU."""
    return f"{p.label}: {number(p.best_bleu)} at step {number(p.best_step)} (trained to {number(p.steps)})"


def budget_lines(pilot_dirs: list[Path], jobs: list[Job]) -> list[str]:
    """The page's account of the budgets: per pilot folder, its pilots' plateaus, the budget they set, and at which
    steps the matching jobs (same setting but for PILOT_KEYS, any seed) were tested. Jobs tested elsewhere than the
    budget are named: their Δs are at another point of the curve than the rule gives."""
    lines = ["The budget rule: the pilots of each comparison (seed 1 of each of its settings) trained until valid "
             "BLEU, on their own group's lengths, had not improved for a number of validations in a row; every job "
             "of the comparison then trained to the largest of the pilots' best-valid steps and was tested there. "
             "The pilots' valid BLEU after their best step shows what more training gave: nothing better. The slope "
             "beside each Δ says whether a model was still rising into its budget.", ""]
    for folder in pilot_dirs:
        pilots = read_pilots(Path(folder))
        steps = budget(pilots)
        settings = {p.setting for p in pilots}
        matched = [j for j in jobs if j.trained and comparable(j) in settings]
        tested = sorted({j.tested_step for j in matched if j.tested_step is not None})
        patience = sorted({p.patience for p in pilots if p.patience is not None})
        stop = f"{' or '.join(str(n) for n in patience)} validations without a better valid BLEU" if patience else \
            "the step cap"
        if tested == [steps]:
            outcome = f"the {len(matched)} jobs of these settings (every seed) were all tested at step {number(steps)}"
        elif matched:
            outcome = (f"the {len(matched)} jobs of these settings were tested at step(s) "
                       f"{', '.join(number(t) for t in tested)}, not at the budget: their Δs are at another point of "
                       f"the curve than the rule gives")
        else:
            outcome = "no job of these settings is on this page"
        lines.append(f"- `{folder}` ({len(pilots)} jobs, the pilots, each stopped after {stop}). Best valid BLEU: "
                     + "; ".join(pilot_text(p) for p in pilots)
                     + f". Budget {number(steps)} steps: {outcome}.")
    return lines + [""]
