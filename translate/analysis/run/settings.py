"""The `report` config group, read once and checked: an error names the key, the value and what is allowed."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from omegaconf import DictConfig

from translate.config import ConfigError, is_int, positive_int, require
from translate.analysis.buckets import LENGTH_OF

ATTENTION_IMAGES = ("cross", "cross_heads", "encoder_self", "decoder_self")
IMAGES = ATTENTION_IMAGES + ("encoding", "bar_chart", "bleu_curve")


@dataclass(frozen=True)
class ReportSettings:
    bucket_by: str = "source_words"
    edges: tuple[int, ...] = (5, 10, 15, 20, 30, 45, 60)   # last length of each bucket; an open-ended one follows
    quantiles: Optional[int] = None            # N equal-count buckets instead of `edges`
    bootstrap_samples: int = 1000
    bootstrap_seed: int = 12345
    probes_per_bucket: int = 1
    images: tuple[str, ...] = IMAGES
    encoding_positions: int = 128
    min_bucket: int = 50                       # read by the sweep report (translate.analysis.sweep.aggregate.Rules)
    equivalence_margin: float = 1.0

    @classmethod
    def from_config(cls, cfg: DictConfig) -> "ReportSettings":
        """cfg: a whole run or evaluate config holding a `report` group."""
        if cfg.get("report") is None:
            raise ConfigError("report is missing from the config; add `- report: default` to the defaults list")
        require(cfg, "report.bucket_by", lambda v: v in LENGTH_OF, f"one of {list(LENGTH_OF)}")
        require(cfg, "report.edges", lambda v: len(v) >= 1 and all(is_int(e) and e >= 1 for e in v)
                and all(a < b for a, b in zip(v, v[1:])), "a strictly increasing list of integers >= 1")
        require(cfg, "report.quantiles", lambda v: is_int(v) and v >= 2, "null or an integer >= 2", optional=True)
        require(cfg, "report.bootstrap_samples", lambda v: is_int(v) and v >= 0, "an integer >= 0 (0: no interval)")
        require(cfg, "report.bootstrap_seed", is_int, "an integer")
        require(cfg, "report.probes_per_bucket", lambda v: is_int(v) and v >= 0, "an integer >= 0")
        require(cfg, "report.images", lambda v: all(i in IMAGES for i in v), f"a list drawn from {list(IMAGES)}")
        positive_int(cfg, "report.encoding_positions")
        require(cfg, "report.min_bucket", lambda v: is_int(v) and v >= 1, "an integer >= 1", optional=True)
        require(cfg, "report.equivalence_margin", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
                and v > 0, "a number > 0 (BLEU points)", optional=True)
        r = cfg.report
        return cls(r.bucket_by, tuple(r.edges), r.quantiles, r.bootstrap_samples, r.bootstrap_seed,
                   r.probes_per_bucket, tuple(r.images), r.encoding_positions, r.get("min_bucket", 50),
                   r.get("equivalence_margin", 1.0))
