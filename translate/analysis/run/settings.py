"""The `report` config group (conf/report/*.yaml): length buckets, bootstrap, pictures; checked when built."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, List, Optional

from translate.analysis.buckets import LENGTH_OF
from translate.config.fields import HOW_IT_RAN, Checked, Rule, above, at_least, one_of, setting

ATTENTION_IMAGES = ("cross", "cross_heads", "encoder_self", "decoder_self")
IMAGES = ATTENTION_IMAGES + ("encoding", "bar_chart", "bleu_curve")
INCREASING = Rule(lambda v: len(v) >= 1 and all(e >= 1 for e in v) and all(a < b for a, b in zip(v, v[1:])),
                  "a strictly increasing list of integers >= 1")


@dataclass
class ReportSettings(Checked):
    SECTION: ClassVar[str] = "report"
    ROLE: ClassVar[Optional[str]] = HOW_IT_RAN  # how a run was reported, never what it trained

    # source_words, reference_words (English words) or source_subwords (SentencePiece pieces)
    bucket_by: str = setting(one_of(*LENGTH_OF), default="source_words")
    # last length of each bucket, plus an open one: 1-5, 6-10, 11-15, 16-20, 21-30, 31-45, 46-60, 61+
    # (long_concat fills 11-60; real test splits have few sentences above 20 words)
    edges: List[int] = setting(INCREASING, factory=lambda: [5, 10, 15, 20, 30, 45, 60])
    # N: N buckets of about equal size over the test split, instead of edges
    quantiles: Optional[int] = setting(at_least(2), default=None, optional=True)
    # resamples for the 95% paired bootstrap intervals; 0: none
    bootstrap_samples: int = setting(Rule(lambda v: v >= 0, "an integer >= 0 (0: no interval)"), default=1000)
    bootstrap_seed: int = 12345
    # test sentences per bucket drawn as attention maps, besides the two fixed probes
    probes_per_bucket: int = setting(at_least(0), default=1)
    # pictures written; [] for none
    images: List[str] = setting(Rule(lambda v: all(i in IMAGES for i in v), f"a list drawn from {list(IMAGES)}"),
                                factory=lambda: list(IMAGES))
    # AER of cross-attention against silver word links (eflomal, cached), layer and threshold chosen on the valid
    # split (a test set with human links: against them); null: wherever it can be had (training always; evaluate
    # when it reads the training corpus); true: asked for, a warning where it cannot be had; false: not computed
    alignment_error_rate: Optional[bool] = setting(Rule(lambda v: isinstance(v, bool), "true, false or null"),
                                                   default=None, optional=True)

    @property
    def aer_wanted(self) -> bool:
        return self.alignment_error_rate is not False
    # positions shown in the encoding pictures
    encoding_positions: int = setting(at_least(1), default=128)
    # at the end of training: a linear probe of token position on each layer's states, over N valid sentences of
    # every length (translate/analysis/run/position_probe.py, translate/data/pipeline.py: probe_pairs); 0: none
    position_probe: int = setting(Rule(lambda v: v == 0 or v >= 10, "0 (none) or at least 10 sentences"), default=0)
    # sweep report (analysis.sweep.aggregate.Rules): smaller buckets are shown but decide no verdict
    min_bucket: int = setting(at_least(1), default=50)
    # sweep report: 'about the same' = the 90% interval of Δ BLEU inside ±this (two one-sided tests at α = 0.05)
    equivalence_margin: float = setting(above(0, "a number > 0 (BLEU points)"), default=1.0)
