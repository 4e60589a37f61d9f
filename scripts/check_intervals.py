"""Print the coverage table of docs/sweeps.md: how often each seed-interval procedure's 95% interval holds the true Δ,
and how often its TOST calls a Δ as large as the margin "about the same", on data with known seed and test-set
variance (translate/analysis/sweep/interval_check.py).

    python scripts/check_intervals.py [--draws 20000]
"""
from __future__ import annotations

import argparse

from translate.analysis.sweep.interval_check import PROCEDURES, regimes, simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--draws", type=int, default=20000)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    names = list(PROCEDURES)
    print(f"{args.draws:,} draws a regime, {args.resamples:,} resamples a draw; "
          "cells: 95% coverage / false \"about the same\"\n")
    print("| seeds | seed SD | shared test-set SD | " + " | ".join(names) + " |")
    print("|--:|--:|--:|" + "--:|" * len(names))
    for regime in regimes():
        rates = simulate(regime, PROCEDURES, args.draws, args.resamples, seed=regime.seeds)
        cells = " | ".join(f"{rates[n].covered:.1%} / {rates[n].false_same:.1%}" for n in names)
        print(f"| {regime.seeds} | {regime.seed_sd} | {regime.shared_sd} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
