"""What the models know of position, on the results page: each run's position probe (report.position_probe,
translate/analysis/run/position_probe.py) per setting, layer and length bucket of the probed sentences.

Descriptive, with no verdict (docs/preregistration.md): the accuracy of a linear probe on the tokens it was not
fitted on, averaged over the seeds (with the range over seeds; one seed: its bootstrap interval over sentences),
beside the accuracy of always guessing a bucket's most common position. The source note explains claim (b) by "the
model learns position by itself on short sentences"; the maths decides part of it: a no-PE encoder is
permutation-equivariant and cannot tell positions apart beyond what a token's identity says, while a causal decoder
without PE can count.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from translate.analysis.sweep.jobs import Setting

EXPLANATION = ("The source note explains claim (b) by \"the model learns position by itself on short sentences\". A "
               "linear probe on each layer's frozen output predicts each token's position (from 0; the last class "
               "holds every later position), fitted on the tokens of the first 60% of the probed valid sentences and "
               "scored on the rest, per length bucket of the scored sentences. \"embedding\" is the token embedding "
               "alone, before any position enters: what a token's identity tells of its place. Expected where the "
               "maths decides it: a no-PE encoder is permutation-equivariant, so a token's state depends on the token "
               "and on which words share its sentence, never on where it stands (a token met twice in one sentence "
               "gets one state): its layers can guess a place only from those; a causal decoder without PE can count. "
               "Descriptive: no verdict.")


def accuracy_cell(cells: list[dict]) -> str:
    """The mean accuracy over seeds and their range; one seed: its 95% bootstrap interval over sentences."""
    values = [c["accuracy"] for c in cells if c.get("accuracy") is not None]
    if not values:
        return "–"
    if len(values) == 1:
        c = cells[0]
        interval = (f" [{c['accuracy_low']:.3f}, {c['accuracy_high']:.3f}]"
                    if c.get("accuracy_low") is not None else "")
        return f"{values[0]:.3f}{interval}"
    return f"{np.mean(values):.3f} ({min(values):.3f}–{max(values):.3f})"


def majority_cell(cells: list[dict]) -> str:
    values = [c["majority"] for c in cells if c.get("majority") is not None]
    return f"{np.mean(values):.3f}" if values else "–"


def setting_table(setting: Setting, results: list[dict]) -> list[str]:
    layers = list(results[0]["layers"])
    buckets = list(results[0]["layers"][layers[0]])
    sentences = {b: results[0]["layers"][layers[0]][b]["sentences"] for b in buckets}
    seeds = len(results)
    lines = [f"**{setting.label}** ({seeds} seed{'s' * (seeds != 1)}, {results[0]['sentences']} valid sentences "
             f"probed, fitted on the first {results[0]['trained_on']})", "",
             "| layer | " + " | ".join(f"{b} words (n={sentences[b]})" for b in buckets) + " |",
             "|---|" + "--:|" * len(buckets)]
    for layer in layers:
        lines.append(f"| {layer} | " + " | ".join(
            accuracy_cell([r["layers"].get(layer, {}).get(b, {}) for r in results]) for b in buckets) + " |")
    lines.append("| always the most common position | " + " | ".join(
        majority_cell([r["layers"][layers[0]][b] for r in results]) for b in buckets) + " |")
    return lines + [""]


def probe_lines(settings: list[Setting], heading: Optional[str] = "## Why: what the models know of position"
                ) -> list[str]:
    """The section: one table per setting whose runs recorded a probe; [] when none did."""
    probed = [(s, [job.metrics.position_probe for job in s.jobs if job.metrics and job.metrics.position_probe])
              for s in settings]
    probed = [(s, results) for s, results in probed if results]
    if not probed:
        return []
    lines = ([heading, ""] if heading else []) + [EXPLANATION, ""]
    for setting, results in probed:
        lines += setting_table(setting, results)
    return lines + ["Cells: accuracy on the held-out tokens, the mean over seeds (their range); with one seed, its 95% "
                    "bootstrap interval over sentences.", ""]
