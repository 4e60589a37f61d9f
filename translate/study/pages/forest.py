"""The results at a glance: a forest plot of every deciding Δ of the claims and the controls with its 95% interval,
the ±margin band of "about the same" shaded; one panel per unit (BLEU, then each alignment metric), the point
coloured by the half's word (hollow: a comparison of one seed, exploratory)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402

from translate.study.verdicts.verdict import CONTRADICTED, HOLDS, Reading, Verdict  # noqa: E402
from translate.analysis.sweep.rules import EXPLORATORY  # noqa: E402

FOREST = "forest.png"
COLOURS = {HOLDS: "tab:green", CONTRADICTED: "tab:red"}   # anything else: grey


def forest_entries(verdicts: list[Verdict]) -> list[tuple[str, Reading]]:
    """(label, reading) of every reading with a Δ, claims first, in page order: "(b) long: `long_test`, trained on
    words 11-17"; a control: "control zero_low_dims: `test`, ..."."""
    out = []
    for verdict in verdicts:
        name = verdict.claim.split(")")[0] + ")" if verdict.claim.startswith("(") else \
            "control " + verdict.control
        for half in verdict.halves:
            out += [(f"{name} {half.name}: {r.label}", r) for r in half.readings if r.delta is not None]
        out += [(f"{name}: {r.label}", r) for r in verdict.shown if r.delta is not None]
    return out


def forest_plot(entries: list[tuple[str, Reading]], margin: float) -> Optional[Figure]:
    units = list(dict.fromkeys(r.unit for _, r in entries))
    if not units:
        return None
    rows = {unit: [(label, r) for label, r in entries if r.unit == unit] for unit in units}
    heights = [len(rows[unit]) + 1 for unit in units]
    fig = Figure(figsize=(10, 0.4 * sum(heights) + 1.0 * len(units)), layout="constrained")
    axes = fig.subplots(len(units), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, unit in zip(axes, units):
        shown = rows[unit]
        ys = list(range(len(shown)))[::-1]
        if unit == "BLEU":
            ax.axvspan(-margin, margin, color="0.9", zorder=0)
        ax.axvline(0, color="0.4", linewidth=0.8)
        for y, (label, r) in zip(ys, shown):
            colour = COLOURS.get(r.word, "0.45")
            ax.errorbar(r.delta, y, xerr=[[r.delta - r.low], [r.high - r.delta]], fmt="o", color=colour, capsize=3,
                        markerfacecolor="white" if r.word == EXPLORATORY else colour)
        ax.set_yticks(ys, [f"{label} ({r.word})" for label, r in shown], fontsize=8)
        ax.set_xlabel(f"Δ BLEU against sinusoidal PE, 95% interval; grey: ±{margin:g}, \"about the same\"; "
                      "hollow: one seed" if unit == "BLEU" else f"Δ {unit} (no PE minus sinusoidal), 95% interval")
    return fig


def write_forest(verdicts: list[Verdict], out_dir: Path, margin: float) -> Optional[str]:
    """Writes out_dir/forest.png; its file name, or None when no Δ is there to draw."""
    fig = forest_plot(forest_entries(verdicts), margin)
    if fig is None:
        return None
    fig.savefig(out_dir / FOREST, dpi=110, metadata={"Software": None})
    return FOREST
