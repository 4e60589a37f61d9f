"""Print the coverage tables of docs/sweeps.md: how often each seed-interval procedure's 95% interval holds the true Δ,
and how often its TOST calls a Δ as large as the margin "about the same"; then how often the contrast of two
training groups' Δs holds the true difference; on data with known seed and test-set variance
(translate/analysis/sweep/interval_check.py).

    python scripts/check_intervals.py [--draws 20000] [--table seed|contrast]
"""
from __future__ import annotations

import argparse

from translate.analysis.sweep.interval_check import (PROCEDURES, contrast_regimes, regimes, simulate,
                                                     simulate_contrast)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--draws", type=int, default=20000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--table", choices=("seed", "contrast"), help="print only this table")
    args = parser.parse_args()
    if args.table != "contrast":
        seed_table(args.draws, args.resamples)
    if args.table != "seed":
        contrast_table(args.draws, args.resamples)


def seed_table(draws: int, resamples: int) -> None:
    names = list(PROCEDURES)
    print(f"{draws:,} draws a regime, {resamples:,} resamples a draw; "
          "cells: 95% coverage / false \"about the same\"\n")
    print("| seeds | seed SD | shared test-set SD | " + " | ".join(names) + " |")
    print("|--:|--:|--:|" + "--:|" * len(names))
    for regime in regimes():
        rates = simulate(regime, PROCEDURES, draws, resamples, seed=regime.seeds)
        cells = " | ".join(f"{rates[n].covered:.1%} / {rates[n].false_same:.1%}" for n in names)
        print(f"| {regime.seeds} | {regime.seed_sd} | {regime.shared_sd} | {cells} |", flush=True)


def contrast_table(draws: int, resamples: int) -> None:
    print(f"\nThe contrast of two groups: {draws:,} draws a pair, {resamples:,} resamples a draw; "
          "cell: 95% coverage\n")
    print("| seeds a group | first group: seed SD, shared SD | second group: seed SD, shared SD | coverage |")
    print("|--:|--:|--:|--:|")
    for first, second in contrast_regimes():
        covered = simulate_contrast(first, second, draws, resamples, seed=first.seeds)
        print(f"| {first.seeds} | {first.seed_sd}, {first.shared_sd} | {second.seed_sd}, {second.shared_sd} | "
              f"{covered:.1%} |", flush=True)


if __name__ == "__main__":
    main()
