"""The dropout a comparison keeps, from its pilots at two or more dropouts.

    python -m translate.study dropout sweeps/claim_a_long_cpu_pilot sweeps/claim_a_long_cpu_pilot_dropout

Where a comparison's first pilots overfit before their valid BLEU plateau (valid loss lowest well before the best
valid BLEU), the analysis plan pilots the same settings again at a larger dropout, each dropout in a folder of its
own. The dropout kept is the one whose pilots have the higher best valid BLEU, over the settings piloted at every
dropout; each of those pilots must have reached its plateau. The first folder's dropout is kept on a tie. Prints the
choice as JSON ({"model.dropout": 0.3, "pilots": "<its folder>"}: the comparison's budget comes from that folder's
pilots) and the figures it was made on.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from translate.analysis.sweep.jobs import SweepError
from translate.study.verdicts.pilots import kept_dropout


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pilot_dirs", type=Path, nargs="+",
                        help="one folder of pilots per dropout, the plan's default first")


def run(args: argparse.Namespace) -> int:
    if len(args.pilot_dirs) < 2:
        print("error: give two or more folders of pilots, one per dropout", file=sys.stderr)
        return 2
    try:
        choice = kept_dropout(args.pilot_dirs)
    except SweepError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"best valid BLEU: {choice.reason()}")
    print(json.dumps({"model.dropout": choice.dropout, "pilots": str(choice.pilot_dir)}))
    return 0
