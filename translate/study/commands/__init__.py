"""The study's steps, one module each, run as `python -m translate.study COMMAND [ARGS]`. Each module has a
docstring (its help), `add_arguments(parser)` and `run(args) -> int` (0 done, 1 done in part, 2 nothing done)."""
from __future__ import annotations

from translate.study.commands import (ablate_at_test, collect, default_run, dropout, encodings, pilots,
                                      pin_alignments, restore, results)

COMMANDS = {
    "results": results,
    "encodings": encodings,
    "default-run": default_run,
    "collect": collect,
    "restore": restore,
    "pilots": pilots,
    "dropout": dropout,
    "ablate-at-test": ablate_at_test,
    "pin-alignments": pin_alignments,
}
