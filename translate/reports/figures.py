"""Matplotlib (Agg, no pyplot state) figures rendered to images for TensorBoard."""
from __future__ import annotations

import textwrap
from typing import Optional, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def new_figure(rows: int, cols: int, panel_inches: float, title: str = "") -> tuple[Figure, np.ndarray]:
    """A figure with a (rows, cols) array of axes and a wrapped title."""
    fig = Figure(figsize=(cols * panel_inches, rows * panel_inches + 0.6), dpi=80)
    FigureCanvasAgg(fig)
    axes = np.asarray(fig.subplots(rows, cols, squeeze=False))
    if title:
        fig.suptitle(textwrap.fill(title, width=max(40, int(cols * panel_inches * 11))), fontsize=9)
    return fig, axes


def to_image(fig: Figure) -> np.ndarray:
    """(H, W, 3) uint8 RGB, for SummaryWriter.add_image(..., dataformats="HWC")."""
    fig.tight_layout()
    canvas = fig.canvas
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


def heatmap(ax: Axes, matrix: np.ndarray, x_labels: Optional[Sequence[str]] = None,
            y_labels: Optional[Sequence[str]] = None, title: str = "", vmin: Optional[float] = 0.0,
            vmax: Optional[float] = None, cmap: str = "viridis") -> None:
    """matrix (rows, cols); tokens on the axes when given (x on top, as in alignment plots)."""
    image = ax.imshow(matrix, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto", interpolation="nearest")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.02)
    size = max(4, 9 - max(matrix.shape) // 10)
    if x_labels is not None:
        ax.set_xticks(range(len(x_labels)), x_labels, rotation=90, fontsize=size)
        ax.xaxis.tick_top()
    if y_labels is not None:
        ax.set_yticks(range(len(y_labels)), y_labels, fontsize=size)
    ax.set_title(title, fontsize=8)


def panel_inches(tokens: int, low: float = 2.5, high: float = 6.0) -> float:
    """Panel size growing with the number of tokens shown."""
    return float(min(high, max(low, 0.16 * tokens + 1.0)))
