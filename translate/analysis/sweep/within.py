"""One model read on its short and on its long sentences: Δ against the baseline on each, and the within-model
interaction Δ_long − Δ_short, paired by seed.

For a setting whose models trained on both lengths (every length, or a range holding both spans), short sentences
are read on the primary test set (≤ SHORT_MAX French words of `test`) and long ones on the reserved long test set
(LONG_MIN–LONG_MAX words of `long_test`): two different test sets, so each is resampled on its own. Per seed s,
Δ_short,s and Δ_long,s are the system minus the baseline of its seed; the interaction's per-seed value is
Δ_long,s − Δ_short,s, and its resamples the long set's resampled Δ minus the short set's (independent draws).
Every Difference is then made by the one procedure (significance.difference_from_samples: seed variance plus the
test-set noise the seeds share, Satterthwaite's df).

Metrics: BLEU and chrF (corpus scores of each resample), and the per-sentence means the run's length report
records: teacher-forced token accuracy, clipped unigram F (word choice) in points (× 100), and Kendall τ of the
matched words (word order).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from translate.analysis.significance import (Groups, difference_from_samples, group_counts, resampled_scores_of,
                                             summed)
from translate.analysis.sweep.jobs import Job, Setting
from translate.analysis.sweep.rows import Quantity, RowSetting, WithinRow
from translate.analysis.sweep.spans import LONG_MIN, SHORT_MAX, PairedScores, nan_mean, per_sentence, resampled_means

SHORT_TEST_SET = "test"        # the corpus's own test split: its short sentences
LONG_TEST_SET = "long_test"    # the reserved real long sentences (translate/data/long_reserve.py)
LONG_MAX = 17                  # the source notes' long sentences: 11-17 French words
# metric -> (scale, digits): corpus scores as they are; per-sentence fractions in points; τ as it is
WITHIN_METRICS = {"bleu": (1.0, 2), "chrf": (1.0, 2), "token_accuracy": (100.0, 2), "unigram_f": (100.0, 2),
                  "order_tau": (1.0, 4)}


@dataclass(frozen=True)
class Side:
    """The sentences of one span on one test set: their indices and groups (resampled together)."""

    test_set: str
    low: int
    high: Optional[int]
    indices: list[int]
    groups: Groups

    @property
    def label(self) -> str:
        return f"{self.low}-{self.high}" if self.high is not None else f"{self.low}+"


def trains_both(setting: Setting) -> bool:
    """The setting's models trained on short and on long sentences (every length, or a range holding both)."""
    lengths = setting.settings.trained
    if lengths is None:
        return True
    low, high = lengths
    return low <= 1 and (high is None or high >= LONG_MAX)


def side_of(aggregator: PairedScores, job: Job, name: str, low: int, high: Optional[int]) -> Optional[Side]:
    test = aggregator.test_set(job, name)
    words = test.words("source_words") if test is not None else None
    if words is None:
        return None
    indices = [i for i, w in enumerate(words) if w >= low and (high is None or w <= high)]
    return Side(name, low, high, indices, test.groups.subset(indices)) if indices else None


def corpus_series(aggregator: PairedScores, side: Side, metric: str, jobs: list[Job], counts: np.ndarray
                  ) -> list[tuple[float, np.ndarray]]:
    """(score on the side's sentences, (B,) its resamples) of a corpus-level metric for each job, every job's
    resamples in one product (resampled_scores_of)."""
    subsets = [aggregator.stats(job, side.test_set, aggregator.test_set(job, side.test_set)).subset(side.indices)
               for job in jobs]
    sums = [summed(subset, metric, side.groups.ids, side.groups.count) for subset in subsets]
    return list(zip((subset.score(metric) for subset in subsets), resampled_scores_of(sums, metric, counts)))


def sentence_series(side: Side, metric: str, job: Job, counts: np.ndarray) -> Optional[tuple[float, np.ndarray]]:
    """(mean on the side's sentences, (B,) its resamples) of a per-sentence metric; None when not recorded, or
    undefined on the side or on some resample (e.g. τ of a model whose outputs share at most one reference word)."""
    values = per_sentence(job, side.test_set, metric)
    if values is None:
        return None
    values = values[side.indices]
    mean, draws = nan_mean(values), resampled_means(values, side.groups, counts)
    return None if np.isnan(mean) or np.isnan(draws).any() else (mean, draws)


@dataclass
class SideSeries:
    """One metric on one side over the paired seeds: each seed's system and baseline level, its Δ (system −
    baseline) and the Δ's resamples, scaled as WITHIN_METRICS says."""

    system: list[float]
    baseline: list[float]
    observed: list[float]
    resampled: list[np.ndarray]   # (B,) per seed

    def level(self, of: str, digits: int) -> float:
        return round(float(np.mean(getattr(self, of))), digits)


def side_series(aggregator: PairedScores, pairs: list[tuple[Job, Job]], side: Side, metric: str, counts: np.ndarray,
                scale: float) -> Optional[SideSeries]:
    """The metric of every pair on `side` (None when a model lacks it there)."""
    models = [model for pair in pairs for model in pair]
    if metric in ("bleu", "chrf"):
        series = corpus_series(aggregator, side, metric, models, counts)
    else:
        series = [sentence_series(side, metric, model, counts) for model in models]
    if any(s is None for s in series):
        return None
    out = SideSeries([], [], [], [])
    for (system, system_draws), (baseline, baseline_draws) in zip(series[0::2], series[1::2]):
        out.system.append(system * scale)
        out.baseline.append(baseline * scale)
        out.observed.append((system - baseline) * scale)
        out.resampled.append((system_draws - baseline_draws) * scale)
    return out


def within_rows(aggregator: PairedScores, setting: Setting, about: RowSetting) -> list[WithinRow]:
    """One row per metric for a setting trained on both lengths, paired by seed on both test sets (none otherwise)."""
    if not trains_both(setting) or not aggregator.rules.samples:
        return []
    long_pairs = {job.name: base for job, base in aggregator.paired(setting, LONG_TEST_SET)}
    pairs = [(job, base) for job, base in aggregator.paired(setting, SHORT_TEST_SET) if long_pairs.get(job.name)
             is base]
    if not pairs:
        return []
    short = side_of(aggregator, pairs[0][0], SHORT_TEST_SET, 1, SHORT_MAX)
    long = side_of(aggregator, pairs[0][0], LONG_TEST_SET, LONG_MIN, LONG_MAX)
    if short is None or long is None:
        return []
    # (B, groups) of each test set, in float64 once: independent draws for the two sets
    counts = {side.test_set: group_counts(side.groups.count, aggregator.rules.samples).astype(np.float64)
              for side in (short, long)}
    rows = []
    for metric, (scale, digits) in WITHIN_METRICS.items():
        on_short, on_long = (side_series(aggregator, pairs, side, metric, counts[side.test_set], scale)
                             for side in (short, long))
        if on_short is None or on_long is None:
            continue
        interaction = difference_from_samples([lg - sh for lg, sh in zip(on_long.observed, on_short.observed)],
                                              np.stack(on_long.resampled) - np.stack(on_short.resampled))
        delta_short, delta_long = (difference_from_samples(side.observed, np.stack(side.resampled))
                                   for side in (on_short, on_long))
        rows.append(WithinRow(
            **(about.about() | {"test_set": f"{short.test_set} + {long.test_set}", "seeds": len(pairs)}),
            metric=metric, short_test_set=short.test_set, short_span=short.label, long_test_set=long.test_set,
            long_span=long.label, short_sentences=len(short.indices), long_sentences=len(long.indices),
            jobs=" ".join(job.name for job, _ in pairs), system_short=on_short.level("system", digits),
            system_long=on_long.level("system", digits), baseline_short=on_short.level("baseline", digits),
            baseline_long=on_long.level("baseline", digits), delta_short=Quantity.of(delta_short, digits),
            delta_long=Quantity.of(delta_long, digits), interaction=Quantity.of(interaction, digits)))
    return rows
