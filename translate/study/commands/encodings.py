"""Write docs/encodings_results.md (and the README's encodings block) from an encodings sweep.

Turn an encodings sweep (and, if given, a length_extrapolation sweep) into docs/encodings_results.md: the
encodings ranked by BLEU, BLEU per length bucket, the sweep reports' plots, and each encoding's rank per bucket when
trained on short sentences only.

    python -m translate.study encodings sweeps/encodings --extrapolation sweeps/length_extrapolation \\
        [--published docs/results/runs/extrapolation_published_cpu] [--out docs/encodings_results.md] \\
        [--longer-inputs docs/results/runs/length_extrapolation_longer_cpu]

A sweep's report (python -m translate.report SWEEP_DIR) is written first when it is missing.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from translate.study.pages.encodings import write_encodings_page
from translate.study.commands.page_writing import add_page_arguments, write_page


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sweep_dir", type=Path, help="an encodings sweep folder, e.g. sweeps/encodings")
    parser.add_argument("--extrapolation", type=Path, default=None,
                        help="a length_extrapolation sweep folder, e.g. sweeps/length_extrapolation")
    parser.add_argument("--published", type=Path, default=None,
                        help="a folder of encodings trained like the claims' short group, with its sinusoidal and "
                             "no-PE jobs (make extrapolation-published): the section against published results")
    parser.add_argument("--longer-inputs", type=Path, default=None,
                        help="the encodings for longer inputs trained like the length_extrapolation jobs, with "
                             "sinusoidal and RoPE beside them (make longer-inputs): their section, exploratory")
    add_page_arguments(parser, Path("docs/encodings_results.md"))


def run(args: argparse.Namespace) -> int:
    return write_page(lambda: write_encodings_page(args.sweep_dir, args.out, args.extrapolation, readme=args.readme,
                                                          published_dir=args.published,
                                                          longer_dir=args.longer_inputs))

