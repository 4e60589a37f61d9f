"""Every picture a report draws, at the size the report draws it, with many lines (26 encodings) and long bucket
labels: no two tick labels of an axis overlap, every title fits in the figure and clears the legend, and the legend
leaves the panels most of the width. The README names only pictures the report writes."""
from __future__ import annotations

import re
from itertools import combinations
from pathlib import Path

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from translate.analysis.run.length_curve import bleu_curve
from translate.analysis.run.metrics_json import RunMetrics
from translate.analysis.run.outputs import bar_chart
from translate.analysis.sweep.jobs import Job, JobSettings, Setting
from translate.analysis.sweep.plots import (PLOTS, learning_curves, length_curve, line_plot, write_learning_curves,
                                            write_length_curve, write_plots)
from translate.analysis.sweep.rows import ReportRow, Score

REPO = Path(__file__).resolve().parents[1]
ENCODINGS = [f"encoding_{i:02d}_none" for i in range(25)] + ["transformer_xl + zero_dims(from=400)"]
# a claims sweep's groups: the varying settings of each group run wider than its panel
GROUPS = ["train words 1-9 (as many target tokens as 11-17), model=base_cpu, train.lr=0.001, train.max_steps=1000",
          "train words 1-9 (as many target tokens as 11-17), model=small, train.lr=0.002, train.max_steps=3400",
          "train words 11-17, model=small, train.lr=0.002, train.max_steps=3400"]
# the default buckets with counts like multi30k_flickr2016's: the long ones too few to decide
BUCKETS = [("1-5", 1, 5, 1079), ("6-10", 6, 10, 1556), ("11-15", 11, 15, 219), ("16-20", 16, 20, 25),
           ("21-30", 21, 30, 4), ("31-45", 31, 45, 3), ("46-60", 46, 60, 1), ("61+", 61, None, 1)]


def rows(groups: list[str], test_set: str = "multi30k_flickr2016") -> list[ReportRow]:
    return [ReportRow(setting=pe, pe=pe, group=group, test_set=test_set, train_words="1-9" if group else "all",
                      bucket=name, low=low, high=high, sentences=n, decides=n >= 50,
                      bleu=Score(30.0 - k - i * 0.3, 28.0 - k - i * 0.3, 32.0 - k - i * 0.3), diagonal_share=0.5 - k / 20,
                      diagonal_share_normalised=0.4 - k / 20, diagonal_share_normalised_low=0.3 - k / 20,
                      diagonal_share_normalised_high=0.5 - k / 20)
            for group in groups for i, pe in enumerate(ENCODINGS) for k, (name, low, high, n) in enumerate(BUCKETS)]


def by_length(bleus: list[float]) -> dict:
    return {"bucketed_by": "source_words", "buckets": [
        {"bucket": name, "low": low, "high": high, "sentences": n, "bleu": b, "chrf": b + 10,
         "bleu_ci": [b - 2, b + 2], "chrf_ci": [b + 8, b + 12]}
        for (name, low, high, n), b in zip(BUCKETS, bleus)]}


def settings(spans: list[tuple[int, int]]) -> list[Setting]:
    made = []
    for words in spans:
        for i, label in enumerate(ENCODINGS):
            metrics = RunMetrics.read({"test_set": "test", "test_sets": {
                "test": {"by_length": by_length([30.0 - i * 0.2 - k for k in range(8)])},
                "long_test": {"by_length": by_length([28.0 - k for k in range(8)]), "long_lengths": True,
                              "source": "split long_test"}},
                "valid_curve": [[step, 10.0 + step / 100 - i * 0.1, 3.0] for step in range(100, 1600, 100)]})
            job = Job(Path("."), {"data.train_min_words": words[0], "data.train_max_words": words[1], "seed": 1},
                      metrics, settings=JobSettings(seed=1, trained=words))
            made.append(Setting(key=(label, words), jobs=[job], label=f"{label}, words {words[0]}-{words[1]}"))
    return made


def drawn(fig: Figure):
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def overlap(a, b) -> float:
    """Area in pixels² that two boxes share (touching edges: 0)."""
    return max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0)) * max(0.0, min(a.y1, b.y1) - max(a.y0, b.y0))


def shown_tick_labels(ax, axis: str, renderer) -> list:
    """The tick labels drawn: visible, not empty, inside the axes along their axis."""
    labels = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    frame = ax.get_window_extent(renderer)
    boxes = []
    for label in labels:
        if not (label.get_visible() and label.get_text().strip()):
            continue
        box = label.get_window_extent(renderer)
        middle = (box.x0 + box.x1) / 2 if axis == "x" else (box.y0 + box.y1) / 2
        low, high = (frame.x0, frame.x1) if axis == "x" else (frame.y0, frame.y1)
        if low - 1 <= middle <= high + 1:
            boxes.append((label.get_text(), box))
    return boxes


def assert_readable(fig: Figure, what: str) -> None:
    renderer = drawn(fig)
    page = fig.bbox
    inside = lambda box: box.x0 >= page.x0 - 1 and box.x1 <= page.x1 + 1 and box.y0 >= page.y0 - 1 and \
        box.y1 <= page.y1 + 1  # noqa: E731
    legends = [legend.get_window_extent(renderer) for legend in fig.legends] + [
        ax.get_legend().get_window_extent(renderer) for ax in fig.axes if ax.get_legend()]
    for ax in fig.axes:
        for axis in ("x", "y"):
            for (a, box_a), (b, box_b) in combinations(shown_tick_labels(ax, axis, renderer), 2):
                assert overlap(box_a, box_b) == 0, f"{what}: tick labels {a!r} and {b!r} overlap"
    titles = [ax.title for ax in fig.axes] + [fig._suptitle] if fig._suptitle else [ax.title for ax in fig.axes]
    for title in titles:
        if not title.get_text():
            continue
        box = title.get_window_extent(renderer)
        assert inside(box), f"{what}: the title {title.get_text()!r} is cut by the figure's edge"
        for legend in legends:
            assert overlap(box, legend) == 0, f"{what}: the legend covers the title {title.get_text()!r}"
    for first, second in combinations([t for t in titles if t.get_text()], 2):
        assert overlap(first.get_window_extent(renderer), second.get_window_extent(renderer)) == 0, \
            f"{what}: the titles {first.get_text()!r} and {second.get_text()!r} overlap"
    for legend in legends:
        assert inside(legend), f"{what}: the legend runs off the figure"
    panels = [ax.get_window_extent(renderer) for ax in fig.axes if ax.get_label() != "<colorbar>"]
    assert (max(b.x1 for b in panels) - min(b.x0 for b in panels)) / page.width > 0.7, \
        f"{what}: the panels get less than 70% of the width"


PICTURES = {
    **{f"{name} (one panel)": (lambda value=value, label=label: line_plot(rows([""]), value, label))
       for value, label, name in PLOTS},
    "bleu_by_length.png (two panels)": lambda: line_plot(rows(["train words 1-9", "train words 11-17"]),
                                                         PLOTS[0][0], PLOTS[0][1]),
    "bleu_by_length.png (three panels, long group labels)": lambda: line_plot(rows(GROUPS), PLOTS[0][0], PLOTS[0][1]),
    "bleu_length_curve.png": lambda: length_curve(settings([(1, 9)])),
    "bleu_length_curve.png (two spans)": lambda: length_curve(settings([(1, 9), (11, 17)])),
    "learning_curves.png": lambda: learning_curves(settings([(1, 9)])),
    "run bar chart": lambda: bar_chart(by_length([30.0 - k for k in range(8)]), "multi30k_flickr2016"),
    "run BLEU curve": lambda: bleu_curve({"test": by_length([30.0 - k for k in range(8)]),
                                          "multi30k_flickr2016": by_length([12.0 - k for k in range(8)]),
                                          "long_test": by_length([28.0 - k for k in range(8)])}, (1, 9)),
}


@pytest.mark.parametrize("what", list(PICTURES))
def test_every_report_picture_is_readable_at_its_size(what):
    from translate.analysis.run.figures import to_image

    fig = PICTURES[what]()
    if what.startswith("run "):
        to_image(fig)  # as TensorBoard gets it: laid out by to_image
    assert_readable(fig, what)


def test_the_readme_names_only_pictures_the_report_writes(tmp_path):
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("`SWEEP_DIR/report/` then holds"):readme.index("tab HParams")]
    listed = set(re.findall(r"`([\w.]+\.png)`", section))
    some = settings([(1, 9)])[:2]
    written = {name for _, name in write_plots(rows([""], "test")[:16] + rows([""], "long_test")[:16], tmp_path)}
    written |= {name for _, name in write_length_curve(some, tmp_path) + write_learning_curves(some, tmp_path)}
    assert listed and listed <= written, f"listed but not written: {sorted(listed - written)}"
    assert {name for name in written if name.count(".") == 1} <= listed, "a picture the README does not list"
