"""The jobs of a sweep folder: every run folder below it with a config.yaml; finished when metrics.json is there.

A job's *setting* is its resolved config without the keys that do not change what is trained (seed, paths, threads,
logging); jobs with the same setting and different seeds are repeats of one setting.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from omegaconf import OmegaConf

# Keys (dotted, or a section followed by ".") that say where or how a job ran, not what it trained.
NOT_SETTINGS = ("seed", "piece", "run_name", "train.resume", "train.device", "train.num_threads", "train.precision",
                "train.compile", "train.log_every", "train.save_every", "train.samples", "data.path",
                "data.cache_dir", "report.")
PE_SECTIONS = ("encoding", "ablation")


class SweepError(ValueError):
    pass


def flatten(tree: Any, prefix: str = "") -> dict[str, Any]:
    """{"a": {"b": 1}} -> {"a.b": 1}; lists become tuples (see frozen) so that values can be compared and hashed."""
    if isinstance(tree, dict):
        flat: dict[str, Any] = {}
        for key, value in tree.items():
            flat.update(flatten(value, f"{prefix}{key}."))
        return flat
    return {prefix[:-1]: frozen(tree)}


def frozen(value: Any) -> Any:
    """Lists -> tuples and dicts -> sorted (key, value) tuples, all the way down (eval.test_sets is a list of dicts)."""
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, frozen(v)) for k, v in value.items()))
    return value


def is_setting(key: str) -> bool:
    return not any(key == k or (k.endswith(".") and key.startswith(k)) for k in NOT_SETTINGS)


@dataclass
class Job:
    path: Path                       # the run folder
    config: dict[str, Any]           # flattened resolved config
    metrics: Optional[dict] = None   # metrics.json, None while unfinished
    name: str = ""                   # path relative to the sweep folder

    @property
    def finished(self) -> bool:
        return self.metrics is not None

    @property
    def seed(self) -> Any:
        return self.config.get("seed")

    @property
    def setting(self) -> tuple:
        """What was trained, seed excluded: jobs with equal settings are seeds of one experiment."""
        return tuple(sorted((k, v) for k, v in self.config.items() if is_setting(k)))

    @property
    def context(self) -> tuple:
        """The setting without the positional encoding, seed included: what a job is paired on with its baseline."""
        return tuple((k, v) for k, v in self.setting if k.split(".")[0] not in PE_SECTIONS) + (("seed", self.seed),)

    @property
    def tested_step(self) -> Optional[int]:
        """The training step of the model the test sets scored. Runs that record it say so (`tested_step`); older
        runs tested best.pt, saved at the validation with the best valid BLEU (the first of equal ones), or the last
        step when they kept no best.pt."""
        metrics = self.metrics or {}
        for key in ("tested_step", "step"):  # a training run's; an evaluation's (translate.evaluate) checkpoint step
            if metrics.get(key) is not None:
                return int(metrics[key])
        curve = metrics.get("valid_curve") or []
        if str(metrics.get("checkpoint", "")).endswith("best.pt") and curve:
            best = max(point[1] for point in curve)
            return int(next(point[0] for point in curve if point[1] == best))
        return None if metrics.get("steps") is None else int(metrics["steps"])

    def test_sets(self) -> dict[str, dict]:
        """{test set name: its results}: see `test_set_results`."""
        return test_set_results(self.metrics or {})

    def hypotheses(self, test_set: str | None = None) -> list[str]:
        path = self.path / f"{test_set or self.metrics.get('split', 'test')}.hyp.txt"
        if not path.exists():
            raise SweepError(f"{self.name}: {path.name} is missing though metrics.json is there")
        return path.read_text(encoding="utf-8").splitlines()


def test_set_results(metrics: dict) -> dict[str, dict]:
    """The one place that knows how metrics.json lays out its test sets: {name: results}, each results holding
    bleu, chrf, sentences, split and by_length. Runs since eval.test_sets list each test set under `test_sets`;
    older runs tested one split, named by `split`, at the top level."""
    if not metrics:
        return {}
    if "test_sets" in metrics:
        return {name: {"split": name, **results} for name, results in metrics["test_sets"].items()}
    return {metrics.get("split", "test"): metrics}


def read_job(path: Path, sweep_dir: Path) -> Job:
    config = OmegaConf.to_container(OmegaConf.load(path / "config.yaml"), resolve=True)
    metrics_path = path / "metrics.json"
    metrics = json.loads(metrics_path.read_text(encoding="utf-8")) if metrics_path.exists() else None
    return Job(path, flatten(config), metrics, str(path.relative_to(sweep_dir)))


def job_folders(sweep_dir: Path) -> list[Path]:
    """Every run folder under `sweep_dir`: a folder holding a config.yaml, hidden ones such as .hydra skipped, in
    path order. A job is finished when its folder also holds a metrics.json. A run folder inside another is left
    out: it is an evaluation of that job (translate.evaluate's default output folder), not a job of the sweep."""
    folders = sorted(p.parent for p in sweep_dir.rglob("config.yaml")
                     if not any(part.startswith(".") for part in p.relative_to(sweep_dir).parts))
    return [f for f in folders if not any(other in f.parents for other in folders)]


def find_jobs(sweep_dir: Path) -> list[Job]:
    """Every run folder under `sweep_dir` (job_folders), read."""
    sweep_dir = Path(sweep_dir)
    if not sweep_dir.is_dir():
        raise SweepError(f"sweep folder {sweep_dir} does not exist; expected a hydra.sweep.dir such as "
                         f"sweeps/encodings")
    jobs = [read_job(folder, sweep_dir) for folder in job_folders(sweep_dir)]
    if not any(job.finished for job in jobs):
        raise SweepError(f"no finished job under {sweep_dir}: no run folder there has a metrics.json "
                         f"({len(jobs)} unfinished)")
    return jobs


@dataclass
class Setting:
    """One trained setting and its finished seeds."""

    key: tuple
    jobs: list[Job] = field(default_factory=list)
    label: str = ""
    pe: str = ""       # encoding and ablation, e.g. "sinusoidal + zero_dims(from=400)"
    group: str = ""    # the rest of what varies in the sweep, e.g. "train words 11-17"

    @property
    def config(self) -> dict[str, Any]:
        return self.jobs[0].config

    @property
    def seeds(self) -> list:
        return [job.seed for job in self.jobs]


def group_settings(jobs: list[Job]) -> list[Setting]:
    """Finished jobs grouped by setting, each labelled by what distinguishes it from the others."""
    settings: dict[tuple, Setting] = {}
    for job in jobs:
        if job.finished:
            settings.setdefault(job.setting, Setting(job.setting)).jobs.append(job)
    varying = varying_keys([dict(s.key) for s in settings.values()])
    for s in settings.values():
        s.jobs.sort(key=lambda j: str(j.seed))
        s.pe = pe_label(s.config)
        s.group = group_label(s.config, varying)
        s.label = s.pe + (f", {s.group}" if s.group else "")
    return sorted(settings.values(), key=lambda s: (s.group, s.label))


def varying_keys(configs: list[dict[str, Any]]) -> list[str]:
    keys = sorted(set().union(*configs)) if configs else []
    return [k for k in keys if len({repr(c.get(k)) for c in configs}) > 1]


def pe_label(config: dict[str, Any]) -> str:
    """"sinusoidal", "sinusoidal + zero_dims(from=400)"."""
    label = str(config.get("encoding.name", "?"))
    ablation = config.get("ablation.name", "none")
    if ablation != "none":
        params = [f"{k.split('.', 1)[1]}={v}" for k, v in sorted(config.items())
                  if k.startswith("ablation.") and k not in ("ablation.name", "ablation._target_")
                  and v not in (None, (), "")]
        label += f" + {ablation}" + (f"({', '.join(params)})" if params else "")
    return label


def trained_range(config: dict[str, Any]) -> Optional[tuple[int, Optional[int]]]:
    """(low, high) French words of a job's training pairs (high None: no upper end), None when it trained on every
    length: the one reading of data.train_min_words / train_max_words on the sweep side."""
    low, high = config.get("data.train_min_words"), config.get("data.train_max_words")
    if low is None and high is None:
        return None
    return low or 1, high


def train_words(config: dict[str, Any]) -> str:
    lengths = trained_range(config)
    if lengths is None:
        return "all"
    low, high = lengths
    return f"{low}-{high}" if high is not None else f"{low}+"


def group_label(config: dict[str, Any], varying: list[str]) -> str:
    """The non-PE keys that vary across the sweep; a section with a `name` that varies is shown by its name."""
    parts, shown_sections = [], set()
    for key in varying:
        section = key.split(".")[0]
        if section in PE_SECTIONS or key in ("data.train_min_words", "data.train_max_words"):
            continue
        if f"{section}.name" in varying:
            if section not in shown_sections:
                shown_sections.add(section)
                parts.append(f"{section}={config.get(section + '.name')}")
            continue
        parts.append(f"{key}={config.get(key)}")
    if any(k in varying for k in ("data.train_min_words", "data.train_max_words")):
        parts.insert(0, f"train words {train_words(config)}")
    return ", ".join(parts)
