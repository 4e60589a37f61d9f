"""How a page command ends: write the page, say where it and its pictures went; a sweep that cannot make one is
exit code 2 with the reason."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

from translate.analysis.sweep.jobs import SweepError


def write_page(write: Callable[[], Path]) -> int:
    try:
        out = write()
    except SweepError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {out} and {out.with_suffix('')}/")
    return 0
