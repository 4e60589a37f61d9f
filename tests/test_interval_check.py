"""The seed interval checked by simulation: data with known seed and test-set variance, S = 2, 3, 5 and 11, each
variance large and small; the 95% interval covers the true Δ in 93–97% of draws and TOST calls a Δ as large as the
margin "about the same" in at most 5%, each up to the simulation's own error (a one-sided 99% allowance for DRAWS
draws); the procedure it replaced fails the same check. docs/sweeps.md has the table at 20,000 draws a regime."""
from __future__ import annotations

import math

import pytest

from translate.analysis.sweep.interval_check import PROCEDURES, Regime, regimes, simulate

DRAWS, RESAMPLES = 3000, 1000
# one-sided 99% allowance for the simulation's own error in a rate of 5% (or 95%) over DRAWS draws
SLACK = 2.33 * math.sqrt(0.05 * 0.95 / DRAWS)


@pytest.mark.parametrize("regime", regimes(), ids=lambda r: f"S{r.seeds}-seed{r.seed_sd}-shared{r.shared_sd}")
def test_the_seed_interval_covers_the_true_difference(regime: Regime):
    rates = simulate(regime, {"current": PROCEDURES["current"]}, DRAWS, RESAMPLES, seed=regime.seeds)["current"]
    assert 0.93 - SLACK <= rates.covered <= 0.97 + SLACK, rates
    assert rates.false_same <= 0.05 + SLACK, rates


def test_the_check_fails_the_procedure_it_replaced():
    """Two seeds whose spread dominates: the old interval (test-set noise counted twice, its df raised by it)
    covers well under 93%; a paired t over seeds that leaves the shared test-set noise out fails when it dominates."""
    seed_dominated = simulate(Regime(2, 1.0, 0.1, 0.05), PROCEDURES, DRAWS, RESAMPLES, seed=1)
    assert seed_dominated["previous"].covered < 0.90 and seed_dominated["current"].covered >= 0.93 - SLACK
    shared_dominated = simulate(Regime(5, 0.1, 1.0, 0.5), PROCEDURES, DRAWS, RESAMPLES, seed=2)
    assert shared_dominated["paired t"].covered < 0.6 and shared_dominated["planned"].covered > 0.98
