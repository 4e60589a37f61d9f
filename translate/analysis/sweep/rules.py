"""What decides a verdict, in one place: the smallest bucket that decides and the margin of "about the same" (their
values are the sweep's own: its jobs' `report` settings, checked equal across them by aggregate.rules_from, which
builds the one Rules every table, span and claim is given), the test each applies, and when a comparison is only an
interim look (fewer paired seeds than its sweep planned)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from translate.analysis.sweep.rows import Delta, RowSetting

SAMPLES = 10_000   # bootstrap resamples of a sweep report unless --samples says otherwise


def decides(sentences: Optional[int], min_bucket: int) -> bool:
    """Whether a bucket or span of `sentences` test sentences may decide a verdict (and carry a star)."""
    return bool(sentences) and sentences >= min_bucket


def verdict_word(delta: Delta, decides_: bool, margin: float) -> str:
    """The word a report gives a Δ against the baseline: "better"/"worse" when its Holm-adjusted p < 0.05 (the star),
    "about the same" when both one-sided tests pass at ±margin (Difference.equivalent), "inconclusive" when neither;
    "too few" for a bucket that decides nothing; "one seed" (EXPLORATORY) for a Δ of one seed (one_seed); NO_SPREAD
    for a Δ whose interval has no width (no_spread)."""
    if not decides_:
        return "too few"
    if one_seed(delta):
        return EXPLORATORY
    if no_spread(delta):
        return NO_SPREAD
    if delta.holm is not None and delta.holm < 0.05:
        return "better" if delta.delta > 0 else "worse"
    return "about the same" if delta.difference().equivalent(margin) else "inconclusive"


EXPLORATORY = "one seed"
NO_SPREAD = "no spread: decides nothing"


def no_spread(delta: Delta) -> bool:
    """A Δ whose interval has no width (e.g. every model at BLEU 0, or a one-sentence bucket): nothing was measured
    that could differ, so it is neither "about the same" nor different."""
    return delta.low is not None and delta.low == delta.high


def one_seed(delta: Delta) -> bool:
    """A Δ of one seed: its interval counts the test sentences' noise and nothing of the spread between seeds, so
    it is exploratory: shown with its interval and p, in no Holm family, with no star and no verdict word."""
    return delta.seeds is not None and len(delta.seeds) == 1


def exploratory(r: RowSetting) -> bool:
    """Whether a row's comparison pairs one seed (one_seed of its Δ BLEU)."""
    compared = getattr(r, "compared", None)
    return compared is not None and compared.bleu is not None and one_seed(compared.bleu)


def pending(r: RowSetting) -> Optional[str]:
    """"pending: 9 of 11 planned seeds" where a comparison pairs fewer seeds than its sweep planned (plan.py): an
    interim look, shown with its figures but with no verdict word and no star; None once the planned seeds are in
    (or where no plan is recorded)."""
    compared = getattr(r, "compared", None)
    bleu = compared.bleu if compared is not None else None   # the baseline's own rows compare nothing
    paired = len(bleu.seeds) if bleu is not None and bleu.seeds else r.seeds
    if r.planned_seeds and paired is not None and paired < r.planned_seeds:
        return f"pending: {paired} of {r.planned_seeds} planned seeds"
    return None


def interim_text(waiting: str) -> str:
    return f"{waiting}, an interim look: no verdict until the planned seeds are in"


@dataclass(frozen=True)
class Rules:
    """What decides a verdict, built once per sweep (aggregate.rules_from) and printed on the page: bootstrap
    resamples, the smallest bucket that decides (report.min_bucket: smaller ones are shown but decide nothing) and
    the ±BLEU margin of "about the same" (report.equivalence_margin)."""

    samples: int
    min_bucket: int
    margin: float

    def decides(self, sentences: Optional[int]) -> bool:
        return decides(sentences, self.min_bucket)

    def as_dict(self) -> dict:
        return {"samples": self.samples, "min_bucket": self.min_bucket, "equivalence_margin": self.margin}
