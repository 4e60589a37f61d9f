"""Comparisons on the lengths a claim is about, rather than on the report's buckets.

A *span* merges every test sentence of a length range: the lengths a setting was trained on ("trained", e.g. all of
1-9 French words: the claims read each model on its own lengths, and a merged span gives an equivalence test a chance)
and the lengths beyond them ("beyond": extrapolation). For each, Δ against the baseline with its 95% and 90%
intervals, the minimum detectable difference, the BLEU of both, brevity penalty and output/reference length ratio.

Alignment contrasts: per test sentence, the alignment numbers of a setting minus those of its baseline (the same
sentences, the same forced reference), on short (≤ SHORT_MAX words) and long (≥ LONG_MIN words) sentences: the gap on
each, the long − short interaction, and each model's own long − short level, each with an interval (group bootstrap
over sentences; with several seeds a t-interval over seeds widened by the test-set noise).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Protocol

import numpy as np

from translate.analysis.sweep.rows import (AlignmentRow, Convergence, Quantity, RowSetting, SpanComparison, SpanDelta,
                                          SpanRow)
from translate.analysis.significance import (Difference, Groups, SentenceStats, compare, difference_from_samples,
                                                   group_counts, seeds_needed)

from translate.analysis.sweep.jobs import Job, JobSettings, Setting, words_label
from translate.analysis.sweep.reference_sentences import TestSet
from translate.analysis.sweep.rules import Rules


class PairedScores(Protocol):
    """What spans read of a sweep (the aggregator hands itself in; spans never build one): the jobs paired with
    their baselines, each job's test set and sentence statistics, and the rules. Nothing else of the aggregator."""

    rules: Rules

    def paired(self, setting: Setting, name: str) -> list[tuple[Job, Job]]: ...

    def test_set(self, job: Job, name: str) -> Optional[TestSet]: ...

    def stats(self, job: Job, name: str, test: TestSet) -> SentenceStats: ...

SHORT_MAX = 10          # short: at most 10 French words
LONG_MIN = 11           # long: from 11 words (the source notes' "long" training set starts there)
ALIGNMENT_METRICS = {"diagonal_share_normalised": +1, "aer": -1, "monotonicity": +1}  # +1: higher is better aligned


@dataclass(frozen=True)
class Span:
    kind: str               # trained, beyond, short, long
    low: int
    high: Optional[int]     # None: no upper end

    def holds(self, words: int) -> bool:
        return words >= self.low and (self.high is None or words <= self.high)

    @property
    def label(self) -> str:
        return words_label(self.low, self.high)


def claim_spans(settings: JobSettings) -> list[Span]:
    """The trained lengths and those beyond them, for a setting trained on a length range."""
    lengths = settings.trained
    if lengths is None:
        return []
    low, high = lengths
    return [Span("trained", low, high)] + ([Span("beyond", high + 1, None)] if high is not None else [])


@dataclass(frozen=True)
class OutputLength:
    """Output/reference length ratio and BLEU's brevity penalty (corpus level, sacreBLEU's counts)."""

    ratio: Optional[float]
    bp: Optional[float]


def length_scores(stats: SentenceStats) -> OutputLength:
    totals = stats.stats["bleu"].sum(0)
    hyp, ref = float(totals[0]), float(totals[1])
    ratio = hyp / ref if ref else None
    bp = None if ratio is None else (1.0 if ratio >= 1 else (float(np.exp(1 - 1 / ratio)) if ratio > 0 else 0.0))
    return OutputLength(None if ratio is None else round(ratio, 3), None if bp is None else round(bp, 3))


def mean_of(values: list[Optional[float]]) -> Optional[float]:
    present = [v for v in values if v is not None]
    return round(float(np.mean(present)), 2) if present else None


def span_delta(d: Difference, margin: float, base_score: Optional[float]) -> SpanDelta:
    """A Difference as the report keeps it plus what the claims read: equivalence at the margin, the margin
    established, the seeds a ±margin equivalence would need, Δ relative to the baseline."""
    established = d.established_margin
    needed = None
    if d.std is not None and d.sentence_se is not None:
        # the per-seed spread (each seed's own test-set noise in it) and the shared test-set part no seed removes
        needed = seeds_needed(d.std, d.sentence_se, margin)
    return replace(SpanDelta.of(d), baseline=base_score, equivalent=d.equivalent(margin),
                   established_margin=None if established is None else round(established, 2), seeds_needed=needed,
                   relative_delta=None if not base_score else round(d.delta / base_score, 4))


def span_rows(aggregator: PairedScores, setting: Setting, name: str, about: RowSetting) -> list[SpanRow]:
    """One row per claim span of `setting` on test set `name` (none for a setting trained on every length)."""
    jobs = [job for job in setting.jobs if name in job.test_sets()]
    spans = claim_spans(setting.settings)
    if not jobs or not spans:
        return []
    test = aggregator.test_set(jobs[0], name)
    words = test.words("source_words") if test is not None else None
    if words is None:
        return []
    pairs = aggregator.paired(setting, name)
    rows = []
    for span in spans:
        indices = [i for i, w in enumerate(words) if span.holds(w)]
        if not indices:
            continue
        own = [aggregator.stats(job, name, test).subset(indices) for job in jobs]
        lengths = [length_scores(s) for s in own]
        compared = None
        if pairs and aggregator.rules.samples:
            bases = [aggregator.stats(base, name, test).subset(indices) for _, base in pairs]
            systems = [aggregator.stats(job, name, test).subset(indices) for job, _ in pairs]
            differences = compare(bases, systems, test.groups.subset(indices), aggregator.rules.samples)
            bleu, chrf = (span_delta(differences[key], aggregator.rules.margin, mean_of([b.score(key) for b in bases]))
                          for key in ("bleu", "chrf"))
            base_lengths = [length_scores(b) for b in bases]
            compared = SpanComparison(bleu, chrf, mean_of([b.ratio for b in base_lengths]),
                                      mean_of([b.bp for b in base_lengths]),
                                      Convergence.of([base.metrics.trend for _, base in pairs]))
        rows.append(SpanRow(**about.about(), span=span.kind, low=span.low, high=span.high,
                            bucket=f"{span.kind} {span.label}", sentences=len(indices),
                            decides=aggregator.rules.decides(len(indices)),
                            tested_steps=[job.tested_step for job in jobs], jobs=" ".join(job.name for job in jobs),
                            bleu=mean_of([s.score("bleu") for s in own]), chrf=mean_of([s.score("chrf") for s in own]),
                            length_ratio=mean_of([x.ratio for x in lengths]), bp=mean_of([x.bp for x in lengths]),
                            convergence=Convergence.of([job.metrics.trend for job in jobs]), compared=compared))
    return rows


def per_sentence(job: Job, name: str, metric: str) -> Optional[np.ndarray]:
    """(n,) a job's per-sentence alignment values on a test set (NaN where undefined), None when not recorded."""
    scores = job.test_sets().get(name)
    values = scores.by_length.per_sentence.get(metric) if scores and scores.by_length else None
    if values is None:
        return None
    return np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)


def nan_mean(values: np.ndarray) -> float:
    defined = values[~np.isnan(values)]
    return float(defined.mean()) if len(defined) else float("nan")


def resampled_means(values: np.ndarray, groups: Groups, counts: np.ndarray) -> np.ndarray:
    """(B,) mean of the defined values on each group resample (counts: (B, groups), float64)."""
    return resampled_means_of([values], groups, counts)[0]


def resampled_means_of(series: list[np.ndarray], groups: Groups, counts: np.ndarray) -> list[np.ndarray]:
    """resampled_means of each series, in one product: the (B, groups) draw counts are read once for all of them
    (the product is memory-bound: one read a series made the alignment rows the page's slowest part)."""
    columns = []
    for values in series:
        defined = ~np.isnan(values)
        columns += [np.bincount(groups.ids[defined], values[defined], minlength=groups.count),
                    np.bincount(groups.ids[defined], minlength=groups.count).astype(np.float64)]
    totals = counts @ np.stack(columns, axis=1)   # (B, 2 · series): each series' resampled sum, then its size
    with np.errstate(invalid="ignore", divide="ignore"):
        return [totals[:, 2 * i] / totals[:, 2 * i + 1] for i in range(len(series))]


def alignment_rows(aggregator: PairedScores, setting: Setting, name: str, about: RowSetting) -> list[AlignmentRow]:
    """Per alignment metric: the setting's per-sentence value minus its baseline's, on short and long sentences,
    their interaction, and each model's own long − short level (see the module docstring)."""
    pairs = aggregator.paired(setting, name)
    if not pairs or not aggregator.rules.samples:
        return []
    test = aggregator.test_set(pairs[0][0], name)
    words = test.words("source_words") if test is not None else None
    if words is None:
        return []
    words = np.asarray(words)
    short, long = words <= SHORT_MAX, words >= LONG_MIN
    if not (short.any() and long.any()):
        return []
    # (B, groups) in float64 once here: NumPy would otherwise convert the float32 draws on every float64 product.
    counts = group_counts(test.groups.count, aggregator.rules.samples).astype(np.float64)
    rows = []
    for metric in ALIGNMENT_METRICS:
        values = [(per_sentence(job, name, metric), per_sentence(base, name, metric)) for job, base in pairs]
        if any(v is None or b is None or len(v) != len(words) for v, b in values):
            continue
        quantities = {"gap_short": [], "gap_long": [], "gap_interaction": [], "system_long_minus_short": [],
                      "baseline_long_minus_short": []}
        observed = {k: [] for k in quantities}
        # per pair: gap, system and baseline, each on short and on long sentences
        spans = [np.where(mask, series, np.nan) for system, base in values for series in (system - base, system, base)
                 for mask in (short, long)]
        span_values, span_means = iter(spans), iter(resampled_means_of(spans, test.groups, counts))
        for _ in values:
            parts = {}
            for label in ("gap", "system", "baseline"):
                on_short, on_long = next(span_values), next(span_values)
                parts[label] = (nan_mean(on_short), nan_mean(on_long), next(span_means), next(span_means))
            g_short, g_long, r_short, r_long = parts["gap"]
            for key, obs, res in (("gap_short", g_short, r_short), ("gap_long", g_long, r_long),
                                  ("gap_interaction", g_long - g_short, r_long - r_short)):
                observed[key].append(float(obs))
                quantities[key].append(res)
            for label in ("system", "baseline"):
                s_short, s_long, rs_short, rs_long = parts[label]
                observed[f"{label}_long_minus_short"].append(float(s_long - s_short))
                quantities[f"{label}_long_minus_short"].append(rs_long - rs_short)
        def level(index: int, mask: np.ndarray) -> float:
            """The mean over seeds of the system's (index 0) or the baseline's (1) mean on the masked sentences."""
            return round(float(np.mean([nan_mean(np.where(mask, v[index], np.nan)) for v in values])), 4)
        rows.append(AlignmentRow(
            **about.about(), metric=metric, better=ALIGNMENT_METRICS[metric], short_sentences=int(short.sum()),
            long_sentences=int(long.sum()), jobs=" ".join(job.name for job, _ in pairs),
            system_short=level(0, short), system_long=level(0, long), baseline_short=level(1, short),
            baseline_long=level(1, long),
            **{key: Quantity.of(difference_from_samples(observed[key], np.stack(quantities[key])), digits=4)
               for key in quantities}))
    return rows
