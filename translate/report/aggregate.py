"""Settings x length buckets: one row each, with intervals and the comparison against the sweep's baseline.

Interval of a score: with one seed, the 95% bootstrap interval over the test sentences (per bucket as the run's own
length report computed it; for the whole test split computed here); with several seeds, mean ± standard deviation
over the seeds. Comparison: paired bootstrap against the baseline trained in the same context (same setting but the
positional encoding, same seed); with several seeds the sentences of all seeds are pooled.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Optional

from translate.report.jobs import Job, Setting, SweepError, train_words
from translate.report.references import TestSet, TestSets
from translate.report.significance import SentenceStats, bootstrap_interval, paired_bootstrap

ALL = "all"
PER_BUCKET = ("diagonal_share", "attention_entropy", "length_ratio")


@dataclass
class Baseline:
    """Which jobs are the baseline, e.g. {"encoding.name": "sinusoidal", "ablation.name": "none"}."""

    selector: dict[str, Any]

    @classmethod
    def parse(cls, text: str) -> "Baseline":
        """"encoding=sinusoidal,ablation=none": a bare section name means its `name` key."""
        selector = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, value = part.partition("=")
            if not sep or not key or not value:
                raise SweepError(f"--baseline part {part!r} is not allowed: expected KEY=VALUE, e.g. "
                                 f"encoding=sinusoidal,ablation=none")
            selector[key if "." in key else f"{key}.name"] = value
        return cls(selector)

    def matches(self, job: Job) -> bool:
        return all(str(job.config.get(k)) == v for k, v in self.selector.items())

    def describe(self) -> str:
        return ", ".join(f"{k.removesuffix('.name')}={v}" for k, v in self.selector.items())


@dataclass
class Report:
    rows: list[dict] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    baseline: str = ""


def spread(values: list[Optional[float]]) -> tuple[Optional[float], Optional[float]]:
    """(mean, sample standard deviation) of the values that are there."""
    present = [v for v in values if v is not None]
    if not present:
        return None, None
    return round(statistics.fmean(present), 2), round(statistics.stdev(present), 2) if len(present) > 1 else 0.0


def score_columns(values: list[Optional[float]], intervals: list[Optional[list]], key: str) -> dict:
    """{key, key_low, key_high, key_std}: the value and its interval (bootstrap for one seed, mean ± std else)."""
    mean, std = spread(values)
    if len(values) == 1:
        interval = intervals[0] or [None, None]
        return {key: mean, f"{key}_low": interval[0], f"{key}_high": interval[1], f"{key}_std": None}
    return {key: mean, f"{key}_low": None if mean is None else round(mean - std, 2),
            f"{key}_high": None if mean is None else round(mean + std, 2), f"{key}_std": std}


def bucket_table(job: Job) -> dict[str, dict]:
    by_length = (job.metrics or {}).get("by_length") or {"buckets": []}
    return {b["bucket"]: b for b in by_length["buckets"]}


def bucket_order(settings: list[Setting]) -> list[dict]:
    """Every bucket seen in any job, shortest first: [{"bucket", "low", "high"}]."""
    seen: dict[str, dict] = {}
    for s in settings:
        for job in s.jobs:
            for name, b in bucket_table(job).items():
                seen.setdefault(name, {"bucket": name, "low": b.get("low"), "high": b.get("high")})
    return sorted(seen.values(), key=lambda b: (b["low"] is None, b["low"] or 0))


class Aggregator:
    def __init__(self, jobs: list[Job], settings: list[Setting], baseline: Baseline, samples: int) -> None:
        self.jobs, self.settings, self.baseline, self.samples = jobs, settings, baseline, samples
        self.test_sets = TestSets()
        self._stats: dict[str, SentenceStats] = {}
        self.notes: list[str] = []
        self.baseline_of = {job.context: job for job in jobs if job.finished and baseline.matches(job)}
        if not self.baseline_of:
            self.notes.append(f"No job matches the baseline ({baseline.describe()}): no significance tests.")

    # -- reading -----------------------------------------------------------------------------------------------
    def test_set(self, job: Job) -> Optional[TestSet]:
        try:
            test = self.test_sets.for_config(job.config, job.metrics.get("split", "test"))
        except Exception as error:  # corpus not on this machine, ...: report what can be reported without it
            note = f"Test references unavailable ({type(error).__name__}: {error}); no whole-split intervals or " \
                   f"significance tests."
            if note not in self.notes:
                self.notes.append(note)
            return None
        hyps = job.hypotheses()
        if len(hyps) != len(test.pairs):
            raise SweepError(f"{job.name}: {len(hyps)} hypotheses but the test split of its config has "
                             f"{len(test.pairs)} sentences; was the corpus or data.test_limit changed?")
        return test

    def stats(self, job: Job, test: TestSet) -> SentenceStats:
        if job.name not in self._stats:
            self._stats[job.name] = SentenceStats.extract(job.hypotheses(), test.references)
        return self._stats[job.name]

    # -- one setting ---------------------------------------------------------------------------------------------
    def whole_split_intervals(self, setting: Setting) -> dict[str, list]:
        if len(setting.jobs) != 1 or not self.samples:
            return {"bleu": None, "chrf": None}
        job = setting.jobs[0]
        test = self.test_set(job)
        if test is None:
            return {"bleu": None, "chrf": None}
        return bootstrap_interval(self.stats(job, test), self.samples)

    def comparisons(self, setting: Setting, buckets: list[dict]) -> dict[str, dict]:
        """{bucket name or "all": Comparison.as_dict()} against the baseline, seeds pooled."""
        pairs = [(job, self.baseline_of.get(job.context)) for job in setting.jobs]
        pairs = [(job, base) for job, base in pairs if base is not None and base is not job]
        if not pairs:
            return {}
        system, base, members, offset = [], [], {b["bucket"]: [] for b in buckets}, 0
        for job, base_job in pairs:
            test = self.test_set(job)
            if test is None:
                return {}
            system.append(self.stats(job, test))
            base.append(self.stats(base_job, test))
            by_length = job.metrics.get("by_length")
            bucket_members = test.bucket_members(by_length) if by_length else None
            table = bucket_table(job)
            for name, indices in zip(table, bucket_members or []):
                if len(indices) != table[name].get("sentences"):
                    self.notes.append(f"{job.name}: bucket {name} holds {table[name].get('sentences')} sentences "
                                      f"in metrics.json but {len(indices)} here; no test for that bucket.")
                    members[name] = None
                elif members.get(name) is not None:
                    members[name] += [offset + i for i in indices]
            offset += len(test.pairs)
        pooled_system, pooled_base = SentenceStats.concat(system), SentenceStats.concat(base)
        out = {ALL: paired_bootstrap(pooled_base, pooled_system, self.samples).as_dict()}
        for name, indices in members.items():
            if indices:
                out[name] = paired_bootstrap(pooled_base.subset(indices), pooled_system.subset(indices),
                                             self.samples).as_dict()
        return out

    def rows(self, setting: Setting, buckets: list[dict]) -> list[dict]:
        jobs = setting.jobs
        n = len(jobs)
        common = {"setting": setting.label, "pe": setting.pe, "group": setting.group,
                  "encoding": setting.config.get("encoding.name"), "ablation": setting.config.get("ablation.name"),
                  "train_words": train_words(setting.config), "model": setting.config.get("model.name"),
                  "seeds": n, "interval": "bootstrap 95%" if n == 1 else f"mean ± std over {n} seeds"}
        totals = {key: spread([j.metrics.get(key) for j in jobs])[0]
                  for key in ("parameters", "target_tokens_per_s", "train_minutes", "steps")}
        for key in ("parameters", "steps"):
            totals[key] = None if totals[key] is None else int(totals[key])
        comparisons = self.comparisons(setting, buckets) if self.samples else {}
        intervals = self.whole_split_intervals(setting)
        whole = {"bucket": ALL, "low": None, "high": None, "sentences": jobs[0].metrics.get("sentences")}
        whole.update(score_columns([j.metrics.get("bleu") for j in jobs], [intervals["bleu"]], "bleu"))
        whole.update(score_columns([j.metrics.get("chrf") for j in jobs], [intervals["chrf"]], "chrf"))
        for key in PER_BUCKET:
            whole[key] = None
        out = [whole]
        for b in buckets:
            cells = [bucket_table(j).get(b["bucket"]) for j in jobs]
            cells = [c if c and c.get("sentences") else None for c in cells]  # an empty bucket has no scores
            if all(c is None for c in cells):
                continue
            row = dict(b, sentences=next(c.get("sentences") for c in cells if c))
            for key in ("bleu", "chrf"):
                row.update(score_columns([c.get(key) if c else None for c in cells],
                                         [c.get(f"{key}_ci") if c else None for c in cells], key))
            for key in PER_BUCKET:
                row[key] = spread([c.get(key) if c else None for c in cells])[0]
            out.append(row)
        for row in out:
            comparison = comparisons.get(row["bucket"], {})
            row.update({k: comparison.get(k) for k in ("delta_bleu", "p_bleu", "delta_chrf", "p_chrf")})
            row.update(totals)
            row["jobs"] = " ".join(j.name for j in jobs)
        return [dict(common, **row) for row in out]


def aggregate(jobs: list[Job], settings: list[Setting], baseline: Baseline, samples: int) -> Report:
    settings = sorted(settings, key=lambda s: (s.group, not baseline.matches(s.jobs[0]), s.label))  # baseline first
    aggregator = Aggregator(jobs, settings, baseline, samples)
    buckets = bucket_order(settings)
    report = Report(settings=settings, unfinished=[j.name for j in jobs if not j.finished],
                    baseline=baseline.describe())
    for setting in settings:
        report.rows += aggregator.rows(setting, buckets)
    if not buckets:
        aggregator.notes.append("No job has a by_length report in its metrics.json: whole-split scores only.")
    report.notes = aggregator.notes
    return report
