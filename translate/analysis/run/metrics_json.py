"""metrics.json as types: what a run records (RunMetrics), each test set's scores (TestSetScores), its length report
(LengthReport) and each length bucket of it (BucketScores). The run writes the layout that
test_set_reports.score_test_sets describes; the sweep reads it back through these classes, never by nested keys.

Reading is tolerant: a key a class does not know is skipped, a key an older run did not write keeps its default
(runs before eval.test_sets tested one split, named by `split`, at the top level; runs before `tested_step` tested
best.pt or the last step).

A per-bucket statistic that the sweep report carries (mean over seeds, a column of report.csv) is a field of
BucketStatistics, declared with `statistic()`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Optional

from translate.analysis.run.convergence import ValidTrend, valid_trend


def statistic(default: Any = None):
    """A per-bucket statistic: carried into the sweep report's rows (mean over seeds) and into report.csv."""
    return field(default=default, metadata={"carried": True})


@dataclass
class BucketStatistics:
    """The per-bucket statistics that a run records and the sweep report carries, in report.csv's column order."""

    diagonal_share: Optional[float] = statistic()
    diagonal_share_normalised: Optional[float] = statistic()
    diagonal_share_normalised_low: Optional[float] = statistic()
    diagonal_share_normalised_high: Optional[float] = statistic()
    monotonicity: Optional[float] = statistic()
    attention_entropy: Optional[float] = statistic()
    length_ratio: Optional[float] = statistic()
    aer: Optional[float] = statistic()              # runs with AER (silver links; gold on a gold test set)
    token_accuracy: Optional[float] = statistic()   # teacher-forced, 0-1 (runs since word choice and order)
    unigram_f: Optional[float] = statistic()        # clipped unigram F of the hypothesis, 0-1
    order_tau: Optional[float] = statistic()        # Kendall τ of the matched words' positions


CARRIED = tuple(f.name for f in fields(BucketStatistics) if f.metadata.get("carried"))


def known(cls: type, data: dict) -> dict:
    """The entries of `data` that are fields of `cls`."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


@dataclass
class BucketScores(BucketStatistics):
    """One entry of `by_length.buckets`: a length bucket's scores (an empty bucket has sentences 0 and no scores)."""

    bucket: str = ""
    low: Optional[int] = None
    high: Optional[int] = None           # None: no upper end
    sentences: int = 0
    bleu: Optional[float] = None
    chrf: Optional[float] = None
    bleu_ci: Optional[list] = None       # [low, high]: 95% bootstrap over the bucket's sentences
    chrf_ci: Optional[list] = None

    @classmethod
    def read(cls, data: dict) -> "BucketScores":
        return cls(**known(cls, data))

    def ci(self, key: str) -> Optional[list]:
        """The run's own 95% interval of `key` (bleu or chrf)."""
        return {"bleu": self.bleu_ci, "chrf": self.chrf_ci}[key]

    def score(self, key: str) -> Optional[float]:
        return {"bleu": self.bleu, "chrf": self.chrf}[key]


@dataclass
class LengthReport:
    """`by_length` of a test set: how sentences were bucketed, the buckets, per-sentence alignment values."""

    bucketed_by: Optional[str] = None    # source_words, reference_words or source_subwords
    buckets: list[BucketScores] = field(default_factory=list)
    per_sentence: dict[str, list] = field(default_factory=dict)   # metric -> one value per test sentence

    @classmethod
    def read(cls, data: Optional[dict]) -> Optional["LengthReport"]:
        if not data:
            return None
        return cls(data.get("bucketed_by"), [BucketScores.read(b) for b in data.get("buckets", [])],
                   data.get("per_sentence") or {})


@dataclass
class TestSetScores:
    """One test set's scores: whole-set BLEU and chrF, and its length report."""

    name: str
    bleu: Optional[float] = None
    chrf: Optional[float] = None
    sentences: Optional[int] = None
    source: str = ""                        # what it was made from, e.g. "long_concat of split test (synthetic)"
    long_lengths: bool = False              # built to hold long sentences (long_test, long_concat)
    by_length: Optional[LengthReport] = None
    # a pair of files: the lines (from 1) not scored, whose hypothesis lines are empty (test_sets.NOT_SCORED_RULE)
    not_scored_lines: list[int] = field(default_factory=list)

    @classmethod
    def read(cls, name: str, data: dict) -> "TestSetScores":
        skipped = (data.get("lines") or {}).get("skipped_lines") or []
        return cls(name, data.get("bleu"), data.get("chrf"), data.get("sentences"), str(data.get("source") or ""),
                   bool(data.get("long_lengths")), LengthReport.read(data.get("by_length")),
                   sorted({int(s["line"]) for s in skipped}))


@dataclass
class RunMetrics:
    """A finished run's metrics.json: its test sets (the first is the primary one) and how it trained."""

    test_sets: dict[str, TestSetScores] = field(default_factory=dict)
    test_set: str = "test"                   # the primary test set's name
    steps: Optional[int] = None
    tested_step: Optional[int] = None        # the step of the model the test sets scored
    step: Optional[int] = None               # an evaluation's (translate.evaluate) checkpoint step
    checkpoint: str = ""
    valid_curve: list = field(default_factory=list)   # [step, valid BLEU, valid loss] at every validation
    best_valid_step: Optional[int] = None
    parameters: Optional[int] = None
    target_tokens_per_s: Optional[float] = None
    train_minutes: Optional[float] = None
    device: str = ""                         # "NVIDIA H200, fp32", "CPU, fp32"; "" in runs from before it was kept
    # pairs of the training corpus files left out when it was read, by reason ({"bad UTF-8": 3, "empty side": 12});
    # {} when none was, and in runs from before it was kept
    corpus_dropped: dict[str, int] = field(default_factory=dict)
    # what the encoding gives the model (PositionalEncoding.position_kind: absolute, relative, ...); "" in runs from
    # before it was kept
    encoding_kind: str = ""
    # what the model knows of position (translate/analysis/run/position_probe.py); {} without report.position_probe
    position_probe: dict = field(default_factory=dict)

    @classmethod
    def read(cls, data: dict) -> "RunMetrics":
        """Runs since eval.test_sets list each test set under `test_sets`; older runs tested one split, named by
        `split`, at the top level."""
        if "test_sets" in data:
            test_sets = {name: TestSetScores.read(name, results) for name, results in data["test_sets"].items()}
            primary = data.get("test_set", next(iter(test_sets), "test"))
        else:
            primary = data.get("split", "test")
            test_sets = {primary: TestSetScores.read(primary, data)} if data else {}
        return cls(test_sets, primary, data.get("steps"), data.get("tested_step"), data.get("step"),
                   str(data.get("checkpoint") or ""), data.get("valid_curve") or [], data.get("best_valid_step"),
                   data.get("parameters"),
                   data.get("target_tokens_per_s"), data.get("train_minutes"), str(data.get("device") or ""),
                   dict(data.get("corpus_dropped") or {}), str(data.get("encoding_kind") or ""),
                   dict(data.get("position_probe") or {}))

    @property
    def primary(self) -> Optional[TestSetScores]:
        return self.test_sets.get(self.test_set)

    @property
    def trend(self) -> Optional[ValidTrend]:
        """Valid BLEU's slope over the last validations up to the tested step (convergence.valid_trend)."""
        return valid_trend(self.valid_curve, self.model_step)

    @property
    def model_step(self) -> Optional[int]:
        """The training step of the model the test sets scored. Runs that record it say so (`tested_step`; an
        evaluation its checkpoint's `step`); older runs tested best.pt, saved at the validation with the best valid
        BLEU (the first of equal ones), or the last step when they kept no best.pt."""
        for step in (self.tested_step, self.step):
            if step is not None:
                return int(step)
        if self.checkpoint.endswith("best.pt") and self.valid_curve:
            best = max(point[1] for point in self.valid_curve)
            return int(next(point[0] for point in self.valid_curve if point[1] == best))
        return None if self.steps is None else int(self.steps)
