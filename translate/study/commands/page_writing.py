"""What the page commands share: the page and README arguments, and how a command ends: write the page, say where
it and its pictures went; a sweep that cannot make one is exit code 2 with the reason."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

from translate.analysis.sweep.jobs import SweepError


def add_page_arguments(parser: argparse.ArgumentParser, out: Path) -> None:
    """--out (the page; its pictures go to a folder of the same name) and --readme (the README block it rewrites)."""
    parser.add_argument("--out", type=Path, default=out,
                        help=f"the page to write; its pictures go to a folder of the same name ({out.with_suffix('')}/)")
    parser.add_argument("--readme", type=Path, default=None,
                        help="also rewrite this README's generated results block (make repro and make "
                             "encodings-page pass README.md)")


def write_page(write: Callable[[], Path]) -> int:
    try:
        out = write()
    except SweepError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {out} and {out.with_suffix('')}/")
    return 0
