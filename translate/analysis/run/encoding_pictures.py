"""Pictures of the positional encoding itself (at the start and the end of training: learned ones move).

Absolute tables (``encoding.table(positions)``): the table as a positions x dims heatmap, the cosine similarity
between positions, and the variance of each dimension over positions (the flat, near-constant high dimensions of a
sinusoidal table show up as variance near 0). Bias encodings (``attention_terms(kind, ...).bias``): the bias
against the distance key - query, one line per head, averaged over query positions. Rotations and content-position
terms (RoPE, xPos, Shaw, Transformer-XL, DeBERTa): the logit of one fixed random query and key, the same vector at
every position, so that only the positions change the score, against distance.
Tags: encoding/table, encoding/cosine_similarity, encoding/dimension_variance, encoding/bias_<kind>,
encoding/score_<kind>.
"""
from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Optional

import numpy as np
import torch
from torch import Tensor

from translate.encodings.base import ATTENTION_KINDS, PositionalEncoding
from translate.analysis.run.figures import heatmap, new_figure, to_image

if TYPE_CHECKING:   # for annotations only: Matplotlib is imported where a figure is drawn (figures.new_figure)
    from matplotlib.figure import Figure


def module_device(module: torch.nn.Module) -> torch.device:
    tensor = next(itertools.chain(module.parameters(), module.buffers()), None)
    return tensor.device if tensor is not None else torch.device("cpu")


def shown_positions(encoding: PositionalEncoding, wanted: int) -> Tensor:
    """0..wanted-1, cut to what the encoding can represent."""
    limit = encoding.max_positions
    return torch.arange(min(wanted, limit) if limit is not None else wanted)


def cosine_similarity(table: Tensor) -> Tensor:
    """(T, d) -> (T, T)."""
    unit = torch.nn.functional.normalize(table, dim=-1)
    return unit @ unit.T


def bias_by_distance(bias: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """bias broadcastable to (B, H, T, T) -> distances (2T-1,) and per-head means over each diagonal (H, 2T-1)."""
    while bias.dim() > 3:
        bias = bias[0]
    bias = bias if bias.dim() == 3 else bias[None]  # (H, T, T)
    bias = bias.float().masked_fill(~torch.isfinite(bias), float("nan"))
    t = bias.size(-1)
    distances = np.arange(-(t - 1), t)
    means = np.stack([torch.diagonal(bias, int(d), -2, -1).nanmean(-1).numpy() for d in distances], axis=-1)
    return distances, means


def position_only_scores(encoding: PositionalEncoding, kind: str, positions: Tensor) -> Optional[Tensor]:
    """(H, T, T) logits of a fixed query and key repeated at every position, or None when the encoding has no
    rotation or content-position term for this kind."""
    terms = encoding.attention_terms(kind, positions, positions)
    if terms.rotate is None and terms.content_bias is None:
        return None
    heads, t = encoding.n_heads, positions.size(-1)
    generator = torch.Generator().manual_seed(0)
    vector = torch.randn(1, heads, 1, encoding.d_model // heads, generator=generator).to(positions.device)
    q = k = vector.expand(1, heads, t, vector.size(-1)).contiguous()  # (1, H, T, Dh)
    if terms.rotate is not None:
        q, k = terms.rotate(q, k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (1, H, T, T)
    if terms.content_bias is not None:
        scores = scores + terms.content_bias(q, k)
    if terms.bias is not None:
        scores = scores + terms.bias
    return scores[0]


def table_figures(table: Tensor) -> dict[str, Figure]:
    """table (T, d)."""
    t, d = table.shape
    figures = {}
    fig, axes = new_figure(1, 1, 5.0, f"PE table: {t} positions x {d} dims")
    heatmap(axes[0, 0], table.numpy(), vmin=None, cmap="RdBu_r")
    axes[0, 0].set_xlabel("dimension")
    axes[0, 0].set_ylabel("position")
    figures["table"] = fig
    fig, axes = new_figure(1, 1, 5.0, "cosine similarity between positions")
    heatmap(axes[0, 0], cosine_similarity(table).numpy(), vmin=-1.0, vmax=1.0, cmap="RdBu_r")
    axes[0, 0].set_xlabel("position")
    axes[0, 0].set_ylabel("position")
    figures["cosine_similarity"] = fig
    fig, axes = new_figure(1, 1, 5.0, f"variance over {t} positions, per dimension")
    axes[0, 0].plot(np.arange(d), table.var(0, unbiased=False).numpy())
    axes[0, 0].set_xlabel("dimension")
    axes[0, 0].set_ylabel("variance")
    figures["dimension_variance"] = fig
    return figures


def distance_figure(bias: Tensor, title: str) -> Figure:
    distances, means = bias_by_distance(bias)
    fig, axes = new_figure(1, 1, 5.0, title)
    for head, line in enumerate(means):
        axes[0, 0].plot(distances, line, label=f"head {head + 1}")
    axes[0, 0].set_xlabel("key position - query position")
    axes[0, 0].set_ylabel("logit (mean over queries)")
    axes[0, 0].legend(fontsize=6, ncol=2)
    return fig


@torch.no_grad()
def encoding_figures(encoding: PositionalEncoding, positions: int) -> dict[str, Figure]:
    """Every picture this encoding has (none for NoPE or a pure rotation), keyed by tag suffix."""
    pos = shown_positions(encoding, positions).to(module_device(encoding))
    figures = {}
    table: Optional[Tensor] = encoding.table(pos)
    if table is not None:
        figures.update(table_figures(table.detach().float().cpu()))
    for kind in ATTENTION_KINDS:
        bias = encoding.attention_terms(kind, pos, pos).bias
        if bias is not None:
            figures[f"bias_{kind}"] = distance_figure(
                bias.detach().cpu(), f"{kind} attention: logit bias against distance (key - query)")
        scores = position_only_scores(encoding, kind, pos)
        if scores is not None:
            figures[f"score_{kind}"] = distance_figure(
                scores.detach().cpu(), f"{kind} attention: logit of a fixed query and key against distance")
    return figures


def log_encoding_pictures(writer, encoding: PositionalEncoding, positions: int, step: int) -> int:
    """Add the pictures under encoding/...; returns how many."""
    if writer is None:
        return 0
    figures = encoding_figures(encoding, positions)
    for name, fig in figures.items():
        writer.add_image(f"encoding/{name}", to_image(fig), step, dataformats="HWC")
    return len(figures)
