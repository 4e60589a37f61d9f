"""Intervals and tests of BLEU and chrF differences, resampling groups of test sentences, aware of seeds.

Sentence statistics are extracted once per job with sacreBLEU (the references once per test set) and summed per
*group*: the test pairs that share an English (or French) sentence, which are not independent draws. A bootstrap
sample draws groups with replacement, so it is a matrix of draw counts (B, groups); the resampled corpus statistics
of every sample are one matrix product (B, groups) @ (groups, k), and BLEU and chrF are computed from them in numpy
exactly as sacreBLEU does (a test checks both against sacreBLEU).

Comparison of a system with its baseline (Δ = system − baseline, each seed against the baseline of the same seed, on
the same sentences):
- one seed: the percentile interval of Δ over group resamples and a two-sided p from the same resamples, defined
  so that p < α exactly when the (1 − α) interval excludes 0 (percentile_interval, two_sided_p): the interval is
  the k-th smallest and k-th largest resampled Δ, k = ⌈α(B+1)/2 − 1⌉, and p = 2(1 + n)/(B + 1), n the resamples
  on the far side of 0. The smallest p is 2/(B+1).
- S ≥ 2 seeds: Δ is the mean of the per-seed deltas, Δ_s = μ + seed effect + the test-set noise every seed shares
  (the same sentences) + the seed's own test-set noise. Its standard error is SE² = s²/S + v_shared: s² the variance
  of the per-seed deltas (which already holds each seed's own test-set noise) and v_shared the shared part, the mean
  covariance between two seeds' Δs over the same group resamples (sentence_noise). Interval Δ ± t(df, 0.975)·SE and
  p from t = Δ/SE. df by Satterthwaite with the seed part taken at its one-sided 70% upper confidence bound
  (seed_df): S − 1 when the seeds' spread dominates, large when the shared test-set noise does. Plain Satterthwaite
  lets a chance-small s² raise df and under-covers (87% at S = 2); df = S − 1 over-covers (up to 100%) when the test
  set dominates; the bound was chosen by the simulation of interval_check.py, which keeps the 95% interval's coverage
  in 93–97% and the TOST's false "about the same" at or below 5% for S = 2..11 (docs/sweeps.md has the table).
  Seeds are never pooled as extra sentences.

The length ratio (hypothesis words per reference word, mean over sentences) gets a Δ by the same procedure, so a
BLEU gap beyond the training lengths can be told apart as a gap in where a model stops; it is no test of its own
(rows.Comparison keeps it out of every Holm family).

Beside every Δ: the 90% interval (two one-sided tests, TOST: "about the same" within ±margin when it lies inside),
the smallest margin it establishes, and the minimum detectable difference of the two-sided test at α = 0.05 with
80% power. Student's t and normal quantiles come from scipy.stats.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Any, Optional, Sequence

import numpy as np
from sacrebleu.metrics import BLEU, CHRF
from scipy import special

from translate.scoring.metrics import sentence_length_ratios

METRICS = {"bleu": BLEU, "chrf": CHRF}
SEED = 12345  # sacreBLEU's default SACREBLEU_SEED
LEVEL = 0.95
ALPHA = 1 - LEVEL
EQUIVALENCE_LEVEL = 0.90   # TOST at α = 0.05: the 90% interval inside ±margin
POWER = 0.80               # of the minimum detectable difference and of the seed count
MAX_DF = 1000  # t(1000) is the normal distribution to 3 decimals


# -- scores from summed statistics, vectorised over samples -----------------------------------------------------------
def bleu_from_stats(totals: np.ndarray) -> np.ndarray:
    """(..., 10) summed sacreBLEU statistics [hyp len, ref len, correct 1-4, total 1-4] -> (...) BLEU, as
    sacreBLEU's default BLEU (exp smoothing; orders after one with no n-grams count as log 0)."""
    sys_len, ref_len = totals[..., 0], totals[..., 1]
    correct, total = totals[..., 2:6], totals[..., 6:10]
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(sys_len < ref_len, np.where(sys_len > 0, np.exp(1 - ref_len / np.maximum(sys_len, 1)), 0.0), 1.0)
        stopped = np.cumsum(total == 0, axis=-1) > 0                     # sacreBLEU breaks at the first empty order
        zero = (correct == 0) & ~stopped
        smooth = 2.0 ** np.cumsum(zero, axis=-1)                         # exp smoothing: halve again per zero order
        precision = np.where(zero, 100.0 / (smooth * total), 100.0 * correct / total)
        logs = np.where(stopped, -9999999999.0, np.log(np.where(stopped, 1.0, precision)))
        score = bp * np.exp(logs.sum(-1) / 4)
    return np.where(correct.sum(-1) > 0, score, 0.0)


def chrf_from_stats(totals: np.ndarray, beta: float = 2.0) -> np.ndarray:
    """(..., 3 * orders) summed chrF statistics [hyp, ref, match] per order -> (...) chrF, as sacreBLEU's default
    CHRF (averaged precision and recall over the orders both sides have)."""
    stats = totals.reshape(*totals.shape[:-1], -1, 3)
    hyp, ref, match = stats[..., 0], stats[..., 1], stats[..., 2]
    valid = (hyp > 0) & (ref > 0)
    orders = valid.sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(valid, match / np.where(hyp > 0, hyp, 1), 0.0).sum(-1) / np.maximum(orders, 1)
        recall = np.where(valid, match / np.where(ref > 0, ref, 1), 0.0).sum(-1) / np.maximum(orders, 1)
        f = (1 + beta ** 2) * precision * recall / (beta ** 2 * precision + recall)
    return np.where(precision + recall > 0, 100 * f, 0.0)


def length_ratio_from_stats(totals: np.ndarray) -> np.ndarray:
    """(..., 2) summed [hypothesis words / reference words, 1] per sentence -> (...) their mean over the sentences."""
    return totals[..., 0] / np.maximum(totals[..., 1], 1)


SCORE = {"bleu": bleu_from_stats, "chrf": chrf_from_stats, "length_ratio": length_ratio_from_stats}
COMPARED = tuple(SCORE)   # what compare() gives a Δ of: BLEU, chrF and the length ratio
SUMMED_EXACTLY = ("bleu", "chrf")   # statistics that are counts: float32 sums exact in any order


class ReferenceCache:
    """sacreBLEU's reference n-grams of one test set, computed once for all the jobs that translated it; and each
    sentence's statistics of each distinct hypothesis, computed once: models of one sweep often write the same
    translation of a sentence (about a third of a sweep's hypotheses repeat one of another job)."""

    def __init__(self, refs: Sequence[str]) -> None:
        self.refs = list(refs)
        self.metrics = {}
        for key, make in METRICS.items():
            metric = make()
            metric._ref_cache = metric._cache_references([list(refs)])
            self.metrics[key] = metric
        self._rows: dict[tuple[int, str], dict[str, list]] = {}   # (sentence, hypothesis) -> {metric: statistics}

    def stats(self, hyps: Sequence[str]) -> "SentenceStats":
        if len(hyps) != len(self.refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(self.refs)} references")
        for i, hyp in enumerate(hyps):
            if (i, hyp) not in self._rows:
                self._rows[i, hyp] = {key: self._segment(m, i, hyp) for key, m in self.metrics.items()}
        stats = {key: np.asarray([self._rows[i, hyp][key] for i, hyp in enumerate(hyps)], dtype=np.float64)
                 .reshape(len(hyps), -1) for key in self.metrics}
        ratios = sentence_length_ratios(hyps, self.refs)
        return SentenceStats(stats | {"length_ratio": np.stack([ratios, np.ones_like(ratios)], axis=1)})

    @staticmethod
    def _segment(metric: Any, index: int, hyp: str) -> list:
        """One sentence's statistics, as sacreBLEU's corpus statistics compute them for each segment."""
        return metric._compute_segment_statistics(metric._preprocess_segment(hyp), metric._ref_cache[index])


_REFERENCE_CACHES: dict[tuple[str, ...], ReferenceCache] = {}


def reference_cache(refs: Sequence[str]) -> ReferenceCache:
    """The one ReferenceCache of these references in this process: a page that reads the same jobs against another
    baseline (a second report of one sweep) scores each of their hypotheses once."""
    key = tuple(refs)
    if key not in _REFERENCE_CACHES:
        if len(_REFERENCE_CACHES) >= 32:
            _REFERENCE_CACHES.clear()
        _REFERENCE_CACHES[key] = ReferenceCache(key)
    return _REFERENCE_CACHES[key]


class SentenceStats:
    """Per-sentence sufficient statistics of hypotheses against one reference each, for BLEU, chrF and the length
    ratio (SCORE)."""

    def __init__(self, stats: dict[str, np.ndarray]) -> None:
        self.stats = stats  # score -> (n, k)

    @classmethod
    def extract(cls, hyps: Sequence[str], refs: Sequence[str]) -> "SentenceStats":
        return ReferenceCache(refs).stats(hyps)

    def __len__(self) -> int:
        return len(next(iter(self.stats.values())))

    def subset(self, indices: Sequence[int]) -> "SentenceStats":
        return SentenceStats({k: v[list(indices)] for k, v in self.stats.items()})

    def score(self, key: str) -> float:
        return float(SCORE[key](self.stats[key].sum(axis=0)))


# -- groups of sentences and their resamples --------------------------------------------------------------------------
@dataclass
class Groups:
    """ids[i]: the group of sentence i, numbered 0 .. count-1."""

    ids: np.ndarray

    @classmethod
    def of(cls, labels: Sequence) -> "Groups":
        _, ids = np.unique(np.asarray([str(label) for label in labels]), return_inverse=True)
        return cls(ids.reshape(-1))

    @classmethod
    def singletons(cls, n: int) -> "Groups":
        return cls(np.arange(n))

    @property
    def count(self) -> int:
        return int(self.ids.max()) + 1 if len(self.ids) else 0

    def subset(self, indices: Sequence[int]) -> "Groups":
        return Groups.of(self.ids[list(indices)])


_COUNTS: dict[tuple[int, int, int], np.ndarray] = {}


def group_counts(groups: int, samples: int, seed: int = SEED) -> np.ndarray:
    """(samples, groups) float32: how often each group is drawn in each bootstrap sample of `groups` draws with
    replacement. The same for every job of a test set (cached), so system and baseline are resampled alike."""
    key = (groups, samples, seed)
    if key not in _COUNTS:
        draws = np.random.default_rng(seed).choice(groups, size=(samples, groups), replace=True)  # as sacreBLEU
        flat = (np.arange(samples)[:, None] * groups + draws).ravel()
        counts = np.bincount(flat, minlength=samples * groups).reshape(samples, groups).astype(np.float32)
        if len(_COUNTS) > 32:
            _COUNTS.clear()
        _COUNTS[key] = counts
    return _COUNTS[key]


def resampled_scores(stats: SentenceStats, key: str, groups: Groups, counts: np.ndarray) -> np.ndarray:
    """(B,) corpus scores of the bootstrap samples given by the group draw counts (B, groups)."""
    return resampled_scores_of([summed(stats, key, groups.ids, groups.count)], key, counts)[0]


def resampled_scores_of(sums: Sequence[np.ndarray], key: str, counts: np.ndarray) -> list[np.ndarray]:
    """(B,) corpus scores of each model's bootstrap samples, from its statistics summed per group (`summed`: (groups,
    k) each). BLEU's and chrF's statistics are counts, whose float32 sums are exact in any order: all models go in one
    product, so the (B, groups) draw counts are read once, not once a model (the product is memory-bound). The
    length ratio's are fractions, whose float32 sums depend on the order the BLAS kernel adds them in (which differs
    between CPUs and with the product's width): each model gets its own product. Either way each model's scores
    equal those of its own product to the bit, on any machine (tests/test_significance.py checks every score)."""
    if key not in SUMMED_EXACTLY:
        return [SCORE[key](counts @ model) for model in sums]
    width = sums[0].shape[1]
    totals = counts @ np.concatenate(sums, axis=1)   # (B, models·k)
    return [SCORE[key](totals[:, i * width:(i + 1) * width]) for i in range(len(sums))]


def bootstrap_interval(stats: SentenceStats, samples: int, groups: Optional[Groups] = None, seed: int = SEED
                       ) -> dict[str, list[float]]:
    """{"bleu": [lo, hi], "chrf": [lo, hi]}: 95% percentile intervals over group resamples."""
    groups = groups or Groups.singletons(len(stats))
    counts = group_counts(groups.count, samples, seed)
    out = {}
    for key in METRICS:
        scores = resampled_scores(stats, key, groups, counts)
        out[key] = [round(float(np.percentile(scores, 2.5)), 2), round(float(np.percentile(scores, 97.5)), 2)]
    return out


# -- one procedure for an interval and its p ---------------------------------------------------------------------
def order_rank(samples: int, level: float = LEVEL) -> int:
    """k of the percentile interval [k-th smallest, k-th largest] of `samples` resamples: ⌈α(B+1)/2 − 1⌉."""
    k = math.ceil((1 - level) * (samples + 1) / 2 - 1 - 1e-9)
    if k < 1:
        raise ValueError(f"{samples} bootstrap samples cannot give a {level:.0%} interval: need at least "
                         f"{math.ceil(2 / (1 - level))}")
    return k


def percentile_interval(samples: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The k-th smallest and k-th largest of the resampled values (k = order_rank)."""
    k = order_rank(len(samples), level)
    ordered = np.sort(samples)
    return float(ordered[k - 1]), float(ordered[-k])


def two_sided_p(samples: np.ndarray) -> float:
    """2(1 + n)/(B + 1), n the resamples at or beyond 0 on the side away from the bulk: p < α exactly when the
    (1 − α) percentile_interval excludes 0 (tests/test_significance.py checks both signs)."""
    far = min(int((samples <= 0).sum()), int((samples >= 0).sum()))
    return min(1.0, 2 * (1 + far) / (len(samples) + 1))


def t_two_sided_p(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t (df = inf: the normal distribution)."""
    from scipy import stats as distributions   # here, not above: SciPy's stats take seconds to import (see
    # scoring/word_order.py)
    return float(2 * distributions.t.sf(abs(t), df))


def t_quantile(df: float, level: float = LEVEL) -> float:
    """q with P(|T| <= q) = level (e.g. 12.706 for df=1, 4.303 for df=2)."""
    return t_ppf(0.5 + level / 2, df)


def t_ppf(p: float, df: float) -> float:
    """Student's t quantile: scipy's stdtrit, the function distributions.t.ppf calls, without its argument checks
    (the simulation of interval_check.py calls it hundreds of thousands of times)."""
    return float(special.stdtrit(df, p))


SEED_BOUND = 0.30   # df counts each seed variance at its one-sided (1 − SEED_BOUND) upper confidence bound


@functools.lru_cache(maxsize=None)
def seed_variance_bound(df: int) -> float:
    """df/χ²(SEED_BOUND, df): the factor from a variance estimate with df degrees of freedom to its one-sided
    (1 − SEED_BOUND) upper confidence bound."""
    from scipy import stats as distributions
    return df / float(distributions.chi2.ppf(SEED_BOUND, df))


def seed_df(parts: Sequence[tuple[float, int]]) -> float:
    """Degrees of freedom of t for SE² = Σ variance parts (variance, its df); df = 0 marks a part known to bootstrap
    precision (thousands of resamples). Satterthwaite, df = (Σv)² / Σ(v²/df), but each estimated part enters at its
    upper confidence bound v·df/χ²(SEED_BOUND, df), so a chance-small seed variance cannot borrow the known part's
    certainty: S − 1 when one seed part dominates, up to MAX_DF when the known part does."""
    bounded = [(v * seed_variance_bound(df) if df > 0 else v, df) for v, df in parts]
    total = sum(v for v, _ in bounded)
    spread = sum(v * v / df for v, df in bounded if df > 0 and v > 0)
    return MAX_DF if spread == 0 else min(MAX_DF, total * total / spread)


def seed_se_df(seed_var: float, seeds: int, shared_se: float) -> tuple[float, float]:
    """SE and df of an S-seed mean Δ: SE² = seed_var + shared_se² (seed_var = s²/S, with S − 1 df; the shared
    test-set part known from the resamples), df = seed_df."""
    return math.sqrt(seed_var + shared_se ** 2), seed_df([(seed_var, seeds - 1), (shared_se ** 2, 0)])


def seed_t_interval(deltas: Sequence[float], shared_se: float = 0.0, level: float = LEVEL
                    ) -> tuple[float, float, float, float]:
    """(mean, low, high, p) of per-seed deltas (≥ 2): mean ± t(df)·SE with SE² = s²/S + shared_se², p from t.
    shared_se: the test-set noise all seeds share (sentence_noise); df: seed_df."""
    s = len(deltas)
    mean = float(np.mean(deltas))
    se, df = seed_se_df(float(np.var(deltas, ddof=1)) / s, s, shared_se)
    q = t_quantile(df, level)
    p = (1.0 if mean == 0 else 0.0) if se == 0 else t_two_sided_p(mean / se, df)
    return mean, mean - q * se, mean + q * se, p


def detectable(se: float, df: float, level: float = LEVEL, power: float = POWER) -> float:
    """The smallest true |Δ| the two-sided test at 1 − level finds with `power`: (t(1−α/2) + t(power))·SE."""
    return (t_quantile(df, level) + t_ppf(power, df)) * se


def seeds_needed(seed_sd: float, shared_se: float, margin: float, power: float = POWER, most: int = 50
                 ) -> Optional[int]:
    """The fewest seeds S (2..most) with which TOST at ±margin (α = 0.05 each side) shows "about the same" with
    `power` when the true Δ is 0, by the interval of seed_t_interval: margin ≥ (t(0.95, df) + t(1 − (1−power)/2,
    df))·√(seed_sd²/S + shared_se²), df = seed_df. seed_sd: the spread of the per-seed deltas (each seed's own
    test-set noise included); shared_se: the test-set noise every seed shares, which no number of seeds averages
    away. None when even `most` seeds do not."""
    for s in range(2, most + 1):
        se, df = seed_se_df(seed_sd ** 2 / s, s, shared_se)
        if margin >= (t_quantile(df, EQUIVALENCE_LEVEL)
                      + t_ppf(1 - (1 - power) / 2, df)) * se:
            return s
    return None


def sentence_noise(samples: np.ndarray) -> tuple[float, float]:
    """samples (S ≥ 2, B): Δ per seed on each test-set resample -> (one seed's test-set SE, the SE shared by all
    seeds). The variance of the S-seed mean is v̄/S + c̄(S−1)/S, v̄ the mean per-seed variance and c̄ the mean
    covariance between two seeds' Δ over the same resamples: c̄ is the part of the test-set noise that more seeds
    cannot average away."""
    s = samples.shape[0]
    per_seed = float(samples.var(axis=1, ddof=1).mean())
    of_mean = float(samples.mean(0).var(ddof=1))
    shared = (s * of_mean - per_seed) / (s - 1)
    return math.sqrt(per_seed), math.sqrt(min(max(shared, 0.0), per_seed))


def within(low90: Optional[float], high90: Optional[float], margin: float) -> bool:
    """TOST at α = 0.05 ("about the same"): the 90% interval lies inside ±margin."""
    return low90 is not None and -margin < low90 and high90 < margin


# -- comparisons ----------------------------------------------------------------------------------------------------
@dataclass
class Difference:
    """Δ of one metric, system minus baseline: its 95% interval and p for "no difference" (one procedure), its 90%
    interval for equivalence (TOST), standard error, degrees of freedom and minimum detectable difference."""

    delta: float
    low: float
    high: float
    p: float
    per_seed: list[float] = field(default_factory=list)
    std: Optional[float] = None         # standard deviation of the per-seed deltas (None with one seed)
    method: str = ""
    low90: Optional[float] = None
    high90: Optional[float] = None
    se: Optional[float] = None          # of Δ: test sentences, plus seeds when there are several
    # the test-set part of se: one seed, the bootstrap SD of its Δ; several, the part every seed shares
    sentence_se: Optional[float] = None
    df: float = MAX_DF
    detectable: Optional[float] = None  # minimum detectable |Δ| at α = 0.05, 80% power
    # With several seeds (sentence_noise): one seed's test-set SE, and the part of it all seeds share (what enters
    # se). None with one seed or without the resamples.
    seed_sentence_se: Optional[float] = None
    shared_sentence_se: Optional[float] = None

    def equivalent(self, margin: float) -> bool:
        """TOST at α = 0.05: the 90% interval inside ±margin."""
        return within(self.low90, self.high90, margin)

    @property
    def established_margin(self) -> Optional[float]:
        """The smallest margin within which the data show "about the same" (TOST at α = 0.05)."""
        return None if self.low90 is None else max(abs(self.low90), abs(self.high90))


def difference_from_samples(observed: list[float], samples: np.ndarray) -> Difference:
    """observed: Δ per seed; samples (S, B): Δ per seed on each group resample (the same resamples for all)."""
    mean_samples = samples.mean(0)  # (B,) seed-mean Δ per resample
    delta = float(np.mean(observed))
    sentence_se = float(mean_samples.std(ddof=1))
    if len(observed) == 1:
        b = samples.shape[1]
        low, high = percentile_interval(mean_samples)
        low90, high90 = percentile_interval(mean_samples, EQUIVALENCE_LEVEL)
        return Difference(delta, low, high, two_sided_p(mean_samples), observed, None,
                          f"paired group bootstrap, {b} samples, percentile interval", low90, high90, sentence_se,
                          sentence_se, MAX_DF, detectable(sentence_se, MAX_DF))
    per_seed, shared = sentence_noise(samples)
    return replace(seed_difference(observed, shared), seed_sentence_se=per_seed, shared_sentence_se=shared)


def seed_difference(observed: Sequence[float], shared_se: float) -> Difference:
    """Δ over S ≥ 2 seeds: a t-interval of the per-seed deltas widened by the shared test-set noise
    (seed_t_interval)."""
    s = len(observed)
    _, low, high, p = seed_t_interval(observed, shared_se)
    _, low90, high90, _ = seed_t_interval(observed, shared_se, EQUIVALENCE_LEVEL)
    se, df = seed_se_df(float(np.var(observed, ddof=1)) / s, s, shared_se)
    return Difference(float(np.mean(observed)), low, high, p, list(observed), float(np.std(observed, ddof=1)),
                      f"t over {s} seeds (df={df:.1f}) with the shared test-set variance", low90, high90, se,
                      shared_se, df, detectable(se, df))


def independent_contrast(first: Difference, second: Difference) -> Difference:
    """second.delta − first.delta for two comparisons on different sentences and different jobs (e.g. Δ_long of the
    long group minus Δ_short of the short group): SE² = SE₁² + SE₂² (independent test sets; seeds not paired), df by
    seed_df over both seed parts and both test-set parts (normal when both have one seed); interval and p from that
    t."""
    parts = []
    for d in (first, second):
        seeds = len(d.per_seed)
        seed_var = float(np.var(d.per_seed, ddof=1)) / seeds if seeds > 1 else 0.0
        parts += [(seed_var, seeds - 1), ((d.sentence_se or 0.0) ** 2, 0)]
    se = math.sqrt(sum(v for v, _ in parts))
    df = seed_df(parts)
    delta = second.delta - first.delta
    out = []
    for level in (LEVEL, EQUIVALENCE_LEVEL):
        q = t_quantile(df, level)
        out += [delta - q * se, delta + q * se]
    p = (1.0 if delta == 0 else 0.0) if se == 0 else t_two_sided_p(delta / se, df)
    seeds = max(len(first.per_seed), len(second.per_seed))
    method = ("normal, independent test-set bootstraps" if seeds == 1 else
              f"t over seeds (df={df:.1f}) with both shared test-set variances")
    return Difference(delta, out[0], out[1], p, [], None, method, out[2], out[3], se, None, df, detectable(se, df))


def compare(baselines: list[SentenceStats], systems: list[SentenceStats], groups: Groups, samples: int,
            seed: int = SEED) -> dict[str, Difference]:
    """Each system against the baseline of its seed (same index), all on the same sentences -> {score: Δ} for each
    of COMPARED."""
    if not systems or len(baselines) != len(systems):
        raise ValueError(f"paired test needs one baseline per seed: {len(baselines)} baselines, {len(systems)} systems")
    for base, system in zip(baselines, systems):
        if not len(base) == len(system) == len(groups.ids):
            raise ValueError(f"paired test needs the same sentences: baseline {len(base)}, system {len(system)}, "
                             f"groups {len(groups.ids)}")
    counts = group_counts(groups.count, samples, seed)
    out = {}
    for key in COMPARED:
        observed = [s.score(key) - b.score(key) for b, s in zip(baselines, systems)]
        scored = resampled_scores_of([summed(model, key, groups.ids, groups.count)
                                      for pair in zip(systems, baselines) for model in pair], key, counts)
        resampled = np.stack([system - base for system, base in zip(scored[0::2], scored[1::2])])
        out[key] = difference_from_samples(observed, resampled)
    return out


def interaction(baselines: list[SentenceStats], systems: list[SentenceStats], groups: Groups,
                first: Sequence[int], second: Sequence[int], samples: int, seed: int = SEED
                ) -> dict[str, Difference]:
    """Δ(second sentences) − Δ(first sentences), e.g. Δ_long − Δ_short, with its own interval: the groups of the
    whole test set are resampled once and both subsets are scored on the same sample."""
    counts = group_counts(groups.count, samples, seed)
    # numbered as in the whole set: one draw matrix for both subsets
    subsets = [(list(indices), groups.ids[list(indices)]) for indices in (second, first)]
    out = {}
    for key in METRICS:
        observed, sums = [], []
        for base, system in zip(baselines, systems):
            gaps = []
            for indices, ids in subsets:
                sub_s, sub_b = system.subset(indices), base.subset(indices)
                gaps.append(sub_s.score(key) - sub_b.score(key))
                sums += [summed(sub_s, key, ids, groups.count), summed(sub_b, key, ids, groups.count)]
            observed.append(gaps[0] - gaps[1])
        # per pair, four models' scores: system and baseline on the second subset, then on the first
        scored = resampled_scores_of(sums, key, counts)
        resampled = [(s2 - b2) - (s1 - b1) for s2, b2, s1, b1 in zip(*(scored[i::4] for i in range(4)))]
        out[key] = difference_from_samples(observed, np.stack(resampled))
    return out


def summed(stats: SentenceStats, key: str, ids: np.ndarray, count: int) -> np.ndarray:
    """(count, k) float32: statistics summed per group id (groups without a sentence here stay 0)."""
    out = np.zeros((count, stats.stats[key].shape[1]))
    np.add.at(out, ids, stats.stats[key])
    return out.astype(np.float32)


# -- many tests on one page -----------------------------------------------------------------------------------------
def holm(p_values: Sequence[Optional[float]]) -> list[Optional[float]]:
    """Holm–Bonferroni adjusted p-values (None stays None): the family-wise error of all the tests stays at α."""
    present = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m, running, out = len(present), 0.0, list(p_values)
    for rank, (p, i) in enumerate(present):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


def p_text(p: Optional[float], samples: Optional[int] = None) -> str:
    """"p=0.042"; "p < 0.001" below a thousandth (the bootstrap floor 2/(B+1) included)."""
    if p is None:
        return "p=–"
    return "p < 0.001" if p < 0.001 or (samples and p <= 2 / (samples + 1)) else f"p={p:.3f}"


def interval_text(delta: float, low: float, high: float, digits: int = 2, unit: str = "") -> str:
    """"-4.37 [-5.97, -2.78] BLEU": a Δ with its 95% interval (no unit: none written)."""
    unit = f" {unit}" if unit else ""
    return f"{delta:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]{unit}"
