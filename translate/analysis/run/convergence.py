"""Was a model still learning when it was scored? The slope of its valid BLEU over the last TREND_SHARE of the steps up
to the tested step, from the learning curve every run records (metrics.json `valid_curve`).

The window is a share of the run, not a fixed number of steps: a fixed window as long as a short run would fit the
first steep climb out of the random start, and call every short run "still rising" whatever its last validations do.

A Δ between two models scored at one step means "at this budget": when one of them is still rising and the other is
flat, more steps would shrink or grow the Δ, and the page says so beside it. The slope is an ordinary least-squares
fit of valid BLEU on step over the validations in the window (scipy.stats.linregress); its 95% interval and its p
come from the same t distribution (n − 2 degrees of freedom), and "still rising" means the whole interval is above 0.
Two validations give a slope and no interval (runs validated only twice, e.g. at half-way and at the end).
The validations score one fixed valid set, so their scatter is the model's own wobble from one validation to the
next, not sampling noise; the interval is a description of that wobble, not a test over sentences.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

TREND_SHARE = 0.5     # the last half of the steps up to the tested step: the validations the slope is fitted on
PER_STEPS = 1000      # the slope is given in valid BLEU per this many steps
MIN_POINTS = 2        # a line through two points has a slope but no interval


@dataclass(frozen=True)
class ValidTrend:
    """Valid BLEU per PER_STEPS steps over the validations from step `first` to step `last`."""

    slope: float
    low: Optional[float]    # 95% interval; None from two validations
    high: Optional[float]
    p: Optional[float]      # two-sided, slope = 0
    first: int
    last: int
    points: int

    @property
    def tested(self) -> bool:
        return self.low is not None

    @property
    def rising(self) -> bool:
        return self.low is not None and self.low > 0


def valid_trend(curve: Sequence[Sequence[float]], at_step: Optional[int],
                share: float = TREND_SHARE) -> Optional[ValidTrend]:
    """curve: [step, valid BLEU, valid loss] per validation (RunMetrics.valid_curve). None when the window holds
    fewer than MIN_POINTS validations (validation switched off, no tested step)."""
    if at_step is None:
        return None
    start = at_step * (1 - share)
    points = sorted((int(p[0]), float(p[1])) for p in curve
                    if start <= p[0] <= at_step and p[1] is not None)
    if len(points) < MIN_POINTS:
        return None
    steps, bleu = zip(*points)
    from scipy import stats   # here, not above: SciPy's stats take seconds to import (see scoring/word_order.py)
    fit = stats.linregress(steps, bleu)
    slope = float(fit.slope)
    if len(points) == 2:
        return ValidTrend(slope * PER_STEPS, None, None, None, steps[0], steps[-1], 2)
    half = float(stats.t.ppf(0.975, len(points) - 2) * fit.stderr)
    return ValidTrend(slope * PER_STEPS, (slope - half) * PER_STEPS, (slope + half) * PER_STEPS, float(fit.pvalue),
                      steps[0], steps[-1], len(points))
