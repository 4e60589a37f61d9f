"""Plots with many lines (26 encodings on one page): every line must be told apart, in every panel alike."""
from __future__ import annotations

from matplotlib.figure import Figure

from translate.analysis.sweep.plots import legend_outside, series_styles


def test_26_labels_get_26_distinct_looks_and_a_label_keeps_its_look():
    labels = [f"encoding_{i:02d}" for i in range(26)]
    styles = series_styles(labels)
    looks = {(s["color"], s["linestyle"], s["marker"]) for s in styles.values()}
    assert len(looks) == 26
    # The look depends on the set of labels, not on the order a panel draws them in.
    assert series_styles(list(reversed(labels))) == styles
    assert series_styles(labels + labels[:3]) == styles


def test_the_legend_is_one_for_the_figure_with_each_label_once():
    fig = Figure()
    left, right = fig.subplots(1, 2)
    for ax, names in ((left, ["a", "b"]), (right, ["b", "c"])):
        for name in names:
            ax.plot([0, 1], [0, 1], label=name)
    legend_outside(fig, [left, right])
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["a", "b", "c"]
    assert left.get_legend() is None and right.get_legend() is None
