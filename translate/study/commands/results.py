"""Write docs/results.md (and the README's claims block) from the claims' runs.

Turn the claims' sweeps (a folder of sweep folders, such as docs/results/runs/claims_cpu, whose jobs are read as one
sweep) or one sweep folder into docs/results.md: its tables, plots, a few attention maps and what the numbers say
about the source notes' three claims.

    python -m translate.study results docs/results/runs/claims_cpu [--out docs/results.md] [--pilots PILOT_DIR ...]
        [--readme README.md] [--plan docs/preregistration.md] [--silver-check docs/results/silver_against_gold.json]

The sweep's report (python -m translate.report SWEEP_DIR) is written first when it is missing.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from translate.study.commands.page_writing import add_page_arguments, write_page
from translate.study.pages.results import write_results_page


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sweep_dir", type=Path,
                        help="a folder of claim sweeps, one subfolder each (docs/results/runs/claims_cpu), or one "
                             "sweep folder (docs/results/runs/seed_repro_cpu)")
    add_page_arguments(parser, Path("docs/results.md"))
    parser.add_argument("--pilots", type=Path, nargs="+", action="extend", default=[],
                        help="the pilot folders that set the jobs' step budgets (e.g. docs/results/runs/"
                             "claims_cpu_pilot): the page shows their plateaus beside the steps the jobs were "
                             "tested at")
    parser.add_argument("--plan", type=Path, default=None,
                        help="the analysis plan the verdicts follow (docs/preregistration.md): the page quotes its "
                             "history of the runs and its departures")
    parser.add_argument("--silver-check", type=Path, default=None,
                        help="eflomal's AER against the human gold alignment (docs/results/silver_against_gold.json, "
                             "from scripts/silver_against_gold.py): the page says how good the silver links are")


def run(args: argparse.Namespace) -> int:
    return write_page(lambda: write_results_page(args.sweep_dir, args.out, readme=args.readme,
                                                   pilots=args.pilots, plan=args.plan,
                                                   silver_check=args.silver_check))

