"""How many seeds each comparison planned: the seed list of the sweep that launched its jobs (conf/sweep/NAME.yaml,
`hydra.sweeper.params.seed`, following the sweep files it extends), fixed before the runs, e.g. by a power
calculation. A verdict read with fewer paired seeds than planned is an interim look: stopping a sequential design at
the first look that passes inflates its error rate, so the claims page shows such a comparison as pending
(claims.pending). Read from each job's `.hydra/overrides.yaml` (`+sweep=[NAME]`) and the committed sweep files; a
job outside its sweep's plan (an extra setting or seed added by hand, e.g. a one-seed positive control) has none.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Optional

import yaml

from translate.analysis.sweep.errors import SweepError
from translate.config.paths import CONF_DIR

SWEEP_OPTION = "+sweep"


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep file plans: its seed count and the values of every other swept key."""

    seeds: Optional[int] = None
    options: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def covers(self, overrides: dict[str, str]) -> bool:
        """Whether a job launched with `overrides` is one of the planned jobs (each swept key at a planned value)."""
        return all(overrides.get(key, values[0]) in values for key, values in self.options.items())


def swept_values(value: object) -> Optional[tuple[str, ...]]:
    """"1,2,3" or "range(1,4)" as its values; None for Hydra's other sweep syntax (glob(*), choice(...)), which the
    report does not expand."""
    text = str(value).strip()
    found = re.fullmatch(r"range\((\d+),\s*(\d+)\)", text)
    if found:
        return tuple(str(i) for i in range(int(found[1]), int(found[2])))
    return None if "(" in text else tuple(v.strip() for v in text.split(","))


@lru_cache(maxsize=None)   # read once per report, not once per job
def sweep_plan(name: str, conf_dir: str = CONF_DIR) -> SweepPlan:
    """conf/sweep/NAME.yaml's plan, over the sweep files it extends (its own values win, as `_self_` last does)."""
    path = Path(conf_dir) / "sweep" / f"{name}.yaml"
    if not path.is_file():
        return SweepPlan()
    tree = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    seeds, options = None, {}
    for parent in tree.get("defaults") or []:
        if isinstance(parent, str) and parent != "_self_":
            inherited = sweep_plan(parent, conf_dir)
            seeds, options = inherited.seeds or seeds, options | inherited.options
    params = ((tree.get("hydra") or {}).get("sweeper") or {}).get("params") or {}
    for key, value in params.items():
        values = swept_values(value)
        if key == "seed" and values is None:
            raise SweepError(f"{path}: hydra.sweeper.params.seed={value!r} is not understood by the report, which "
                             f"reads the planned seed count from it; allowed: a comma-separated list or range(a,b)")
        if key == "seed":
            seeds = len(values)
        elif values is None:
            options.pop(key, None)   # any value is planned
        else:
            options[key] = values
    return SweepPlan(seeds, options)


def job_overrides(folder: Path) -> Optional[dict[str, str]]:
    """{key: value} of the command line that launched the job (.hydra/overrides.yaml), None without one."""
    path = folder / ".hydra" / "overrides.yaml"
    if not path.is_file():
        return None
    lines = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    return dict(line.split("=", 1) for line in lines if isinstance(line, str) and "=" in line)


def launched_by(sweeps: str, conf_dir: str = CONF_DIR) -> SweepPlan:
    """The plan of a job's `+sweep` value ("[claim_a_cpu]", "[encodings,seeds]"): its sweeps' plans in order, the
    last that names seeds giving the count, later options over earlier ones (as Hydra composes them)."""
    seeds, options = None, {}
    for name in (n.strip() for n in sweeps.strip("[]").split(",") if n.strip()):
        plan = sweep_plan(name, conf_dir)
        seeds, options = plan.seeds or seeds, options | plan.options
    return SweepPlan(seeds, options)


def planned_seeds(folder: Path, conf_dir: str = CONF_DIR) -> Optional[int]:
    """The seed count planned for the job in `folder`: its sweeps' (the last that names seeds), when the job is one
    of their planned jobs; None for a job launched without a sweep or outside the plan."""
    overrides = job_overrides(folder)
    if overrides is None or SWEEP_OPTION not in overrides:
        return None
    plan = launched_by(overrides[SWEEP_OPTION], conf_dir)
    return plan.seeds if plan.covers(overrides) else None


def planned_but_missing(folders: list[Path], key: str, conf_dir: str = CONF_DIR) -> list[str]:
    """The values of swept `key` (e.g. +sweep/pe) that the sweeps of the jobs in `folders` plan and none of those
    jobs ran: what a page built from a sweep still in progress lacks."""
    overrides = [o for o in (job_overrides(f) for f in folders) if o is not None]
    planned: dict[str, None] = {}
    for sweeps in dict.fromkeys(o.get(SWEEP_OPTION, "") for o in overrides):
        planned |= dict.fromkeys(launched_by(sweeps, conf_dir).options.get(key, ()))
    ran = {o.get(key) for o in overrides}
    return [value for value in planned if value not in ran]
