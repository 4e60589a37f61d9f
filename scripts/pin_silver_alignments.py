"""Pin the silver word links of a comparison's runs: align once (or take this checkout's cached links) and write them
to data/silver/, to be committed, so that every job of the comparison scores its AER against the same links wherever
and whenever it trains. eflomal takes no seed, so links aligned afresh in another checkout differ slightly.

    python scripts/pin_silver_alignments.py '+sweep=[claims_cpu]' +sweep/train_words=under_10_same_size

The overrides are a run's, as the sweep gives them to one job: the links depend on the run's train split (what the
aligner learns from), its valid split and its test sets, so pin once per training group of a comparison. A file
pinned before is kept as it is.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package, whatever is installed

from translate.analysis.run.alignment_error import aligned_groups  # noqa: E402
from translate.assembly.compose import compose  # noqa: E402
from translate.assembly.settings import validate_config  # noqa: E402
from translate.data.pipeline import cache_dir, prepare_data  # noqa: E402
from translate.data.silver_alignments import PINNED_DIR, pin_alignments  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("overrides", nargs="+", help="a run's Hydra overrides, e.g. '+sweep=[claims_cpu]'")
    parser.add_argument("--pinned-dir", type=Path, default=PINNED_DIR, help=f"where to pin (default: {PINNED_DIR})")
    args = parser.parse_args(argv)
    settings = validate_config(compose(*args.overrides))
    train, groups = aligned_groups(prepare_data(settings.data, test_sets=settings.eval.specs))
    pinned = pin_alignments(train, groups, cache_dir(settings.data), args.pinned_dir)
    print(f"pinned: {pinned} ({len(train)} training pairs, {sum(map(len, groups))} pairs aligned)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
