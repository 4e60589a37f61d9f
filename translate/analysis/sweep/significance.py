"""Intervals and tests of BLEU and chrF differences, resampling groups of test sentences, aware of seeds.

Sentence statistics are extracted once per job with sacreBLEU (the references once per test set) and summed per
*group*: the test pairs that share an English (or French) sentence, which are not independent draws. A bootstrap
sample draws groups with replacement, so it is a matrix of draw counts (B, groups); the resampled corpus statistics
of every sample are one matrix product (B, groups) @ (groups, k), and BLEU and chrF are computed from them in numpy
exactly as sacreBLEU does (a test checks both against sacreBLEU).

Comparison of a system with its baseline (Δ = system − baseline, each seed against the baseline of the same seed, on
the same sentences):
- one seed: 95% percentile interval of Δ over group resamples; p: paired bootstrap, sacreBLEU's/Moses' test
  (shifted resampled Δ at least as far from 0 as the observed Δ), at best 1/(B+1).
- S ≥ 2 seeds: Δ is the mean of the per-seed deltas; its standard error combines the variance between seeds and
  that of test sentences, SE² = s²/S + se², s the standard deviation of the per-seed deltas and se the standard
  deviation of the seed-mean Δ over group resamples (every seed resampled with the same groups, since they
  translated the same sentences). Interval Δ ± t(df, 0.975)·SE and p from t = Δ/SE, df by Welch–Satterthwaite
  (S−1 when the seeds' spread dominates): a t-test over seeds widened by the test-set noise. Seeds are never
  pooled as extra sentences.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np
from sacrebleu.metrics import BLEU, CHRF

METRICS = {"bleu": BLEU, "chrf": CHRF}
SEED = 12345  # sacreBLEU's default SACREBLEU_SEED
LEVEL = 0.95
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


SCORE = {"bleu": bleu_from_stats, "chrf": chrf_from_stats}


class ReferenceCache:
    """sacreBLEU's reference n-grams of one test set, computed once for all the jobs that translated it."""

    def __init__(self, refs: Sequence[str]) -> None:
        self.n = len(refs)
        self.metrics = {}
        for key, make in METRICS.items():
            metric = make()
            metric._ref_cache = metric._cache_references([list(refs)])
            self.metrics[key] = metric

    def stats(self, hyps: Sequence[str]) -> "SentenceStats":
        if len(hyps) != self.n:
            raise ValueError(f"{len(hyps)} hypotheses but {self.n} references")
        return SentenceStats({key: np.asarray(m._extract_corpus_statistics(list(hyps), None), dtype=np.float64)
                              .reshape(len(hyps), -1) for key, m in self.metrics.items()})


class SentenceStats:
    """Per-sentence sufficient statistics of hypotheses against one reference each, for BLEU and chrF."""

    def __init__(self, stats: dict[str, np.ndarray]) -> None:
        self.stats = stats  # metric -> (n, k)

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
    return SCORE[key](counts @ summed(stats, key, groups.ids, groups.count))


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


# -- Student's t without scipy -----------------------------------------------------------------------------------
def t_two_sided_p(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's t with integer df (Abramowitz & Stegun 26.7.3-4, exact)."""
    theta = math.atan(abs(t) / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2:
        term, series = math.cos(theta), 0.0
        for k in range(1, (df - 1) // 2 + 1):
            series += term
            term *= c2 * (2 * k) / (2 * k + 1)
        inside = (2 / math.pi) * (theta + s * series) if df > 1 else 2 * theta / math.pi
    else:
        term, series = 1.0, 0.0
        for k in range(1, df // 2 + 1):
            series += term
            term *= c2 * (2 * k - 1) / (2 * k)
        inside = s * series
    return min(1.0, max(0.0, 1.0 - inside))


def t_quantile(df: int, level: float = LEVEL) -> float:
    """q with P(|T| <= q) = level (e.g. 12.706 for df=1, 4.303 for df=2), by bisection."""
    low, high = 0.0, 1e6
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if t_two_sided_p(mid, df) > 1 - level else (low, mid)
    return (low + high) / 2


def seed_t_interval(deltas: Sequence[float], sentence_se: float = 0.0, level: float = LEVEL
                    ) -> tuple[float, float, float, float]:
    """(mean, low, high, p) of per-seed deltas (≥ 2): mean ± t(df)·SE with SE² = s²/S + sentence_se², p from t.
    df: Welch–Satterthwaite, the seed part having S − 1 degrees of freedom and the bootstrap part (thousands of
    samples) practically infinitely many: df = SE⁴ / ((s²/S)² / (S − 1)), S − 1 when the test set adds nothing,
    large (the normal quantile) when the seeds agree exactly."""
    s = len(deltas)
    mean = float(np.mean(deltas))
    seed_var = float(np.var(deltas, ddof=1)) / s
    se = math.sqrt(seed_var + sentence_se ** 2)
    df = MAX_DF if seed_var == 0 else min(MAX_DF, int(se ** 4 / (seed_var ** 2 / (s - 1))))
    q = t_quantile(df, level)
    p = (1.0 if mean == 0 else 0.0) if se == 0 else t_two_sided_p(mean / se, df)
    return mean, mean - q * se, mean + q * se, p


# -- comparisons ----------------------------------------------------------------------------------------------------
@dataclass
class Difference:
    """Δ of one metric, system minus baseline, with its 95% interval and p for "no difference"."""

    delta: float
    low: float
    high: float
    p: float
    per_seed: list[float] = field(default_factory=list)
    std: Optional[float] = None         # standard deviation of the per-seed deltas (None with one seed)
    method: str = ""

    def as_dict(self, key: str, prefix: str = "") -> dict:
        """{delta_<prefix><key>, its _low, _high, _std, _seeds, p_<prefix><key>, test_<prefix><key>}."""
        name = f"{prefix}{key}"
        return {f"delta_{name}": round(self.delta, 2), f"delta_{name}_low": round(self.low, 2),
                f"delta_{name}_high": round(self.high, 2), f"p_{name}": round(self.p, 6),
                f"delta_{name}_std": None if self.std is None else round(self.std, 2),
                f"delta_{name}_seeds": [round(d, 2) for d in self.per_seed], f"test_{name}": self.method}


def difference_from_samples(observed: list[float], samples: np.ndarray) -> Difference:
    """observed: Δ per seed; samples (S, B): Δ per seed on each group resample (the same resamples for all)."""
    mean_samples = samples.mean(0)  # (B,) seed-mean Δ per resample
    delta = float(np.mean(observed))
    if len(observed) == 1:
        b = samples.shape[1]
        if delta == 0:
            p = 1.0  # sacreBLEU's (1 + 0) / (B + 1) would read as significant
        else:
            diffs = np.abs(mean_samples)  # sacreBLEU: |Δ*| shifted to mean 0, beyond the observed |Δ|
            p = (1 + int((diffs - diffs.mean() > abs(delta)).sum())) / (b + 1)
        low, high = np.percentile(mean_samples, [2.5, 97.5])
        return Difference(delta, float(low), float(high), p, observed, None,
                          f"paired group bootstrap, {b} samples")
    _, low, high, p = seed_t_interval(observed, float(mean_samples.std(ddof=1)))
    return Difference(delta, low, high, p, observed, float(np.std(observed, ddof=1)),
                      f"t over {len(observed)} seeds (df={len(observed) - 1}) with test-set bootstrap variance")


def compare(baselines: list[SentenceStats], systems: list[SentenceStats], groups: Groups, samples: int,
            seed: int = SEED) -> dict[str, Difference]:
    """Each system against the baseline of its seed (same index), all on the same sentences -> {metric: Δ}."""
    if not systems or len(baselines) != len(systems):
        raise ValueError(f"paired test needs one baseline per seed: {len(baselines)} baselines, {len(systems)} systems")
    for base, system in zip(baselines, systems):
        if not len(base) == len(system) == len(groups.ids):
            raise ValueError(f"paired test needs the same sentences: baseline {len(base)}, system {len(system)}, "
                             f"groups {len(groups.ids)}")
    counts = group_counts(groups.count, samples, seed)
    out = {}
    for key in METRICS:
        observed = [s.score(key) - b.score(key) for b, s in zip(baselines, systems)]
        resampled = np.stack([resampled_scores(s, key, groups, counts) - resampled_scores(b, key, groups, counts)
                              for b, s in zip(baselines, systems)])
        out[key] = difference_from_samples(observed, resampled)
    return out


def interaction(baselines: list[SentenceStats], systems: list[SentenceStats], groups: Groups,
                first: Sequence[int], second: Sequence[int], samples: int, seed: int = SEED
                ) -> dict[str, Difference]:
    """Δ(second sentences) − Δ(first sentences), e.g. Δ_long − Δ_short, with its own interval: the groups of the
    whole test set are resampled once and both subsets are scored on the same sample."""
    counts = group_counts(groups.count, samples, seed)
    out = {}
    for key in METRICS:
        observed, resampled = [], []
        for base, system in zip(baselines, systems):
            parts = []
            for indices in (second, first):
                sub_b, sub_s = base.subset(indices), system.subset(indices)
                ids = groups.ids[list(indices)]  # numbered as in the whole set: one draw matrix for both subsets
                parts.append((sub_s.score(key) - sub_b.score(key),
                              SCORE[key](counts @ summed(sub_s, key, ids, groups.count))
                              - SCORE[key](counts @ summed(sub_b, key, ids, groups.count))))
            observed.append(parts[0][0] - parts[1][0])
            resampled.append(parts[0][1] - parts[1][1])
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
    """"p=0.042"; "p < 0.001" below a thousandth (the bootstrap floor 1/(B+1) included)."""
    if p is None:
        return "p=–"
    return "p < 0.001" if p < 0.001 or (samples and p <= 1 / (samples + 1)) else f"p={p:.3f}"
