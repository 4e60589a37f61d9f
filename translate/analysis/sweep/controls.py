"""What the controls of a seed_repro sweep (conf/sweep/pe) say about claim (a), read from report rows whose Δ is
against sinusoidal PE, and which encodings besides sinusoidal (b) and (c) can be read against.

- dims >= 400 set to their mean over positions (`zero_dims_mean`): the constant the model saw on average, without
  the position (over a sentence's positions those dims are nearly constant: cos ~ 1, sin ~ 0). If zeroing hurts and
  this does not, what zeroing took away was a constant offset, not position.
- dims >= 400 zeroed at test time only (`zero_dims_at_test`: translate.evaluate on the sinusoidal model): whether the
  trained model uses those dims, not whether a model trained without them does as well.
- dims [0, 112) zeroed (`zero_low_dims`), the positive control: the fast-varying dims that carry most of the position.
  If a model retrained without them is not worse, retraining makes up for lost dims, and claim (a), which retrains,
  cannot show that dims >= 400 carried nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

from translate.analysis.sweep.aggregate import MARGIN, MIN_BUCKET
from translate.analysis.sweep.claims import (Verdict, below_zero, decides, delta_text, equivalence, groups,
                                             in_group, is_short, bucket_rows)


@dataclass(frozen=True)
class Control:
    ablation: str     # the ablation's name in the sweep's jobs
    what: str         # what it does, as the page says it
    must_hurt: bool   # the positive control: it must be worse; the others should barely change BLEU


CONTROLS = (
    Control("zero_dims_mean", "PE dimensions ≥ 400 set to their mean over positions instead of 0", False),
    Control("zero_dims_at_test", "PE dimensions ≥ 400 zeroed at test time only, in the model trained with them",
            False),
    Control("zero_low_dims", "PE dimensions [0, 112) zeroed, the positive control: it must hurt", True),
)


def is_control(control: Control):
    return lambda r: r["encoding"] == "sinusoidal" and r["ablation"] == control.ablation


def control_status(control: Control, deciding: list[dict], margin: float) -> str:
    if not deciding:
        return "not measured"
    if control.must_hurt:
        worse = [below_zero(r) for r in deciding]
        return "worse" if all(worse) else "partly worse" if any(worse) else "not shown to be worse"
    outcomes = [equivalence(r, margin) for r in deciding]
    if all(o == "same" for o in outcomes):
        return "about the same"
    return "different" if "different" in outcomes else "not shown to be about the same"


def where(rows: list[dict]) -> str:
    """"1-5 words (trained on words 1-9), 6-10 words (...)"."""
    return ", ".join(f"{r['bucket']} words ({in_group(r['group'])})" for r in rows)


def what_it_means(deciding: list[dict]) -> str:
    """The positive control retrains: where a model trained without dims that carry position is not worse, a
    retrained model made up for them, and claim (a), which retrains too, cannot show that dims >= 400 carried
    nothing there."""
    worse = [r for r in deciding if below_zero(r)]
    same = [r for r in deciding if not below_zero(r)]
    lines = []
    if worse:
        lines.append(f"Worse on {where(worse)}: retrained without dims that carry position, the model loses BLEU "
                     f"there, so the test of (a) can see such a loss.")
    if same:
        lines.append(f"Not shown to be worse on {where(same)}: there a retrained model made up for the lost dims, so "
                     f"(a), which retrains too, cannot show that dims ≥ 400 carried nothing (zeroing them at test "
                     f"time can).")
    return " ".join(lines)


def check_control(control: Control, rows: list[dict], margin: float = MARGIN,
                  min_bucket: int = MIN_BUCKET) -> Verdict | None:
    """None when the sweep has no job of this control."""
    verdict, statuses, deciding = Verdict(f"Control: {control.what}."), [], []
    for group in groups(rows):
        short = [r for r in bucket_rows(rows, group, is_control(control), is_short).values()
                 if r["delta_bleu"] is not None]
        if not short:
            continue
        deciding_here = [r for r in short if decides(r, min_bucket)]
        deciding += deciding_here
        statuses.append(control_status(control, deciding_here, margin))
        verdict.details.append(f"{in_group(group)}: {statuses[-1]}; {control.ablation} minus sinusoidal: "
                               + "; ".join(delta_text(r, min_bucket) for r in short) + ".")
    if not statuses:
        return None
    verdict.status = statuses[0] if len(set(statuses)) == 1 else "differs between training groups"
    if control.must_hurt and deciding:
        verdict.details.append(what_it_means(deciding))
    return verdict


def check_controls(rows: list[dict], margin: float = MARGIN, min_bucket: int = MIN_BUCKET) -> list[Verdict]:
    """The controls the sweep ran, in CONTROLS order."""
    verdicts = (check_control(control, rows, margin, min_bucket) for control in CONTROLS)
    return [v for v in verdicts if v is not None]


def other_encodings(rows: list[dict]) -> list[str]:
    """Encodings used as is besides sinusoidal (e.g. rope, t5): (b) and (c) are read against each of them too."""
    return sorted({r["encoding"] for r in rows if r["ablation"] == "none"} - {"sinusoidal", "none"})
