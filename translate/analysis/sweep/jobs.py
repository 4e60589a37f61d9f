"""The jobs of a sweep folder: every run folder below it with a config.yaml; finished when metrics.json is there.

A job's *setting* is its resolved config without the keys that do not change what is trained (seed, paths, threads,
logging); jobs with the same setting and different seeds are repeats of one setting.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Optional

from omegaconf import OmegaConf

from translate.analysis.run.metrics_json import RunMetrics, TestSetScores
from translate.analysis.run.report_split import training_lengths
from translate.analysis.run.settings import ReportSettings
from translate.data.config import DataConfig
from translate.data.test_sets import TestSetSpec, parse_test_sets
from translate.analysis.sweep.errors import SweepError
from translate.analysis.sweep.plan import planned_seeds

# Keys (dotted, or a section followed by ".") that say where or how a job ran, not what it trained: the top-level seed
# (jobs differing only in it are seeds of one setting), piece and run_name, and the fields of the run's sections
# declared with role HOW_IT_RAN (translate.config.fields; the whole report section by its class). A copy of what those
# roles give, because the train section's class lives in training, which analysis may not import (the floors in
# pyproject.toml); tests/test_setting_roles.py checks that the two agree.
NOT_SETTINGS = ("seed", "piece", "run_name", "train.resume", "train.device", "train.num_threads", "train.precision",
                "train.compile", "train.log_every", "train.save_every", "train.samples", "data.path",
                "data.cache_dir", "report.", "eval.")   # eval: what was scored, not what was trained
PE_SECTIONS = ("encoding", "ablation")


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


def tolerant(cls: type, node: Optional[dict]) -> Any:
    """A section of a job's config.yaml as the run's own dataclass `cls`: a key the class no longer has is left out,
    a key an older run lacked takes the class's default, the class checks the values as the run did."""
    names = {f.name for f in fields(cls)}
    kept = {k: v for k, v in (node or {}).items() if k in names}
    return OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(cls), kept))


@dataclass
class JobSettings:
    """What the sweep reads of a job's config.yaml, typed by the sections of the run's RunSettings (DataConfig,
    ReportSettings, the test-set specs of EvalConfig) and tolerant of older runs (see `tolerant`)."""

    seed: Any = None
    encoding: str = "?"                   # encoding.name
    ablation: str = "none"                # ablation.name
    model: Optional[str] = None           # model.name
    data: Optional[DataConfig] = None     # None: the config has no data section (nothing to read the test sets from)
    report: ReportSettings = field(default_factory=ReportSettings)
    test_sets: list[TestSetSpec] = field(default_factory=list)   # eval.test_sets; [] before eval.test_sets
    # (low, high) French words of the training pairs (high None: no upper end), None when the job trained on every
    # length: the run's own reading of data.train_min_words / train_max_words (report_split.training_lengths)
    trained: Optional[tuple[int, Optional[int]]] = None

    @classmethod
    def read(cls, tree: dict) -> "JobSettings":
        """tree: the resolved config.yaml."""
        def name(section: str, default: Any) -> Any:
            node = tree.get(section)
            return node.get("name", default) if isinstance(node, dict) else default
        entries = (tree.get("eval") or {}).get("test_sets")
        data = tolerant(DataConfig, tree["data"]) if tree.get("data") else None
        return cls(tree.get("seed"), name("encoding", "?"), name("ablation", "none"), name("model", None), data,
                   tolerant(ReportSettings, tree.get("report")), parse_test_sets(entries) if entries else [],
                   training_lengths(data) if data else None)

    @property
    def train_words(self) -> str:
        """"1-9", "11+", or "all"; `word_span` reads it back."""
        return "all" if self.trained is None else words_label(*self.trained)


def words_label(low: int, high: Optional[int]) -> str:
    """A range of French word counts as labels name it: "1-9", or "11+" with no upper end."""
    return f"{low}-{high}" if high is not None else f"{low}+"


def word_span(train_words: Optional[str]) -> Optional[tuple[int, Optional[int]]]:
    """JobSettings.train_words read back: "1-9" -> (1, 9), "11+" -> (11, None), "all" (or no label) -> None, every
    length."""
    if train_words is None or train_words == "all":
        return None
    bounds = re.fullmatch(r"(\d+)(?:-(\d+)|\+)", train_words)
    if bounds is None:
        raise ValueError(f"train_words {train_words!r} is none of 'LOW-HIGH', 'LOW+' or 'all'")
    return int(bounds.group(1)), int(bounds.group(2)) if bounds.group(2) else None


@dataclass
class Job:
    path: Path                       # the run folder
    config: dict[str, Any]           # flattened resolved config: what varies between jobs, what a job is grouped by
    metrics: Optional[RunMetrics] = None   # metrics.json, None while unfinished
    name: str = ""                   # path relative to the sweep folder
    settings: JobSettings = field(default_factory=JobSettings)   # the same config, typed
    planned_seeds: Optional[int] = None   # its sweep's planned seed count (plan.py); None: outside any plan

    @property
    def finished(self) -> bool:
        return self.metrics is not None

    @property
    def seed(self) -> Any:
        return self.settings.seed

    @property
    def setting(self) -> tuple:
        """What was trained, seed excluded: jobs with equal settings are seeds of one experiment."""
        return tuple(sorted((k, v) for k, v in self.config.items() if is_setting(k)))

    @property
    def context(self) -> tuple:
        """The setting without the positional encoding, seed included: what a job is paired on with its baseline."""
        return tuple((k, v) for k, v in self.setting if k.split(".")[0] not in PE_SECTIONS) + (("seed", self.seed),)

    @property
    def trained(self) -> bool:
        """Finished by training (an evaluation-only job, e.g. a test-time control, records no steps)."""
        return self.metrics is not None and self.metrics.steps is not None

    @property
    def device(self) -> str:
        """What trained it, as metrics.json names it ("NVIDIA H200, fp32"). Runs from before metrics.json named it
        give their config's train.device and precision; every such run in this repository was trained on a CPU,
        where train.device=auto resolves to the CPU."""
        if self.metrics is not None and self.metrics.device:
            return self.metrics.device
        device, precision = self.config.get("train.device"), self.config.get("train.precision")
        if device == "cuda":
            return f"a GPU (not named), {'fp32' if precision == 'fp32' else 'bf16'}"
        return f"CPU, {'bf16' if precision == 'bf16' else 'fp32'}"

    @property
    def tested_step(self) -> Optional[int]:
        """The training step of the model the test sets scored (RunMetrics.model_step)."""
        return self.metrics.model_step if self.metrics else None

    def test_sets(self) -> dict[str, TestSetScores]:
        """{test set name: its scores}, the primary one first; {} while unfinished."""
        return self.metrics.test_sets if self.metrics else {}

    def hypotheses(self, test_set: str | None = None) -> list[str]:
        path = self.path / f"{test_set or self.metrics.test_set}.hyp.txt"
        if not path.exists():
            raise SweepError(f"{self.name}: {path.name} is missing though metrics.json is there")
        lines = path.read_text(encoding="utf-8").splitlines()
        scores = self.metrics.test_sets.get(test_set or self.metrics.test_set)
        skipped = set(scores.not_scored_lines) if scores else set()  # empty lines kept in place for the user
        return [hyp for number, hyp in enumerate(lines, 1) if number not in skipped]


def read_job(path: Path, sweep_dir: Path) -> Job:
    config = OmegaConf.to_container(OmegaConf.load(path / "config.yaml"), resolve=True)
    metrics_path = path / "metrics.json"
    metrics = RunMetrics.read(json.loads(metrics_path.read_text(encoding="utf-8"))) if metrics_path.exists() else None
    return Job(path, flatten(config), metrics, str(path.relative_to(sweep_dir)), JobSettings.read(config),
               planned_seeds(path))


def plan_evaluations(jobs: list[Job]) -> None:
    """An evaluation-only job (a test-time control: no .hydra of its own) is planned like the job whose checkpoint
    it scored, found beside it by that checkpoint's folder name."""
    by_folder = {job.path: job for job in jobs}
    for job in jobs:
        if job.planned_seeds is None and job.metrics is not None and job.metrics.checkpoint:
            source = by_folder.get(job.path.parent / Path(job.metrics.checkpoint).parent.name)
            if source is not None and source is not job:
                job.planned_seeds = source.planned_seeds


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
    plan_evaluations(jobs)
    if not any(job.finished for job in jobs):
        raise SweepError(f"no finished job under {sweep_dir}: no run folder there has a metrics.json "
                         f"({len(jobs)} unfinished)")
    devices: dict[str, list[str]] = {}
    for job in jobs:
        if job.trained:
            devices.setdefault(job.device, []).append(job.name)
    if len(devices) > 1:
        found = "; ".join(f"{device}: {len(names)} job(s), e.g. {names[0]}" for device, names in sorted(devices.items()))
        raise SweepError(f"{sweep_dir}: its jobs were trained on different devices ({found}); a comparison never "
                         f"mixes devices: keep each device's jobs in a folder of their own")
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
    def settings(self) -> JobSettings:
        return self.jobs[0].settings

    @property
    def seeds(self) -> list:
        return [job.seed for job in self.jobs]

    @property
    def planned_seeds(self) -> Optional[int]:
        """The seeds its sweep planned (the largest its jobs name); None where no job is part of a plan."""
        return max((job.planned_seeds for job in self.jobs if job.planned_seeds), default=None)


def group_settings(jobs: list[Job]) -> list[Setting]:
    """Finished jobs grouped by setting, each labelled by what distinguishes it from the others."""
    settings: dict[tuple, Setting] = {}
    for job in jobs:
        if job.finished:
            settings.setdefault(job.setting, Setting(job.setting)).jobs.append(job)
    varying = varying_keys([dict(s.key) for s in settings.values()])
    for s in settings.values():
        s.jobs.sort(key=lambda j: str(j.seed))
        s.pe = pe_label(s.config, s.settings)
        s.group = group_label(s.config, s.settings, varying)
        s.label = s.pe + (f", {s.group}" if s.group else "")
    return sorted(settings.values(), key=lambda s: (s.group, s.label))


def varying_keys(configs: list[dict[str, Any]]) -> list[str]:
    keys = sorted(set().union(*configs)) if configs else []
    return [k for k in keys if len({repr(c.get(k)) for c in configs}) > 1]


def pe_label(config: dict[str, Any], settings: JobSettings) -> str:
    """"sinusoidal", "sinusoidal + zero_dims(from=400)": the ablation's settings as its flattened keys give them."""
    label = str(settings.encoding)
    ablation = settings.ablation
    if ablation != "none":
        params = [f"{k.split('.', 1)[1]}={v}" for k, v in sorted(config.items())
                  if k.startswith("ablation.") and k not in ("ablation.name", "ablation._target_")
                  and v not in (None, (), "")]
        label += f" + {ablation}" + (f"({', '.join(params)})" if params else "")
    return label


# The keys that say which lengths a job trained on: shown together as one "train words" label (train_words_label).
TRAIN_WORDS_KEYS = ("data.train_min_words", "data.train_max_words", "data.train_same_tokens_as")


def train_words_label(settings: JobSettings) -> str:
    """"train words 1-9", or "train words 1-9 (as many target tokens as 11-17)" for a group drawn to the target
    tokens of another (data.train_same_tokens_as)."""
    matched = settings.data.train_same_tokens_as if settings.data is not None else None
    return f"train words {settings.train_words}" + (
        f" (as many target tokens as {matched[0]}-{matched[1]})" if matched else "")


def group_label(config: dict[str, Any], settings: JobSettings, varying: list[str]) -> str:
    """The non-PE keys that vary across the sweep; a section with a `name` that varies is shown by its name."""
    parts, shown_sections = [], set()
    for key in varying:
        section = key.split(".")[0]
        if section in PE_SECTIONS or key in TRAIN_WORDS_KEYS:
            continue
        if f"{section}.name" in varying:
            if section not in shown_sections:
                shown_sections.add(section)
                parts.append(f"{section}={config.get(section + '.name')}")
            continue
        parts.append(f"{key}={config.get(key)}")
    if any(k in varying for k in TRAIN_WORDS_KEYS):
        parts.insert(0, train_words_label(settings))
    return ", ".join(parts)
