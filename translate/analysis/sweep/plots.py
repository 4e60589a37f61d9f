"""Score against length bucket: one line per positional encoding (with its ablation), one panel per other group
(e.g. the training lengths), error bars from the table's intervals."""
from __future__ import annotations

import textwrap

from pathlib import Path
from typing import Callable, Optional

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402

from translate.analysis.run.metrics_json import RunMetrics  # noqa: E402
from translate.analysis.sweep.aggregate import ALL  # noqa: E402
from translate.analysis.sweep.rows import ReportRow, Score  # noqa: E402


def bleu(row: ReportRow) -> Score:
    return row.bleu


def diagonal_share(row: ReportRow) -> Score:
    """The raw share, without an interval (the runs record none for it): it falls with length even for a perfect
    alignment, because a longer source spreads the same attention over more positions."""
    return Score(row.diagonal_share)


def normalised_diagonal_share(row: ReportRow) -> Score:
    """The share the tables show: (s − c)/(1 − c), c the share of uniform attention, with its interval."""
    return Score(row.diagonal_share_normalised, row.diagonal_share_normalised_low, row.diagonal_share_normalised_high)


# (what is drawn of a row, the axis label, the file); each drawn for every test set of a report
PLOTS = ((bleu, "BLEU", "bleu_by_length.png"),
         (diagonal_share, "raw cross-attention diagonal share", "diagonal_share_by_length.png"),
         (normalised_diagonal_share, "normalised diagonal share", "diagonal_share_normalised_by_length.png"))

LENGTH_CURVE = "bleu_length_curve.png"       # BLEU against bucket middle, one line per setting
LEARNING_CURVES = "learning_curves.png"      # valid BLEU against step, one line per job

# Ten colours alone repeat from the 11th line on (26 encodings share a page): colour, dash and marker together give
# 30 looks no two lines share.
COLOURS = [f"C{i}" for i in range(10)]
DASHES = ["-", "--", ":"]
MARKERS = ["o", "s", "^"]


def series_styles(labels) -> dict[str, dict]:
    """{label: matplotlib line keywords}, the same look for a label in every panel of a figure."""
    looks = [(c, d, m) for d, m in zip(DASHES, MARKERS) for c in COLOURS]
    return {label: dict(zip(("color", "linestyle", "marker"), looks[i % len(looks)]))
            for i, label in enumerate(sorted(set(labels)))}


LEGEND_ROW_INCHES = 0.19


def legend_columns(labels, width: float) -> int:
    """As many columns as `width` inches hold: an entry is its line sample and its label (about 0.056 inches a
    character at the legend's font size 7)."""
    labels = list(labels)
    entry = 0.65 + 0.056 * max((len(str(label)) for label in labels), default=0)
    return max(1, min(len(labels), int(width // entry)))


def panel_title(text: str, panels: int, fig: Figure, fontsize: float = 10) -> str:
    """`text` wrapped to one panel's width (about 0.55 x the font size a character): a sweep's group labels name
    its varying settings and run wider than a panel, into the next panel's title."""
    characters = int(fig.get_figwidth() / panels * 72 / (fontsize * 0.55))
    return "\n".join(textwrap.fill(line, max(20, characters)) for line in text.splitlines())


def legend_outside(fig: Figure, axes) -> None:
    """One legend for the whole figure, under the panels in as many columns as their width holds: inside a panel 26
    entries would hide the lines, beside them it would take half the width."""
    handles = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    if handles:
        fig.legend(handles.values(), handles.keys(), loc="outside lower center", fontsize=7,
                   ncols=legend_columns(handles, fig.get_figwidth()))


def figure_width(panels: int) -> float:
    """Inches: 5.5 a panel, at least 6 (the legend is under the panels)."""
    return max(6.0, 5.5 * panels)


def figure_size(panels: int, labels, plot_height: float = 4.2) -> tuple[float, float]:
    """(width, height) in inches: the panels, plus the rows of the legend of `labels` under them."""
    labels = sorted(set(labels))
    width = figure_width(panels)
    rows = -(-len(labels) // legend_columns(labels, width)) if labels else 0
    return width, plot_height + (rows * LEGEND_ROW_INCHES + 0.25 if rows else 0.0)


def line_plot(rows: list[ReportRow], value: Callable[[ReportRow], Score], ylabel: str) -> Optional[Figure]:
    """None when no row has the value per bucket (e.g. runs without a length report)."""
    rows = [r for r in rows if r.bucket != ALL and value(r).value is not None]
    if not rows:
        return None
    buckets = []
    for r in sorted(rows, key=lambda r: (r.low is None, r.low or 0)):
        if r.bucket not in [b for b, _ in buckets]:
            buckets.append((r.bucket, r.sentences))
    position = {b: i for i, (b, _) in enumerate(buckets)}
    too_few = {position[r.bucket] for r in rows if r.decides is False}
    groups = sorted({r.group for r in rows})
    pes = sorted({r.pe for r in rows})
    style = series_styles(pes)  # the same encoding looks the same in every panel
    fig = Figure(figsize=figure_size(len(groups), pes), layout="constrained")
    axes = fig.subplots(1, len(groups), squeeze=False, sharey=True)[0]
    for ax, group in zip(axes, groups):
        for pe in sorted({r.pe for r in rows if r.group == group}):
            line = sorted((r for r in rows if r.group == group and r.pe == pe), key=lambda r: position[r.bucket])
            x = [position[r.bucket] for r in line]
            y = [value(r).value for r in line]
            low = [value(r).low for r in line]
            high = [value(r).high for r in line]
            if all(v is not None for v in low + high):
                errors = [[v - lo for v, lo in zip(y, low)], [hi - v for v, hi in zip(y, high)]]
                ax.errorbar(x, y, yerr=errors, capsize=3, label=pe, **style[pe])
            else:
                ax.plot(x, y, label=pe, **style[pe])
            mark_too_few(ax, [(position[r.bucket], value(r).value) for r in line if r.decides is False], style[pe])
        shade_training_lengths(ax, [r for r in rows if r.group == group], position)
        ax.set_xticks(range(len(buckets)), [tick_label(b, n, at in too_few) for at, (b, n) in enumerate(buckets)],
                      fontsize=tick_font(len(buckets), ax.figure.get_figwidth() / len(groups)))
        ax.set_xlabel("source length (words)")
        ax.set_title(panel_title(group or "all jobs", len(groups), fig), fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(ylabel)
    legend_outside(fig, axes)
    return fig


def tick_label(bucket: str, sentences: int, too_few: bool) -> str:
    """A bucket's name over its sentence count, 'too few' on a line of its own (side by side they overlap)."""
    return f"{bucket}\n(n={sentences:,})" + ("\ntoo few" if too_few else "")


def tick_font(buckets: int, panel_inches: float) -> float:
    """Font size for a bucket's tick label so that `buckets` of them fit side by side in the panel."""
    return max(5.0, min(8.0, 8.0 * panel_inches / (buckets * 0.62)))


def mark_too_few(ax, points: list[tuple[int, float]], look: dict) -> None:
    """Hollow markers on the buckets too small to decide (fewer than report.min_bucket sentences): drawn, not read."""
    if points:
        x, y = zip(*points)
        ax.plot(x, y, linestyle="none", marker=look["marker"], markeredgecolor=look["color"], markerfacecolor="white",
                zorder=3)


def shade_training_lengths(ax, rows: list[ReportRow], position: dict[str, int]) -> None:
    """Grey behind the buckets that hold sentence lengths the models were trained on (when training was filtered)."""
    spans = {r.train_words for r in rows}
    if len(spans) != 1 or spans == {"all"}:
        return
    low, _, high = next(iter(spans)).rstrip("+").partition("-")
    low, high = int(low), int(high) if high else None
    for r in rows:
        if (high is None or r.low <= high) and (r.high is None or r.high >= low):
            ax.axvspan(position[r.bucket] - 0.5, position[r.bucket] + 0.5, color="0.9", zorder=0)


def plot_file(name: str, test_set: str, first: str) -> str:
    """The first test set's plot keeps the plain name (the pages link it); another's is named after it."""
    return name if test_set == first else name.replace(".png", f".{test_set}.png")


def write_plots(rows: list[ReportRow], out_dir: Path) -> list[tuple[str, str]]:
    """Every PLOTS picture of every test set of `rows` (in their order), as (title, file name) for the markdown."""
    test_sets = list(dict.fromkeys(r.test_set for r in rows))
    written = []
    for test_set in test_sets:
        for value, label, name in PLOTS:
            fig = line_plot([r for r in rows if r.test_set == test_set], value, label)
            if fig is not None:
                file = plot_file(name, test_set, test_sets[0])
                fig.savefig(out_dir / file, dpi=120)
                written.append((f"{label} by length on {test_set}", file))
    return written


def curve_test_set(metrics: RunMetrics) -> str:
    """The test set a job's BLEU-by-length curve is drawn from: the first one built to hold long sentences (the
    reserved long test set, long_concat: metrics.json `long_lengths`; older runs name long_concat in `source`), which
    fills the long buckets, else the primary test set."""
    for name, results in metrics.test_sets.items():
        if results.long_lengths or results.source.startswith("long_concat"):
            return name
    return metrics.test_set


def length_curve(settings: list) -> Optional[Figure]:
    """BLEU against the middle of each length bucket (words), one line per setting (mean over its seeds), one panel
    per range of training lengths, shaded grey. None when no job has a by_length report."""
    from translate.analysis.run.length_curve import bucket_centre

    lines, test_sets = {}, {}
    for s in settings:
        per_bucket: dict[float, list[float]] = {}
        for job in s.jobs:
            test_sets.setdefault(s.settings.train_words, set()).add(curve_test_set(job.metrics))
            scores = job.metrics.test_sets.get(curve_test_set(job.metrics))
            for b in scores.by_length.buckets if scores and scores.by_length else []:
                if b.bleu is not None:
                    per_bucket.setdefault(bucket_centre(b.low, b.high), []).append(b.bleu)
        if per_bucket:
            lines[s.label] = (s.settings.train_words, sorted((x, sum(v) / len(v)) for x, v in per_bucket.items()))
    if not lines:
        return None
    spans = sorted({span for span, _ in lines.values()})
    style = series_styles(lines)
    fig = Figure(figsize=figure_size(len(spans), lines), layout="constrained")
    axes = fig.subplots(1, len(spans), squeeze=False, sharey=True)[0]
    for ax, span in zip(axes, spans):
        for label, (line_span, points) in sorted(lines.items()):
            if line_span == span:
                ax.plot(*zip(*points), label=label, **style[label])
        if span != "all":
            low, _, high = span.rstrip("+").partition("-")
            ax.axvspan(int(low) - 0.5, int(high) + 0.5 if high else ax.get_xlim()[1], color="0.9", zorder=0)
        trained = f"trained on {span} words" if span != "all" else "trained on every length"
        ax.set_title(panel_title(f"{trained};\nBLEU on {', '.join(sorted(test_sets[span]))}", len(spans), fig),
                     fontsize=10)
        ax.set_xlabel("source length (words, bucket middle)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("BLEU")
    legend_outside(fig, axes)
    return fig


def saved(fig: Optional[Figure], out_dir: Path, name: str, alt: str) -> list[tuple[str, str]]:
    """[(alt text, file name)] of the figure written to out_dir, or [] when there is nothing to draw."""
    if fig is None:
        return []
    fig.savefig(out_dir / name, dpi=120)
    return [(alt, name)]


def write_length_curve(settings: list, out_dir: Path) -> list[tuple[str, str]]:
    return saved(length_curve(settings), out_dir, LENGTH_CURVE, "BLEU against length")


def learning_curves(settings: list) -> Optional[Figure]:
    """Valid BLEU against training step, one line per job (a setting keeps one look, its seeds one line each), so a
    reader sees whether the models converged. None when no job recorded a curve (metrics.json `valid_curve`)."""
    style = series_styles(s.label for s in settings)
    fig = Figure(figsize=figure_size(1, style, 4.5), layout="constrained")
    ax = fig.subplots()
    drawn = False
    for s in settings:
        for n, job in enumerate(sorted(s.jobs, key=lambda j: str(j.seed))):
            curve = job.metrics.valid_curve if job.metrics else []
            if not curve:
                continue
            steps, bleu = zip(*[(point[0], point[1]) for point in curve])
            # Seeds of a setting share its look; markers only at the validations, which are few.
            ax.plot(steps, bleu, alpha=0.85, label=s.label if n == 0 else None, markersize=3, **style[s.label])
            drawn = True
    if not drawn:
        return None
    ax.set_xlabel("training step")
    ax.set_ylabel("valid BLEU")
    ax.grid(alpha=0.3)
    legend_outside(fig, [ax])
    return fig


def write_learning_curves(settings: list, out_dir: Path) -> list[tuple[str, str]]:
    return saved(learning_curves(settings), out_dir, LEARNING_CURVES, "Valid BLEU against step, one line per job")
