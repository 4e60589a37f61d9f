"""BLEU against sentence length, one line per test set of a run, with the trained lengths shaded grey."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from translate.analysis.run.figures import new_figure

if TYPE_CHECKING:   # for annotations only: Matplotlib is imported where a figure is drawn (figures.new_figure)
    from matplotlib.figure import Figure


def bucket_centre(low: int, high: Optional[int]) -> float:
    """Where a bucket sits on a length axis: its middle; an open bucket (21+) at its lower end."""
    return low if high is None else (low + high) / 2


def bleu_curve(reports: dict[str, dict], trained: Optional[tuple[int, Optional[int]]] = None) -> Figure:
    """reports: test set name -> its `by_length`; trained: (low, high) French words of the training pairs when
    training was filtered by length (high None: no upper bound), shaded when the buckets count source words."""
    first = next(iter(reports.values()))
    fig, axes = new_figure(1, 1, 5.0, "BLEU by length, per test set")
    ax = axes[0, 0]
    for name, report in reports.items():
        points = [(bucket_centre(b["low"], b["high"]), b["bleu"]) for b in report["buckets"] if b["bleu"] is not None]
        if points:
            ax.plot(*zip(*points), marker="o", label=name)
    if trained and first["bucketed_by"] == "source_words":
        right = trained[1] + 0.5 if trained[1] is not None else ax.get_xlim()[1]
        ax.axvspan(trained[0] - 0.5, right, color="0.88", zorder=0, label="trained lengths")
    ax.set_xlabel(first["bucketed_by"].replace("_", " ") + " (bucket middle)")
    ax.set_ylabel("BLEU")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig
