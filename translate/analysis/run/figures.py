"""Matplotlib (Agg, no pyplot state) figures rendered to images for TensorBoard."""
from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

if TYPE_CHECKING:   # Matplotlib itself is imported where a figure is made: it takes about a second to import, and
    # every command imports this module, a command that stops at a bad option included
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def title_inches(title: str) -> float:
    """Height kept free above the panels for a (wrapped) figure title."""
    return 0.17 * (title.count("\n") + 1) + 0.12 if title else 0.0


def new_figure(rows: int, cols: int, panel_inches: float, title: str = "") -> tuple[Figure, np.ndarray]:
    """A figure with a (rows, cols) array of axes and a wrapped title."""
    width = max(cols * panel_inches, 6.0)
    title = "\n".join(textwrap.fill(line, width=int(width * 13)) for line in title.split("\n")) if title else ""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, rows * panel_inches + title_inches(title)), dpi=80)
    FigureCanvasAgg(fig)
    axes = np.asarray(fig.subplots(rows, cols, squeeze=False))
    if title:
        fig.suptitle(title, fontsize=9, y=1.0, va="top")
    return fig, axes


def to_image(fig: Figure) -> np.ndarray:
    """(H, W, 3) uint8 RGB, for SummaryWriter.add_image(..., dataformats="HWC")."""
    top = 1.0 - title_inches(fig.get_suptitle()) / fig.get_figheight()
    fig.tight_layout(rect=(0.0, 0.0, 1.0, top))
    canvas = fig.canvas
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


def heatmap(ax: Axes, matrix: np.ndarray, x_labels: Optional[Sequence[str]] = None,
            y_labels: Optional[Sequence[str]] = None, title: str = "", vmin: Optional[float] = 0.0,
            vmax: Optional[float] = None, cmap: str = "viridis", colorbar: bool = True) -> None:
    """matrix (rows, cols); tokens on the axes when given (x on top, as in alignment plots)."""
    image = ax.imshow(matrix, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto", interpolation="nearest")
    if colorbar:
        ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.02)
    size = max(4, 9 - max(matrix.shape) // 10)
    if x_labels is not None:
        ax.set_xticks(range(len(x_labels)), x_labels, rotation=90, fontsize=size)
        ax.xaxis.tick_top()
    if y_labels is not None:
        ax.set_yticks(range(len(y_labels)), y_labels, fontsize=size)
    ax.set_title(title, fontsize=8)


def panel_inches(tokens: int, low: float = 2.5, high: float = 4.5) -> float:
    """Panel size growing with the number of tokens shown."""
    return float(min(high, max(low, 0.16 * tokens + 1.0)))
