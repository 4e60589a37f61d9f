"""Score against length bucket: one line per positional encoding (with its ablation), one panel per other group
(e.g. the training lengths), error bars from the table's intervals."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402

from translate.report.aggregate import ALL  # noqa: E402

PLOTS = (("bleu", "BLEU", "bleu_by_length.png"), ("diagonal_share", "cross-attention diagonal share",
                                                    "diagonal_share_by_length.png"))


def line_plot(rows: list[dict], key: str, ylabel: str) -> Optional[Figure]:
    """None when no row has `key` per bucket (e.g. runs without a length report)."""
    rows = [r for r in rows if r["bucket"] != ALL and r.get(key) is not None]
    if not rows:
        return None
    buckets = []
    for r in sorted(rows, key=lambda r: (r["low"] is None, r["low"] or 0)):
        if r["bucket"] not in [b for b, _ in buckets]:
            buckets.append((r["bucket"], r["sentences"]))
    position = {b: i for i, (b, _) in enumerate(buckets)}
    groups = sorted({r["group"] for r in rows})
    pes = sorted({r["pe"] for r in rows})
    colour = {pe: f"C{i % 10}" for i, pe in enumerate(pes)}  # the same encoding has the same colour in every panel
    fig = Figure(figsize=(5.5 * len(groups), 4.2), layout="constrained")
    axes = fig.subplots(1, len(groups), squeeze=False, sharey=True)[0]
    for ax, group in zip(axes, groups):
        for pe in sorted({r["pe"] for r in rows if r["group"] == group}):
            line = sorted((r for r in rows if r["group"] == group and r["pe"] == pe), key=lambda r: position[
                r["bucket"]])
            x = [position[r["bucket"]] for r in line]
            y = [r[key] for r in line]
            low = [r.get(f"{key}_low") for r in line]
            high = [r.get(f"{key}_high") for r in line]
            if all(v is not None for v in low + high):
                errors = [[v - lo for v, lo in zip(y, low)], [hi - v for v, hi in zip(y, high)]]
                ax.errorbar(x, y, yerr=errors, marker="o", capsize=3, label=pe, color=colour[pe])
            else:
                ax.plot(x, y, marker="o", label=pe, color=colour[pe])
        shade_training_lengths(ax, [r for r in rows if r["group"] == group], position)
        ax.set_xticks(range(len(buckets)), [f"{b}\n(n={n})" for b, n in buckets], fontsize=8)
        ax.set_xlabel("source length (words)")
        ax.set_title(group or "all jobs", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].set_ylabel(ylabel)
    return fig


def shade_training_lengths(ax, rows: list[dict], position: dict[str, int]) -> None:
    """Grey behind the buckets that hold sentence lengths the models were trained on (when training was filtered)."""
    spans = {r["train_words"] for r in rows}
    if len(spans) != 1 or spans == {"all"}:
        return
    low, _, high = next(iter(spans)).rstrip("+").partition("-")
    low, high = int(low), int(high) if high else None
    for r in rows:
        if (high is None or r["low"] <= high) and (r["high"] is None or r["high"] >= low):
            ax.axvspan(position[r["bucket"]] - 0.5, position[r["bucket"]] + 0.5, color="0.9", zorder=0)


def write_plots(rows: list[dict], out_dir: Path) -> list[tuple[str, str]]:
    """The PNGs written, as (title, file name) for the markdown."""
    written = []
    for key, label, name in PLOTS:
        fig = line_plot(rows, key, label)
        if fig is not None:
            fig.savefig(out_dir / name, dpi=120)
            written.append((f"{label} by length", name))
    return written
