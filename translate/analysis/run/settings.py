"""The `report` config group (conf/report/*.yaml): length buckets, bootstrap, pictures; checked when built."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, List, Optional

from translate.analysis.buckets import LENGTH_OF
from translate.config.fields import Checked, Rule, above, at_least, one_of, setting

ATTENTION_IMAGES = ("cross", "cross_heads", "encoder_self", "decoder_self")
IMAGES = ATTENTION_IMAGES + ("encoding", "bar_chart", "bleu_curve")
INCREASING = Rule(lambda v: len(v) >= 1 and all(e >= 1 for e in v) and all(a < b for a, b in zip(v, v[1:])),
                  "a strictly increasing list of integers >= 1")


@dataclass
class ReportSettings(Checked):
    SECTION: ClassVar[str] = "report"

    bucket_by: str = setting(one_of(*LENGTH_OF), default="source_words")
    edges: List[int] = setting(INCREASING, factory=lambda: [5, 10, 15, 20, 30, 45, 60])  # last length of each bucket
    quantiles: Optional[int] = setting(at_least(2), default=None, optional=True)  # N equal-count buckets instead
    bootstrap_samples: int = setting(Rule(lambda v: v >= 0, "an integer >= 0 (0: no interval)"), default=1000)
    bootstrap_seed: int = 12345
    probes_per_bucket: int = setting(at_least(0), default=1)
    images: List[str] = setting(Rule(lambda v: all(i in IMAGES for i in v), f"a list drawn from {list(IMAGES)}"),
                                factory=lambda: list(IMAGES))
    encoding_positions: int = setting(at_least(1), default=128)
    min_bucket: int = setting(at_least(1), default=50)  # read by the sweep report (analysis.sweep.aggregate.Rules)
    equivalence_margin: float = setting(above(0, "a number > 0 (BLEU points)"), default=1.0)
