"""Pin the silver word links of a comparison's runs in data/silver/.

Pin the silver word links of a comparison's runs: align once (or take this checkout's cached links) and write them
to data/silver/, to be committed, so that every job of the comparison scores its AER against the same links wherever
and whenever it trains. eflomal takes no seed, so links aligned afresh in another checkout differ slightly.

    python -m translate.study pin-alignments '+sweep=[claims_cpu]' +sweep/train_words=under_10_same_size

The overrides are a run's, as the sweep gives them to one job: the links depend on the run's train split (what the
aligner learns from), its valid split and its test sets, so pin once per training group of a comparison. A file
pinned before is kept as it is.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from translate.analysis.run.alignment_error import aligned_groups
from translate.assembly.compose import compose
from translate.assembly.settings import validate_config
from translate.data.pipeline import cache_dir, prepare_data
from translate.data.silver_alignments import PINNED_DIR, pin_alignments


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("overrides", nargs="+", help="a run's Hydra overrides, e.g. '+sweep=[claims_cpu]'")
    parser.add_argument("--pinned-dir", type=Path, default=PINNED_DIR, help=f"where to pin (default: {PINNED_DIR})")


def run(args: argparse.Namespace) -> int:
    settings = validate_config(compose(*args.overrides))
    train, groups = aligned_groups(prepare_data(settings.data, test_sets=settings.eval.specs))
    pinned = pin_alignments(train, groups, cache_dir(settings.data), args.pinned_dir)
    print(f"pinned: {pinned} ({len(train)} training pairs, {sum(map(len, groups))} pairs aligned)")
    return 0

