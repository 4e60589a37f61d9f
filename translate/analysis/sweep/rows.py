"""The rows of a sweep report as types: one ReportRow per setting x test set x length bucket, one SpanRow per claim
span (spans.span_rows), one AlignmentRow per alignment metric (spans.alignment_rows), one WithinRow per metric of
a model read on its short and long sentences (within.within_rows). aggregate and spans build them;
tables, claims, the pages and the plots read their attributes.

report.json holds each row flat (`as_json`: a score as `bleu`, `bleu_low`, ...; a Δ as `delta_bleu`,
`delta_bleu_low`, ..., `p_bleu`, `test_bleu`), in the order of the fields, and is read back through the same classes
(`read`): a key a class does not know is skipped (older reports hold `diagonal_share_low`/`_high`), a key an older
report lacks keeps its default. This module is the one place that knows those key names.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, ClassVar, Optional

from translate.analysis.run.convergence import PER_STEPS, ValidTrend
from translate.analysis.run.metrics_json import BucketStatistics
from translate.analysis.significance import MAX_DF, Difference


def rounded(x: Optional[float], digits: int = 2) -> Optional[float]:
    return None if x is None else round(x, digits)


@dataclass
class RowSetting:
    """What a row is about: the first keys of every report, span and alignment row."""

    setting: Optional[str] = None
    pe: Optional[str] = None           # encoding and ablation, e.g. "sinusoidal + zero_dims(from=400)"
    group: Optional[str] = None        # the rest of what varies, e.g. "train words 11-17"
    test_set: Optional[str] = None
    encoding: Optional[str] = None
    ablation: Optional[str] = None
    train_words: Optional[str] = None  # "1-9", "11+", "all"
    model: Optional[str] = None
    seeds: Optional[int] = None
    planned_seeds: Optional[int] = None   # what its sweep planned (plan.py): fewer paired seeds make a verdict pending

    def about(self) -> dict[str, Any]:
        """These fields alone, to start a row of another kind about the same setting and test set."""
        return {f.name: getattr(self, f.name) for f in fields(RowSetting)}


@dataclass
class Convergence:
    """Were the jobs still learning when scored: the mean over seeds of valid BLEU's slope over the last validations
    before the tested step (per 1,000 steps, convergence.valid_trend), and how many of the jobs whose slope has an
    interval (three validations or more) were still rising (the interval above 0). None where no job recorded two
    validations in that window."""

    valid_slope: Optional[float] = None
    rising_seeds: Optional[int] = None
    trend_seeds: Optional[int] = None      # jobs whose slope has an interval
    from_step: Optional[int] = None        # the validations fitted: from the first of any seed
    to_step: Optional[int] = None          # to the last

    @classmethod
    def of(cls, trends: list[Optional[ValidTrend]]) -> "Convergence":
        present = [t for t in trends if t is not None]
        if not present:
            return cls()
        return cls(round(sum(t.slope for t in present) / len(present), 2), sum(t.rising for t in present),
                   sum(t.tested for t in present), min(t.first for t in present), max(t.last for t in present))

    def rising_text(self, short: bool = False) -> str:
        if not self.trend_seeds:
            return "two validations: no interval"
        if short:
            return f"shown rising: {self.rising_seeds}/{self.trend_seeds}"
        return (f"shown still rising (95% interval above 0) in {self.rising_seeds} of {self.trend_seeds} "
                f"seed{'s' * (self.trend_seeds != 1)}")

    def cell(self) -> str:
        """"+2.03 (shown rising: 1/3)": a table cell; "–" without a slope."""
        return self.brief(short=True) or "–"

    def describe(self) -> str:
        """"valid BLEU +2.03 per 1,000 steps over steps 2400-3400 (shown still rising ... in 1 of 1 seed)": the
        validations of the last half of the steps up to the tested step (convergence.TREND_SHARE)."""
        if self.valid_slope is None:
            return ""
        return (f"valid BLEU {self.valid_slope:+.2f} per {PER_STEPS:,} steps over steps "
                f"{self.from_step}-{self.to_step} ({self.rising_text()})")

    def brief(self, short: bool = False) -> str:
        """"+0.47 (shown still rising ... in 0 of 1 seed)": describe() beside another model's, over the same steps;
        "" without a slope."""
        if self.valid_slope is None:
            return ""
        return f"{self.valid_slope:+.2f} ({self.rising_text(short)})"

    def columns(self, prefix: str = "") -> dict[str, Any]:
        return {f"{prefix}{f.name}": getattr(self, f.name) for f in fields(self)}

    @classmethod
    def read(cls, data: dict, prefix: str = "") -> "Convergence":
        return cls(*(data.get(f"{prefix}{f.name}") for f in fields(cls)))


@dataclass
class Score:
    """BLEU or chrF of a row: the value (mean over seeds) and its interval (bootstrap with one seed, mean ± std with
    several; std None with one seed)."""

    value: Optional[float] = None
    low: Optional[float] = None
    high: Optional[float] = None
    std: Optional[float] = None

    def columns(self, name: str) -> dict[str, Any]:
        return {name: self.value, f"{name}_low": self.low, f"{name}_high": self.high, f"{name}_std": self.std}

    @classmethod
    def read(cls, data: dict, name: str) -> "Score":
        return cls(data.get(name), data.get(f"{name}_low"), data.get(f"{name}_high"), data.get(f"{name}_std"))


@dataclass
class Estimate:
    """A significance.Difference as a report keeps it, rounded as report.json holds it (so a page reads the same
    numbers from a fresh report as from a written one): Δ, its 95% and 90% intervals, p and standard error. Delta
    (a report row's Δ) and Quantity (a span's or alignment contrast) add what each records."""

    delta: Optional[float] = None
    low: Optional[float] = None
    high: Optional[float] = None
    p: Optional[float] = None
    low90: Optional[float] = None
    high90: Optional[float] = None
    se: Optional[float] = None

    @staticmethod
    def rounded_fields(d: Difference, digits: int) -> tuple[Optional[float], ...]:
        """Its fields from `d`, Δ and the intervals to `digits`, the standard error to one more, p to 6."""
        return (rounded(d.delta, digits), rounded(d.low, digits), rounded(d.high, digits), rounded(d.p, 6),
                rounded(d.low90, digits), rounded(d.high90, digits), rounded(d.se, digits + 1))


@dataclass
class Delta(Estimate):
    """One metric's Δ against the baseline as a report row keeps it."""

    sentence_se: Optional[float] = None
    df: Optional[float] = None
    mdd: Optional[float] = None              # minimum detectable |Δ|
    std: Optional[float] = None              # of the per-seed deltas
    seeds: Optional[list] = None             # Δ per seed
    test: Optional[str] = None               # how it was tested (Difference.method)
    holm: Optional[float] = None             # p Holm-adjusted within the row's family; None: in no family

    @classmethod
    def of(cls, d: Difference, digits: int = 2) -> "Delta":
        """digits: of Δ, its intervals, MDD and spread (2 for BLEU and chrF points, 3 for a length ratio)."""
        return cls(*cls.rounded_fields(d, digits), rounded(d.sentence_se, digits + 1), rounded(d.df, 1),
                   rounded(d.detectable, digits), rounded(d.std, digits), [round(v, digits) for v in d.per_seed],
                   d.method)

    def difference(self) -> Difference:
        """Back as a Difference (for contrasts between rows)."""
        return Difference(self.delta, self.low, self.high, self.p, list(self.seeds or []), self.std, self.test or "",
                          self.low90, self.high90, self.se, self.sentence_se, self.df or float(MAX_DF), self.mdd)

    def columns(self, name: str) -> dict[str, Any]:
        return {f"delta_{name}": self.delta, f"delta_{name}_low": self.low, f"delta_{name}_high": self.high,
                f"p_{name}": self.p, f"delta_{name}_low90": self.low90, f"delta_{name}_high90": self.high90,
                f"delta_{name}_se": self.se, f"delta_{name}_sentence_se": self.sentence_se,
                f"delta_{name}_df": self.df, f"delta_{name}_mdd": self.mdd, f"delta_{name}_std": self.std,
                f"delta_{name}_seeds": self.seeds, f"test_{name}": self.test}

    @classmethod
    def read(cls, data: dict, name: str) -> Optional["Delta"]:
        """None where the row has no Δ (the baseline itself, a bucket without a paired test)."""
        if data.get(f"delta_{name}") is None:
            return None
        return cls(data.get(f"delta_{name}"), data.get(f"delta_{name}_low"), data.get(f"delta_{name}_high"),
                   data.get(f"p_{name}"), data.get(f"delta_{name}_low90"), data.get(f"delta_{name}_high90"),
                   data.get(f"delta_{name}_se"), data.get(f"delta_{name}_sentence_se"), data.get(f"delta_{name}_df"),
                   data.get(f"delta_{name}_mdd"), data.get(f"delta_{name}_std"), data.get(f"delta_{name}_seeds"),
                   data.get(f"test_{name}"), data.get(f"p_{name}_holm"))


@dataclass
class Comparison:
    """A report row against the baseline: Δ BLEU and Δ chrF, and on the whole test set the interaction
    Δ_long − Δ_short of each (None where not compared); Δ of the length ratio, which tells a gap in where a model
    stops from one in what it writes: it is in no Holm family (tests)."""

    bleu: Optional[Delta] = None
    chrf: Optional[Delta] = None
    interaction_bleu: Optional[Delta] = None
    interaction_chrf: Optional[Delta] = None
    length_ratio: Optional[Delta] = None

    def tests(self, metric: str) -> list[Delta]:
        """The tests of `metric` (bleu or chrf) the row holds: its Δ and its interaction, those with a p."""
        pair = (self.bleu, self.interaction_bleu) if metric == "bleu" else (self.chrf, self.interaction_chrf)
        return [d for d in pair if d is not None and d.p is not None]

    def columns(self) -> dict[str, Any]:
        return {k: v for f in fields(self) for k, v in (getattr(self, f.name) or Delta()).columns(f.name).items()}

    def holm_columns(self) -> dict[str, Any]:
        """p_<metric>_holm of each test, written after the row's other keys, in the order Holm adjusted them."""
        return {f"p_{name}_holm": d.holm for name, d in (("bleu", self.bleu), ("interaction_bleu", self.interaction_bleu),
                                                         ("chrf", self.chrf), ("interaction_chrf", self.interaction_chrf))
                if d is not None and d.p is not None}

    @classmethod
    def read(cls, data: dict) -> "Comparison":
        return cls(*(Delta.read(data, f.name) for f in fields(cls)))


@dataclass
class RowHead(RowSetting):
    interval: Optional[str] = None     # "bootstrap 95%" or "mean ± std over S seeds"
    bucket: Optional[str] = None       # a length bucket, or "all": the whole test set
    low: Optional[int] = None
    high: Optional[int] = None         # None: no upper end
    sentences: Optional[int] = None
    bleu: Score = field(default_factory=Score)
    chrf: Score = field(default_factory=Score)


@dataclass
class ReportRow(BucketStatistics, RowHead):
    """One setting on one test set and one length bucket (or the whole set): its scores, the per-bucket statistics
    the runs record (BucketStatistics, mean over seeds), the comparison with the baseline and what the jobs cost."""

    lengths: Optional[str] = None          # trained, partly, beyond (aggregate.training_lengths)
    decides: Optional[bool] = None         # rules.decides: enough sentences to decide a verdict
    repeated_words: Optional[float] = None
    compared: Comparison = field(default_factory=Comparison)
    parameters: Optional[int] = None
    target_tokens_per_s: Optional[float] = None
    train_minutes: Optional[float] = None
    device: Optional[str] = None           # what trained (or, for a test-time control, decoded): "CPU, fp32"
    steps: Optional[int] = None
    tested_step: Optional[str] = None      # "600", or "580–600" when the seeds differ
    convergence: Convergence = field(default_factory=Convergence)
    jobs: Optional[str] = None             # the run folders, space-separated
    family: Optional[str] = None           # Holm's family of the row's tests (aggregate.family_of)

    @property
    def trained(self) -> bool:
        """Jobs finished by training: a test-time control's row (an evaluation only) records no steps."""
        return self.steps is not None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Score):
                out.update(value.columns(f.name))
            elif isinstance(value, (Comparison, Convergence)):
                out.update(value.columns())
            else:
                out[f.name] = value
        return out | self.compared.holm_columns()

    @classmethod
    def read(cls, data: dict) -> "ReportRow":
        nested = {"bleu": Score.read(data, "bleu"), "chrf": Score.read(data, "chrf"), "compared": Comparison.read(data),
                  "convergence": Convergence.read(data)}
        return cls(**{f.name: nested[f.name] if f.name in nested else data.get(f.name) for f in fields(cls)})


@dataclass
class SpanDelta(Delta):
    """A span's Δ with what the claims read beside it: the baseline's score, equivalence at the margin (TOST), the
    margin the data establish, the seeds a ±margin equivalence would need, Δ relative to the baseline."""

    baseline: Optional[float] = None
    equivalent: Optional[bool] = None
    established_margin: Optional[float] = None
    seeds_needed: Optional[int] = None
    relative_delta: Optional[float] = None

    def columns(self, name: str) -> dict[str, Any]:
        return {f"baseline_{name}": self.baseline, **super().columns(name), f"equivalent_{name}": self.equivalent,
                f"established_margin_{name}": self.established_margin, f"seeds_needed_{name}": self.seeds_needed,
                f"relative_delta_{name}": self.relative_delta}

    @classmethod
    def read(cls, data: dict, name: str) -> Optional["SpanDelta"]:
        delta = Delta.read(data, name)
        if delta is None:
            return None
        return cls(**{f.name: getattr(delta, f.name) for f in fields(Delta)}, baseline=data.get(f"baseline_{name}"),
                   equivalent=data.get(f"equivalent_{name}"),
                   established_margin=data.get(f"established_margin_{name}"),
                   seeds_needed=data.get(f"seeds_needed_{name}"), relative_delta=data.get(f"relative_delta_{name}"))


@dataclass
class SpanComparison:
    """A span against the baseline: Δ BLEU and Δ chrF, and the baseline's own output length on the span."""

    bleu: SpanDelta
    chrf: SpanDelta
    baseline_length_ratio: Optional[float] = None
    baseline_bp: Optional[float] = None
    baseline_convergence: Convergence = field(default_factory=Convergence)

    def columns(self) -> dict[str, Any]:
        return {**self.bleu.columns("bleu"), **self.chrf.columns("chrf"),
                "baseline_length_ratio": self.baseline_length_ratio, "baseline_bp": self.baseline_bp,
                **self.baseline_convergence.columns("baseline_")}

    @classmethod
    def read(cls, data: dict) -> Optional["SpanComparison"]:
        bleu, chrf = SpanDelta.read(data, "bleu"), SpanDelta.read(data, "chrf")
        if bleu is None or chrf is None:
            return None
        return cls(bleu, chrf, data.get("baseline_length_ratio"), data.get("baseline_bp"),
                   Convergence.read(data, "baseline_"))


@dataclass
class SpanRow(RowSetting):
    """One setting on the lengths a claim is about, merged (spans.py): trained or beyond its training lengths."""

    span: Optional[str] = None             # trained, beyond
    low: Optional[int] = None
    high: Optional[int] = None             # None: no upper end
    bucket: Optional[str] = None           # e.g. "trained 1-9"
    sentences: Optional[int] = None
    decides: Optional[bool] = None
    tested_steps: list = field(default_factory=list)
    jobs: Optional[str] = None
    bleu: Optional[float] = None
    chrf: Optional[float] = None
    length_ratio: Optional[float] = None   # output/reference words (corpus level)
    bp: Optional[float] = None             # BLEU's brevity penalty
    convergence: Convergence = field(default_factory=Convergence)
    compared: Optional[SpanComparison] = None   # None: no baseline to pair with (or no bootstrap samples)

    def as_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("compared", "convergence")}
        return (out | self.convergence.columns()
                | (self.compared.columns() if self.compared is not None else {}))

    @classmethod
    def read(cls, data: dict) -> "SpanRow":
        return cls(**{f.name: data.get(f.name) for f in fields(cls) if f.name not in ("compared", "convergence")},
                   convergence=Convergence.read(data), compared=SpanComparison.read(data))


@dataclass
class Quantity(Estimate):
    """One span's or alignment contrast (a Difference summarised, rounded to `digits`): with the Estimate, the
    minimum detectable difference, per-seed values and how it was tested."""

    mdd: Optional[float] = None
    per_seed: list = field(default_factory=list)
    method: str = ""

    @classmethod
    def of(cls, d: Difference, digits: int = 2) -> "Quantity":
        return cls(*cls.rounded_fields(d, digits), rounded(d.detectable, digits),
                   [rounded(v, digits) for v in d.per_seed], d.method)

    @classmethod
    def read(cls, data: Optional[dict]) -> Optional["Quantity"]:
        return None if data is None else cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


@dataclass
class ShortLongRow(RowSetting):
    """A setting against its baseline on short and on long sentences: one metric, the sentences of each side, the
    jobs, each model's mean on each side; subclasses add their contrasts (Quantity fields, named in QUANTITIES)."""

    QUANTITIES: ClassVar[tuple[str, ...]] = ()

    metric: Optional[str] = None
    short_sentences: Optional[int] = None
    long_sentences: Optional[int] = None
    jobs: Optional[str] = None
    system_short: Optional[float] = None
    system_long: Optional[float] = None
    baseline_short: Optional[float] = None
    baseline_long: Optional[float] = None

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def read(cls, data: dict) -> "ShortLongRow":
        row = cls(**{f.name: data.get(f.name) for f in fields(cls)})
        return replace(row, **{name: Quantity.read(data.get(name)) for name in cls.QUANTITIES})


@dataclass
class AlignmentRow(ShortLongRow):
    """Per-sentence alignment of a setting against its baseline on short and long sentences of one test set
    (spans.alignment_rows; metric: diagonal_share_normalised, aer or monotonicity): the gaps, their interaction and
    each model's own long − short level."""

    QUANTITIES: ClassVar[tuple[str, ...]] = ("gap_short", "gap_long", "gap_interaction", "system_long_minus_short",
                                             "baseline_long_minus_short")

    better: Optional[int] = None           # +1: higher is better aligned, -1: lower is
    gap_short: Optional[Quantity] = None
    gap_long: Optional[Quantity] = None
    gap_interaction: Optional[Quantity] = None
    system_long_minus_short: Optional[Quantity] = None
    baseline_long_minus_short: Optional[Quantity] = None


@dataclass
class WithinRow(ShortLongRow):
    """One model read on its short and its long sentences against its baseline, paired by seed (within.py; metric:
    bleu, chrf, token_accuracy, unigram_f in points, or order_tau): Δ on each and the within-model interaction
    Δ_long − Δ_short. `test_set` names both sets."""

    QUANTITIES: ClassVar[tuple[str, ...]] = ("delta_short", "delta_long", "interaction")

    short_test_set: Optional[str] = None
    short_span: Optional[str] = None       # e.g. "1-10"
    long_test_set: Optional[str] = None
    long_span: Optional[str] = None        # e.g. "11-17"
    delta_short: Optional[Quantity] = None
    delta_long: Optional[Quantity] = None
    interaction: Optional[Quantity] = None
