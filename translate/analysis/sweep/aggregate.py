"""Settings x test sets x length buckets: one row each, with intervals and the comparison against the baseline.

Interval of a score: with one seed, the 95% bootstrap interval over groups of test sentences (per bucket as the
run's own length report computed it; for the whole test set computed here); with several seeds, mean ± standard
deviation over the seeds. Comparison (translate.analysis.significance): each seed against the baseline trained in the
same context with the same seed, on the same sentences; with several seeds a t-interval over the per-seed deltas
widened by the test-set bootstrap variance. The ALL row also holds the interaction Δ_long − Δ_short.
Every p is Holm-adjusted across the tests of the report (BLEU and chrF separately) for the stars.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any, Optional

from translate.analysis.run.settings import ReportSettings
from translate.analysis.run.metrics_json import CARRIED, BucketScores, BucketStatistics, TestSetScores
from translate.analysis.sweep.jobs import Job, JobSettings, Setting, SweepError
from translate.analysis.sweep.reference_sentences import TestSet, TestSets
from translate.analysis.sweep.rows import (AlignmentRow, Comparison, Convergence, Delta, ReportRow, RowSetting, Score,
                                          SpanRow, WithinRow)
from translate.analysis.sweep.rules import SAMPLES, Rules, exploratory, pending
from translate.analysis.significance import (Difference, SentenceStats, bootstrap_interval, compare, reference_cache,
                                           holm, interaction)
from translate.analysis.sweep.spans import LONG_MIN, SHORT_MAX, alignment_rows, span_rows
from translate.analysis.sweep.within import SHORT_TEST_SET, within_rows
from translate.scoring.repetition import repeated_word_percent

ALL = "all"
PER_BUCKET = CARRIED  # the per-bucket statistics of metrics.json carried into the rows (BucketStatistics)
MIN_SAMPLES = 40        # bootstrap resamples: the fewest with a 95% percentile interval (significance.order_rank)


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


@dataclass(frozen=True)
class Bucket:
    """A length bucket as the runs' length reports name it: words from `low` to `high` (None: no upper end)."""

    name: str
    low: Optional[int]
    high: Optional[int]


@dataclass
class Report:
    rules: Rules                                                   # the sweep's one rule (rules_from)
    rows: list[ReportRow] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    baseline: str = ""
    spans: list[SpanRow] = field(default_factory=list)             # Δ on the lengths a claim is about
    alignment: list[AlignmentRow] = field(default_factory=list)    # per-sentence alignment contrasts
    within: list[WithinRow] = field(default_factory=list)          # one model on its short and long sentences


def spread(values: list[Optional[float]]) -> tuple[Optional[float], Optional[float]]:
    """(mean, sample standard deviation) of the values that are there."""
    present = [v for v in values if v is not None]
    if not present:
        return None, None
    return round(statistics.fmean(present), 2), round(statistics.stdev(present), 2) if len(present) > 1 else 0.0


def score_of(values: list[Optional[float]], intervals: list[Optional[list]]) -> Score:
    """The value and its interval: bootstrap for one seed, mean ± std else."""
    mean, std = spread(values)
    if len(values) == 1:
        low, high = intervals[0] or [None, None]
        return Score(mean, low, high, None)
    return Score(mean, None if mean is None else round(mean - std, 2), None if mean is None else round(mean + std, 2),
                 std)


def bucket_table(results: Optional[TestSetScores]) -> dict[str, BucketScores]:
    """{bucket name: its scores} of a test set's length report ({} without one)."""
    return {b.bucket: b for b in results.by_length.buckets} if results and results.by_length else {}


def bucket_order(settings: list[Setting]) -> list[Bucket]:
    """Every bucket seen in any job and test set, shortest first."""
    seen: dict[str, Bucket] = {}
    for s in settings:
        for job in s.jobs:
            for results in job.test_sets().values():
                for name, b in bucket_table(results).items():
                    seen.setdefault(name, Bucket(name, b.low, b.high))
    return sorted(seen.values(), key=lambda b: (b.low is None, b.low or 0))


def training_lengths(bucket: Bucket, settings: JobSettings, bucketed_by: Optional[str]) -> Optional[str]:
    """"trained": every length of the bucket was trained on; "beyond": the bucket is longer than any (extrapolation);
    "shorter": shorter than any; "partly"."""
    if bucket.name == ALL or bucketed_by != "source_words":
        return None
    low, high = settings.trained or (1, None)
    b_low, b_high = bucket.low, bucket.high
    top = float("inf") if high is None else high
    b_top = float("inf") if b_high is None else b_high
    if low <= b_low and b_top <= top:
        return "trained"
    if b_low > top:
        return "beyond"
    if b_top < low:
        return "shorter"
    return "partly"


def compared(differences: dict[str, Difference], interactions: Optional[dict[str, Difference]] = None) -> Comparison:
    """Δ of each metric against the baseline, and of its interaction Δ_long − Δ_short, as the report keeps them; Δ of
    the length ratio."""
    def of(found: Optional[dict[str, Difference]], metric: str, digits: int = 2) -> Optional[Delta]:
        return Delta.of(found[metric], digits) if found and metric in found else None
    return Comparison(of(differences, "bleu"), of(differences, "chrf"), of(interactions, "bleu"),
                      of(interactions, "chrf"), of(differences, "length_ratio", 3))


class Aggregator:
    def __init__(self, jobs: list[Job], settings: list[Setting], baseline: Baseline, rules: Rules) -> None:
        self.jobs, self.settings, self.baseline, self.rules = jobs, settings, baseline, rules
        self.test_sets = TestSets()
        self._stats: dict[tuple[str, str], SentenceStats] = {}
        self._members: dict[tuple[str, str], dict[str, Optional[list[int]]]] = {}
        self.notes: list[str] = []
        self.baseline_of = {job.context: job for job in jobs if job.finished and baseline.matches(job)}
        if not self.baseline_of:
            self.notes.append(f"No job matches the baseline ({baseline.describe()}): no significance tests.")

    # -- reading -----------------------------------------------------------------------------------------------
    def test_set(self, job: Job, name: str) -> Optional[TestSet]:
        try:
            test = self.test_sets.for_job(job.settings, name)
        except Exception as error:  # corpus not on this machine, ...: report what can be reported without it
            note = f"Test references unavailable ({type(error).__name__}: {error}); no whole-split intervals or " \
                   f"significance tests."
            if note not in self.notes:
                self.notes.append(note)
            return None
        hyps = job.hypotheses(name)
        if len(hyps) != len(test.pairs):
            raise SweepError(f"{job.name}: {len(hyps)} hypotheses but test set {name!r} of its config has "
                             f"{len(test.pairs)} sentences; was the corpus or data.test_limit changed?")
        return test

    def stats(self, job: Job, name: str, test: TestSet) -> SentenceStats:
        if (job.name, name) not in self._stats:
            self._stats[job.name, name] = reference_cache(test.references).stats(job.hypotheses(name))
        return self._stats[job.name, name]

    # -- one setting ---------------------------------------------------------------------------------------------
    def whole_split_intervals(self, setting: Setting, name: str) -> dict[str, Optional[list]]:
        """{metric: its 95% bootstrap interval over the whole test set} with one seed, {} else."""
        if len(setting.jobs) != 1 or not self.rules.samples:
            return {}
        job = setting.jobs[0]
        test = self.test_set(job, name)
        if test is None:
            return {}
        return bootstrap_interval(self.stats(job, name, test), self.rules.samples, test.groups)

    def bucket_members(self, job: Job, name: str, test: TestSet) -> dict[str, Optional[list[int]]]:
        """{bucket: sentence indices} as the job's by_length counted them (None where the counts disagree)."""
        if (job.name, name) not in self._members:
            self._members[job.name, name] = self._bucket_members(job, name, test)
        return self._members[job.name, name]

    def _bucket_members(self, job: Job, name: str, test: TestSet) -> dict[str, Optional[list[int]]]:
        results = job.test_sets()[name]
        members = test.bucket_members(results.by_length) if results.by_length else None
        table = bucket_table(results)
        out: dict[str, Optional[list[int]]] = {}
        for bucket, indices in zip(table, members or []):
            if len(indices) != table[bucket].sentences:
                self.notes.append(f"{job.name}: bucket {bucket} holds {table[bucket].sentences} sentences "
                                  f"in metrics.json but {len(indices)} here; no test for that bucket.")
                out[bucket] = None
            else:
                out[bucket] = indices
        return out

    def paired(self, setting: Setting, name: str) -> list[tuple[Job, Job]]:
        """(job, its baseline) for each seed of `setting` tested on `name`, both tested at the same training step:
        jobs tested at different steps are not compared (a note says so)."""
        pairs = [(job, self.baseline_of.get(job.context)) for job in setting.jobs]
        pairs = [(job, base) for job, base in pairs if base is not None and base is not job
                 and name in base.test_sets() and name in job.test_sets()]
        same = [(job, base) for job, base in pairs if job.tested_step == base.tested_step]
        for job, base in pairs:
            note = (f"{job.name} was tested at step {job.tested_step} and its baseline {base.name} at step "
                    f"{base.tested_step}: not compared (every job of a comparison is scored at the same step).")
            if job.tested_step != base.tested_step and note not in self.notes:
                self.notes.append(note)
        return same

    def comparisons(self, setting: Setting, name: str, buckets: list[Bucket]) -> dict[str, Comparison]:
        """{bucket name or "all": Δ} against the baseline of each seed; "all" also holds the interaction."""
        pairs = self.paired(setting, name)
        if not pairs:
            return {}
        test = self.test_set(pairs[0][0], name)
        if test is None:
            return {}
        for job, base in pairs:
            self.test_set(job, name), self.test_set(base, name)  # checks the hypothesis counts
        systems = [self.stats(job, name, test) for job, _ in pairs]
        bases = [self.stats(base, name, test) for _, base in pairs]
        samples, groups = self.rules.samples, test.groups
        whole = compare(bases, systems, groups, samples)
        out = {ALL: compared(whole)}
        members = self.bucket_members(pairs[0][0], name, test)
        for b in buckets:
            indices = members.get(b.name)
            if indices:
                sub = groups.subset(indices)
                out[b.name] = compared(compare([s.subset(indices) for s in bases], [s.subset(indices) for s in systems],
                                               sub, samples))
        short = [i for b in buckets if b.high is not None and b.high <= SHORT_MAX for i in members.get(b.name) or []]
        long = [i for b in buckets if b.low is not None and b.low >= LONG_MIN for i in members.get(b.name) or []]
        if short and long:
            out[ALL] = compared(whole, interaction(bases, systems, groups, short, long, samples))
        return out

    def repeated_words(self, jobs: list[Job], name: str) -> dict[str, Optional[float]]:
        """{bucket or "all": % of output words repeating the word before, mean over seeds}, read from the
        hypotheses; {} when the test set cannot be read (its buckets are then unknown)."""
        shares: dict[str, list[Optional[float]]] = {}
        for job in jobs:
            test = self.test_set(job, name)
            if test is None:
                return {}
            hypotheses = job.hypotheses(name)
            shares.setdefault(ALL, []).append(repeated_word_percent(hypotheses))
            for bucket, indices in self.bucket_members(job, name, test).items():
                if indices is not None:
                    shares.setdefault(bucket, []).append(repeated_word_percent(hypotheses[i] for i in indices))
        return {bucket: spread(values)[0] for bucket, values in shares.items()}

    def about(self, setting: Setting, name: str) -> RowSetting:
        """What every row of `setting` on test set `name` is about."""
        seeds = sum(name in job.test_sets() for job in setting.jobs)
        return RowSetting(setting.label, setting.pe, setting.group, name, setting.settings.encoding,
                          setting.settings.ablation, setting.settings.train_words, setting.settings.model, seeds,
                          setting.planned_seeds)

    def rows(self, setting: Setting, name: str, buckets: list[Bucket]) -> list[ReportRow]:
        jobs = [job for job in setting.jobs if name in job.test_sets()]
        results = [job.test_sets()[name] for job in jobs]
        n = len(jobs)
        bucketed_by = results[0].by_length.bucketed_by if results[0].by_length else None
        parameters, tokens_per_s, minutes, steps = (
            spread([getattr(j.metrics, key) for j in jobs])[0]
            for key in ("parameters", "target_tokens_per_s", "train_minutes", "steps"))
        tested = sorted({job.tested_step for job in jobs if job.tested_step is not None})
        common = dict(self.about(setting, name).about(),
                      interval="bootstrap 95%" if n == 1 else f"mean ± std over {n} seeds",
                      parameters=None if parameters is None else int(parameters), target_tokens_per_s=tokens_per_s,
                      train_minutes=minutes, device="; ".join(sorted({j.device for j in jobs})),
                      steps=None if steps is None else int(steps),
                      tested_step="–".join(str(step) for step in (tested[:1] + tested[-1:] if len(tested) > 1
                                                                  else tested)),
                      convergence=Convergence.of([j.metrics.trend for j in jobs]), jobs=" ".join(j.name for j in jobs))
        comparisons = self.comparisons(setting, name, buckets) if self.rules.samples else {}
        intervals = self.whole_split_intervals(setting, name)
        repeats = self.repeated_words(jobs, name)

        def row(bucket: Bucket, sentences: Optional[int], bleu: Score, chrf: Score,
                statistics: BucketStatistics) -> ReportRow:
            return ReportRow(**common, bucket=bucket.name, low=bucket.low, high=bucket.high, sentences=sentences,
                             bleu=bleu, chrf=chrf, **vars(statistics),
                             lengths=training_lengths(bucket, setting.settings, bucketed_by),
                             decides=self.rules.decides(sentences), repeated_words=repeats.get(bucket.name),
                             compared=comparisons.get(bucket.name) or Comparison())
        out = [row(Bucket(ALL, None, None), results[0].sentences,
                   score_of([r.bleu for r in results], [intervals.get("bleu")]),
                   score_of([r.chrf for r in results], [intervals.get("chrf")]), BucketStatistics())]
        for b in buckets:
            cells = [bucket_table(r).get(b.name) for r in results]
            cells = [c if c and c.sentences else None for c in cells]  # an empty bucket has no scores
            if all(c is None for c in cells):
                continue
            bleu, chrf = (score_of([c.score(key) if c else None for c in cells], [c.ci(key) if c else None for c in cells])
                          for key in ("bleu", "chrf"))
            statistics = BucketStatistics(**{key: spread([getattr(c, key) if c else None for c in cells])[0]
                                             for key in PER_BUCKET})
            out.append(row(b, next(c.sentences for c in cells if c), bleu, chrf, statistics))
        return out


def family_of(row: ReportRow) -> str:
    """Holm's family of a row's tests, declared once: the tests of one test set on one page (its buckets, the
    whole set and the interaction), BLEU and chrF apart. A claim's own tests form their own family (claims.py)."""
    return f"{row.test_set}"


def adjust_for_many_tests(rows: list[ReportRow]) -> None:
    """Each Δ's `holm`: its p Holm-adjusted within the row's family (family_of) over the tests that decide: buckets of
    fewer than min_bucket sentences are shown, never starred, and not in the family; nor is a comparison at fewer
    paired seeds than its sweep planned (rules.pending: an interim look, no test yet), nor one of a single seed (its
    interval knows nothing of the spread between seeds: exploratory, rules.exploratory)."""
    for row in rows:
        row.family = family_of(row)
    for metric in ("bleu", "chrf"):
        families: dict[str, list[Delta]] = {}
        for row in rows:
            if row.decides and not pending(row) and not exploratory(row):
                families.setdefault(row.family, []).extend(row.compared.tests(metric))
        for tests in families.values():
            for test, adjusted in zip(tests, holm([test.p for test in tests])):
                test.holm = round(adjusted, 6)


def rules_from(jobs: list[Job], samples: Optional[int], min_bucket: Optional[int], margin: Optional[float]) -> Rules:
    """Given values, else the finished jobs' report config (report.min_bucket, report.equivalence_margin), which
    must agree: a sweep is read by one rule, so jobs that disagree are refused, naming the key, the values and
    the jobs, unless the value is given."""
    finished = [j for j in jobs if j.finished]
    report = finished[0].settings.report if finished else ReportSettings()
    for key, given in (("min_bucket", min_bucket), ("equivalence_margin", margin)):
        values = {getattr(j.settings.report, key) for j in finished}
        if given is None and len(values) > 1:
            named = {value: next(j.name for j in finished if getattr(j.settings.report, key) == value)
                     for value in values}
            found = ", ".join(f"{value!r} in {name}" for value, name in sorted(named.items()))
            option = "--min-bucket" if key == "min_bucket" else "--margin"
            raise SweepError(f"report.{key} differs between the sweep's jobs ({found}): a sweep is read by one rule; "
                             f"evaluate those jobs alike or give {option}")
    if samples is not None and samples != 0 and samples < MIN_SAMPLES:
        raise SweepError(f"--samples={samples} is not allowed: expected 0 (no intervals or tests) or at least "
                         f"{MIN_SAMPLES} (the fewest that give a 95% percentile interval)")
    return Rules(SAMPLES if samples is None else samples,
                 report.min_bucket if min_bucket is None else min_bucket,
                 report.equivalence_margin if margin is None else margin)


def aggregate(jobs: list[Job], settings: list[Setting], baseline: Baseline, rules: Rules) -> Report:
    settings = sorted(settings, key=lambda s: (s.group, not baseline.matches(s.jobs[0]), s.label))  # baseline first
    aggregator = Aggregator(jobs, settings, baseline, rules)
    buckets = bucket_order(settings)
    report = Report(settings=settings, unfinished=[j.name for j in jobs if not j.finished],
                    baseline=baseline.describe(), rules=rules)
    names = list(dict.fromkeys(name for s in settings for job in s.jobs for name in job.test_sets()))

    def all_rows() -> list[ReportRow]:
        rows, report.spans, report.alignment = [], [], []
        for name in names:
            for setting in settings:
                if any(name in job.test_sets() for job in setting.jobs):
                    rows += aggregator.rows(setting, name, buckets)
                    about = aggregator.about(setting, name)
                    report.spans += span_rows(aggregator, setting, name, about)
                    report.alignment += alignment_rows(aggregator, setting, name, about)
        report.within = [row for setting in settings
                         for row in within_rows(aggregator, setting, aggregator.about(setting, SHORT_TEST_SET))]
        adjust_for_many_tests(rows)
        return rows

    report.rows = all_rows()
    if not buckets:
        aggregator.notes.append("No job has a by_length report in its metrics.json: whole-split scores only.")
    report.notes = aggregator.notes
    return report
