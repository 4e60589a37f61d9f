"""A comparison's step budget from its pilots, and what the results page says about it.

The budget rule: the pilots of a comparison (seed 1 of each of its settings, conf/sweep/*_pilot.yaml) train until
valid BLEU, on their own group's lengths, has not improved for `train.early_stop_patience` validations; each records
the step of its best valid BLEU (`best_valid_step`). The comparison's budget is the largest of those steps: every job
trains to it and is tested there, so that no Δ compares models scored at different points of their curves.
translate.study pilots starts the runs from it; the results page shows it beside the jobs it set. A pilot that
reached its step cap before the patience ran out has no plateau yet, and sets no budget: it trains on first.

Where the pilots overfit before their BLEU plateau, the plan tries a larger dropout in another folder of pilots; the
dropout kept is the one whose pilots have the higher best valid BLEU, compared setting by setting (`kept_dropout`).
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
    after_best: int = 0        # validations after the best one: the patience, once the plateau is reached

    @property
    def dropout(self) -> object:
        """Its model.dropout; None where the config has none."""
        return dict(self.setting).get("model.dropout")

    @property
    def plateaued(self) -> bool:
        """Stopped by its patience (that many validations after its best, none better), not by its step cap."""
        return self.patience is not None and self.after_best >= self.patience


def comparable(job: Job) -> tuple:
    """A job's setting without what a pilot sets differently (PILOT_KEYS); like Job.setting, without the seed."""
    return tuple((k, v) for k, v in job.setting if k not in PILOT_KEYS)


def label(job: Job) -> str:
    s = job.settings
    pe = s.encoding + (f" + {s.ablation}" if s.ablation != "none" else "")
    return f"{pe}, train words {s.train_words}"


def read_pilots(pilot_dir: Path) -> list[Pilot]:
    """Every pilot under `pilot_dir`; SweepError when one is unfinished or recorded no best-valid step. A test-time
    control scored at a pilot's end (an evaluation-only job beside it) is the pilot's model again, not a pilot."""
    jobs = find_jobs(pilot_dir)
    unfinished = [job.name for job in jobs if not job.finished]
    if unfinished:
        raise SweepError(f"pilots still running or interrupted in {pilot_dir}: {', '.join(unfinished)}; finish them "
                         f"first (rerun the pilot sweep: it resumes)")
    pilots = []
    for job in (job for job in jobs if job.trained):
        step = job.metrics.best_valid_step
        if not step:
            raise SweepError(f"{job.path / 'metrics.json'} has no best_valid_step: was it trained by a pilot sweep?")
        bleu = next((point[1] for point in job.metrics.valid_curve if int(point[0]) == int(step)), None)
        patience = job.config.get("train.early_stop_patience")
        after = sum(1 for point in job.metrics.valid_curve if int(point[0]) > int(step))
        pilots.append(Pilot(job.name, label(job), int(step), bleu, job.metrics.steps,
                            None if patience is None else int(patience), comparable(job), after))
    return pilots


def require_plateaus(pilots: list[Pilot], pilot_dir: Path) -> None:
    """SweepError naming every pilot stopped by its step cap before its plateau: its best step is not a plateau."""
    capped = [p for p in pilots if not p.plateaued]
    if capped:
        raise SweepError("; ".join(
            f"{pilot_dir / p.name} stopped at step {number(p.steps)} before its plateau: best valid BLEU "
            f"{number(p.best_bleu)} at step {number(p.best_step)}, then {p.after_best} validation(s) without a better "
            f"one, of the {p.patience} train.early_stop_patience asks" for p in capped)
            + " (a pilot stops at its train.max_steps cap; rerun its sweep with a larger train.max_steps: it resumes "
              "from last.pt)")


def budget(pilots: list[Pilot]) -> int:
    """The comparison's step budget: the largest plateau step of its pilots."""
    return max(p.best_step for p in pilots)


def plateau_steps(pilot_dir: Path) -> dict[str, int]:
    """{pilot folder name: its best-valid step}; SweepError when a pilot has not reached its plateau."""
    pilots = read_pilots(pilot_dir)
    require_plateaus(pilots, pilot_dir)
    return {p.name: p.best_step for p in pilots}


@dataclass(frozen=True)
class DropoutChoice:
    """Which dropout a comparison keeps, from pilots of the same settings at different dropouts."""

    dropout: float
    pilot_dir: Path            # the pilots trained with it: the comparison's budget comes from them
    compared: list[tuple[str, dict[float, Pilot]]]   # (setting label, {dropout: its pilot}), every setting compared

    def reason(self) -> str:
        """"sinusoidal, train words 11-17: dropout 0.1 33.77 at step 3,800, dropout 0.3 35.02 at step 4,600"."""
        return "; ".join(f"{label}: " + ", ".join(f"dropout {d:g} {number(p.best_bleu)} at step {number(p.best_step)}"
                                                  for d, p in sorted(by_dropout.items()))
                         for label, by_dropout in self.compared)


def without_dropout(pilot: Pilot) -> tuple:
    """A pilot's setting but for model.dropout: what pilots of one setting at two dropouts share."""
    return tuple((k, v) for k, v in pilot.setting if k != "model.dropout")


def dropout_choices(pilots_by_folder: dict[Path, list[Pilot]]) -> dict[Path, DropoutChoice]:
    """{folder: the dropout choice it took part in} for every folder of pilots (read_pilots, by folder) that pilots a
    setting of another folder at another dropout (choose_dropout over each such group, in the order given); folders
    alone are left out."""
    shared: dict[tuple, list[tuple[Path, object]]] = {}
    for folder, pilots in pilots_by_folder.items():
        for pilot in pilots:
            shared.setdefault(without_dropout(pilot), []).append((folder, pilot.dropout))
    groups: list[list[Path]] = []
    for piloted in shared.values():
        if len({dropout for _, dropout in piloted}) < 2:
            continue
        folders = {folder for folder, _ in piloted}
        joined = [g for g in groups if folders & set(g)]
        merged = set().union(folders, *joined)
        groups = [g for g in groups if g not in joined] + [[f for f in pilots_by_folder if f in merged]]
    return {folder: choice for group in groups
            for choice in [choose_dropout({f: pilots_by_folder[f] for f in group})] for folder in group}


@dataclass(frozen=True)
class DropoutPilots:
    """One folder of pilots trained at one dropout, by setting (without model.dropout)."""

    folder: Path
    dropout: float
    by_setting: dict[tuple, Pilot]

    def mean_best_bleu(self, settings: set[tuple]) -> float:
        return sum(self.by_setting[s].best_bleu or 0.0 for s in settings) / len(settings)


def dropout_pilots(folder: Path, pilots: list[Pilot]) -> DropoutPilots:
    """SweepError when the folder's pilots were trained at more than one dropout."""
    dropouts = {p.dropout for p in pilots}
    if len(dropouts) != 1 or None in dropouts:
        raise SweepError(f"{folder}: its pilots have model.dropout {sorted(map(str, dropouts))}; each folder of "
                         f"pilots compared for the dropout holds one dropout")
    return DropoutPilots(folder, float(dropouts.pop()), {without_dropout(p): p for p in pilots})


def kept_dropout(pilot_dirs: list[Path]) -> DropoutChoice:
    """choose_dropout over the pilots of these folders, read."""
    return choose_dropout({Path(folder): read_pilots(Path(folder)) for folder in pilot_dirs})


def choose_dropout(pilots_by_folder: dict[Path, list[Pilot]]) -> DropoutChoice:
    """The plan's rule: of pilot folders that differ in model.dropout, keep the dropout whose pilots have the higher
    mean best valid BLEU over the settings piloted at every dropout (one setting, the sinusoidal one, where the
    plan pilots the others at the kept dropout only). Every compared pilot must have reached its plateau; on a tie
    the first folder's dropout (the plan's default) is kept. SweepError when the folders share no setting or one
    folder holds two dropouts."""
    folders = [dropout_pilots(folder, pilots) for folder, pilots in pilots_by_folder.items()]
    names = ", ".join(map(str, pilots_by_folder))
    if len({f.dropout for f in folders}) != len(folders):
        raise SweepError(f"{names}: two folders hold the same dropout; give one folder of pilots per dropout")
    shared = set.intersection(*(set(f.by_setting) for f in folders))
    if not shared:
        raise SweepError(f"{names}: no setting was piloted at every dropout (the folders must differ in "
                         f"model.dropout only)")
    for f in folders:
        require_plateaus([f.by_setting[s] for s in shared], f.folder)
    first = folders[0].by_setting
    compared = [(first[s].label, {f.dropout: f.by_setting[s] for f in folders})
                for s in sorted(shared, key=lambda s: first[s].label)]
    kept = max(folders, key=lambda f: f.mean_best_bleu(shared))   # max keeps the first of equals: a tie keeps folder 1
    return DropoutChoice(kept.dropout, kept.folder, compared)


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
             "beside each Δ says whether a model was still rising into its budget. Where a comparison's pilots ran at "
             "two dropouts (the plan's rule for pilots that overfit before their BLEU plateau), the dropout whose "
             "pilots scored the higher best valid BLEU was kept and set the budget.", ""]
    pilots_by_folder = {Path(folder): read_pilots(Path(folder)) for folder in pilot_dirs}
    choices = dropout_choices(pilots_by_folder)
    for folder in pilot_dirs:
        pilots = pilots_by_folder[Path(folder)]
        steps = budget(pilots)
        settings = {p.setting for p in pilots}
        matched = [j for j in jobs if j.trained and comparable(j) in settings]
        tested = sorted({j.tested_step for j in matched if j.tested_step is not None})
        patience = sorted({p.patience for p in pilots if p.patience is not None})
        stop = f"{' or '.join(str(n) for n in patience)} validations without a better valid BLEU" if patience else \
            "the step cap"
        capped = [p for p in pilots if not p.plateaued]
        if patience and capped:
            stop += (f", except {', '.join(p.label for p in capped)}, stopped by the step cap before its plateau: "
                     f"its best step is no plateau")
        if tested == [steps]:
            outcome = f"the {len(matched)} jobs of these settings (every seed) were all tested at step {number(steps)}"
        elif matched:
            outcome = (f"the {len(matched)} jobs of these settings were tested at step(s) "
                       f"{', '.join(number(t) for t in tested)}, not at the budget: their Δs are at another point of "
                       f"the curve than the rule gives")
        else:
            outcome = "no job of these settings is on this page"
        several = len(pilots) != 1
        head = (f"- `{folder}` ({len(pilots)} job{'s' * several}, the pilot{'s' * several}, "
                f"{'each ' * several}stopped after {stop}). Best valid BLEU: "
                + "; ".join(pilot_text(p) for p in pilots))
        choice = choices.get(Path(folder))
        if choice is None:
            lines.append(f"{head}. Budget {number(steps)} steps: {outcome}.")
        elif choice.pilot_dir == Path(folder):
            lines.append(f"{head}. Dropout {choice.dropout:g} kept, its pilots' best valid BLEU the higher "
                         f"({choice.reason()}). Budget {number(steps)} steps: {outcome}.")
        else:
            lines.append(f"{head}. Dropout not kept (dropout {choice.dropout:g} scored higher: {choice.reason()}): "
                         f"no budget.")
    return lines + [""]
