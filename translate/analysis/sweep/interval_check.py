"""How often a seed interval covers the true Δ: a simulation with known seed and test-set variance.

Each draw is one comparison over S seeds on one test set. Δ_s = μ + a_s + b + e_s: a_s the seed's effect (SD
`seed_sd`), b the test-set noise every seed shares because all translate the same sentences (SD `shared_sd`), e_s the
seed's own test-set noise (SD `own_sd`). The group bootstrap of the report is drawn as it behaves: resample j moves
every seed by the same b*_j and each by its own e*_sj, so row s of the (S, B) resamples is Δ_s + b*_j + e*_sj.

Two rates per procedure: `covered`, the share of draws whose 95% interval holds μ; `false_same`, the share whose 90%
interval lies inside ±margin when μ is the margin itself (TOST's false "about the same"; margin = 3 true SEs, where
TOST is at its most liberal). The procedures are location-equivariant, so one interval per draw gives both.

PROCEDURES: the one the report uses (significance.seed_t_interval through difference_from_samples) and the ones it
replaced or was planned with, kept here only to be compared with it.

The contrast of two comparisons on different jobs and sentences (significance.independent_contrast: Δ_long of one
training group minus Δ_short of another, seeds not paired) is checked the same way (`simulate_contrast`): each group
drawn from its own regime, the contrast's 95% interval scored for holding the true difference. The within-model
interaction Δ_long − Δ_short, paired by seed, needs no check of its own: its per-seed values and resamples have the
form above (the two test sets' shared and own noises add), and difference_from_samples reads them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from translate.analysis.significance import (EQUIVALENCE_LEVEL, LEVEL, MAX_DF, difference_from_samples,
                                             independent_contrast, sentence_noise, t_quantile)

# (per-seed Δs (S,), resamples (S, B)) -> (low, high) of the 95% interval, (low, high) of the 90% one
Procedure = Callable[[np.ndarray, np.ndarray], tuple[float, float, float, float]]


def current(observed: np.ndarray, samples: np.ndarray) -> tuple[float, float, float, float]:
    """The report's procedure: SE² = s²/S + shared², df = significance.seed_df."""
    d = difference_from_samples(list(observed), samples)
    return d.low, d.high, d.low90, d.high90


def _t_interval(observed: np.ndarray, extra_var: float, df: float) -> tuple[float, float, float, float]:
    mean = float(observed.mean())
    se = math.sqrt(float(observed.var(ddof=1)) / len(observed) + extra_var)
    q, q90 = t_quantile(df, LEVEL) * se, t_quantile(df, EQUIVALENCE_LEVEL) * se
    return mean - q, mean + q, mean - q90, mean + q90


def previous(observed: np.ndarray, samples: np.ndarray) -> tuple[float, float, float, float]:
    """What the report did before: SE² = s²/S + the bootstrap variance of the seed-mean Δ (the seeds' own test-set
    noise counted a second time), Welch–Satterthwaite df with that variance taken as exact."""
    seeds = len(observed)
    seed_var, boot_var = float(observed.var(ddof=1)) / seeds, float(samples.mean(0).var(ddof=1))
    df = MAX_DF if seed_var == 0 else min(MAX_DF, (seed_var + boot_var) ** 2 / (seed_var ** 2 / (seeds - 1)))
    return _t_interval(observed, boot_var, df)


def planned(observed: np.ndarray, samples: np.ndarray) -> tuple[float, float, float, float]:
    """The analysis plan's first choice: SE² = s²/S + shared², df = S − 1."""
    shared = sentence_noise(samples)[1]
    return _t_interval(observed, shared ** 2, len(observed) - 1)


def paired_t(observed: np.ndarray, samples: np.ndarray) -> tuple[float, float, float, float]:
    """The plan's fallback: a paired t over seeds, the shared test-set noise left out, df = S − 1."""
    return _t_interval(observed, 0.0, len(observed) - 1)


PROCEDURES: dict[str, Procedure] = {"previous": previous, "planned": planned, "paired t": paired_t,
                                    "current": current}


@dataclass(frozen=True)
class Regime:
    seeds: int
    seed_sd: float
    shared_sd: float
    own_sd: float

    @property
    def true_se(self) -> float:
        """SD of the seed-mean Δ over draws."""
        return math.sqrt((self.seed_sd ** 2 + self.own_sd ** 2) / self.seeds + self.shared_sd ** 2)


@dataclass(frozen=True)
class Rates:
    covered: float      # share of 95% intervals that hold μ
    false_same: float   # share of 90% intervals inside ±margin when μ = margin


def draw(rng: np.random.Generator, regime: Regime, resamples: int) -> tuple[np.ndarray, np.ndarray]:
    """One comparison of `regime` with μ = 0: (per-seed Δs (S,), their group resamples (S, B))."""
    observed = (rng.normal(0, regime.seed_sd, regime.seeds) + rng.normal(0, regime.shared_sd)
                + rng.normal(0, regime.own_sd, regime.seeds))
    samples = (observed[:, None] + rng.normal(0, regime.shared_sd, resamples)[None]
               + rng.normal(0, regime.own_sd, (regime.seeds, resamples)))
    return observed, samples


def simulate(regime: Regime, procedures: dict[str, Procedure], draws: int, resamples: int, seed: int
             ) -> dict[str, Rates]:
    """Draw `draws` comparisons of `regime` (μ = 0) and score each procedure on the same draws."""
    rng = np.random.default_rng(seed)
    margin = 3 * regime.true_se
    covered = dict.fromkeys(procedures, 0)
    same = dict.fromkeys(procedures, 0)
    for _ in range(draws):
        observed, samples = draw(rng, regime, resamples)
        for name, procedure in procedures.items():
            low, high, low90, high90 = procedure(observed, samples)
            covered[name] += low <= 0 <= high
            same[name] += -margin < low90 + margin and high90 + margin < margin   # the truth moved to +margin
    return {name: Rates(covered[name] / draws, same[name] / draws) for name in procedures}


def regimes(seeds: tuple[int, ...] = (2, 3, 5, 11), small: float = 0.1, large: float = 1.0) -> list[Regime]:
    """Every seed count with the seed SD large and the shared test-set SD small, both alike, and the other way round
    (only their ratio matters: every procedure here scales with the data); a seed's own test-set noise half the
    shared part."""
    pairs = ((large, small), (large, large), (small, large))
    return [Regime(s, seed_sd, shared_sd, shared_sd / 2) for s in seeds for seed_sd, shared_sd in pairs]


def simulate_contrast(first: Regime, second: Regime, draws: int, resamples: int, seed: int) -> float:
    """The share of draws whose contrast interval (independent_contrast of the two groups' Differences, true
    difference 0) holds 0."""
    rng = np.random.default_rng(seed)
    covered = 0
    for _ in range(draws):
        first_delta, second_delta = (difference_from_samples(list(observed), samples)
                                     for observed, samples in (draw(rng, first, resamples),
                                                               draw(rng, second, resamples)))
        contrast = independent_contrast(first_delta, second_delta)
        covered += contrast.low <= 0 <= contrast.high
    return covered / draws


def contrast_regimes(seeds: tuple[int, ...] = (2, 3, 5), small: float = 0.1, large: float = 1.0
                     ) -> list[tuple[Regime, Regime]]:
    """Pairs of groups with the same seed count (as the comparisons run them): both dominated by their seeds, both
    alike, both by the test set, and one of each (where the two seed variances' weights in the df differ most)."""
    seed_led, alike, shared_led = (large, small), (large, large), (small, large)
    pairs = ((seed_led, seed_led), (alike, alike), (shared_led, shared_led), (seed_led, shared_led))
    return [(Regime(s, a[0], a[1], a[1] / 2), Regime(s, b[0], b[1], b[1] / 2)) for s in seeds for a, b in pairs]
