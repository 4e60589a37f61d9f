"""The precision check's figures in the README and docs/speed.md are those of its committed summary (written by
scripts/compare_precisions.py from the runs in docs/results/runs/precision_cpu), not typed by hand."""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def signed(x: float) -> str:
    return f"{x:+.2f}".replace("-", "−")


def test_the_readme_and_speed_page_quote_the_committed_summary():
    summary = json.loads((ROOT / "docs/results/runs/precision_cpu/summary.json").read_text())
    test = summary["test_sets"]["test"]
    assert summary["seeds"] == [1, 2, 3, 4, 5, 6] and summary["alpha"] == 0.0294
    mean, (low, high), (low94, high94) = test["mean"], test["ci95"], test["tost_interval"]
    readme = (ROOT / "README.md").read_text()
    assert f"**{signed(mean)}** [{signed(low)}, {signed(high)}]" in readme
    assert f"94.1% interval [{signed(low94)}, {signed(high94)}]" in readme
    speed = (ROOT / "docs/speed.md").read_text()
    assert f"**{signed(mean)}**, [{signed(low)}, {signed(high)}], [{signed(low94)}, {signed(high94)}]" in speed
    assert not (-0.5 < low94 and high94 < 0.5)   # the page's "fp32 is kept" follows from the interval
    assert "fp32 is kept" in speed
