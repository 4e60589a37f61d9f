"""What the controls of a seed_repro sweep (conf/sweep/pe) say about claim (a), read from report rows whose Δ is
against sinusoidal PE, and which encodings besides sinusoidal (b) and (c) can be read against.

- dims >= 400 set to their mean over positions (`zero_dims_mean`): the constant the model saw on average, without
  the position (over a sentence's positions those dims are nearly constant: cos ~ 1, sin ~ 0). If zeroing hurts and
  this does not, what zeroing took away was a constant offset, not position.
- dims >= 400 zeroed at test time only (`zero_dims_at_test`: translate.evaluate on the sinusoidal model): whether the
  trained model uses those dims, not whether a model trained without them does as well.
- dims [0, 112) zeroed (`zero_low_dims`), the positive control: the fast-varying dims that carry most of the position.
  If a model retrained without them is shown about the same (TOST), retraining makes up for lost dims, and claim (a),
  which retrains, cannot show that dims >= 400 carried nothing; if it is merely not shown worse, the data are too
  few to tell.
"""
from __future__ import annotations

from dataclasses import dataclass

from translate.study.verdicts.claims import LONG_TEST_SET, cells, decides, is_long_span, is_short_span, span_reading
from translate.study.verdicts.verdict import Family, Verdict
from translate.study.verdicts.wording import brief_group, delta_text, equivalence_text, lengths_text, where
from translate.analysis.sweep.rows import RowSetting, SpanRow
from translate.analysis.sweep.rules import EXPLORATORY, Rules, exploratory, interim_text, pending


@dataclass(frozen=True)
class Control:
    ablation: str     # the ablation's name in the sweep's jobs
    what: str         # what it does, as the page says it
    must_hurt: bool   # the positive control: it must be worse; the others should barely change BLEU


CONTROLS = (
    Control("zero_dims_mean", "PE dimensions ≥ 400 set to their mean over positions instead of 0", False),
    Control("zero_dims_at_test", "PE dimensions ≥ 400 zeroed at test time only, in the model trained with them",
            False),
    Control("zero_dims_mean_at_test", "PE dimensions ≥ 400 set to their mean over positions at test time only, in "
            "the model trained with them", False),
    Control("zero_low_dims", "PE dimensions [0, 112) zeroed, the positive control: it must hurt", True),
)


def is_control(control: Control):
    return lambda r: r.encoding == "sinusoidal" and r.ablation == control.ablation


def check_control(control: Control, spans: list[SpanRow], test_set: str | None, rules: Rules) -> Verdict | None:
    """None when the sweep has no job of this control. Read like claim (a): each model on the lengths it was trained
    on, merged, short ones on `test_set`, long ones on the reserved long test set; its own Holm family."""
    margin = rules.margin
    found = cells(spans, is_control(control), is_short_span) + cells(spans, is_control(control), is_long_span)
    if not found:
        return None

    def deciding_set(r: SpanRow) -> bool:
        return r.test_set == (test_set if is_short_span(r) else LONG_TEST_SET)

    verdict = Verdict(f"Control: {control.what}.", control=control.ablation)
    family = Family(f"control {control.ablation}")
    outcomes: list[tuple[str, str]] = []  # per deciding span: (its word, its training group)
    seen: list[tuple[str, str]] = []  # per span of several seeds: (test set, "worse" / "same" by TOST / "unclear")
    waitings = [pending(r) for r in found]
    # Holm over the deciding tests only: the primary test set's, of several seeds, with their planned seeds in
    indices = [family.add(r.compared.bleu.p if decides(r, rules) and not waiting and not exploratory(r)
                          and deciding_set(r) else None)
               for r, waiting in zip(found, waitings)]
    for r, index, waiting in zip(found, indices, waitings):
        primary = deciding_set(r)
        # another test set's Δ is read with its unadjusted p and decides nothing
        significant = family.significant(index) if primary else r.compared.bleu.p is not None and r.compared.bleu.p < 0.05
        if not decides(r, rules):
            text = "too few to decide"
        elif waiting:
            text = interim_text(waiting)
        elif exploratory(r):
            text = f"{EXPLORATORY}: exploratory, its interval knows nothing of the spread between seeds"
        elif control.must_hurt:
            worse = significant and r.compared.bleu.delta < 0
            seen.append((r.test_set, "worse" if worse else "same" if r.compared.bleu.equivalent else "unclear"))
            text = "worse" if worse else "not shown to be worse" + (
                f" (about the same: within ±{margin:g} BLEU)" if seen[-1][1] == "same" else "")
        else:
            text = equivalence_text(r, margin, significant)
        if decides(r, rules) and primary:
            word = waiting or text.split(":")[0].split(" (")[0]
            outcomes.append((word, r.group))
            verdict.shown.append(span_reading(r, word))
        elif decides(r, rules) and not waiting and not exploratory(r):
            text += " (unadjusted p; decides nothing: not the primary test set)"
        verdict.add(f"{where(r)}: {control.ablation} minus sinusoidal {delta_text(r, family, index)}; {text}; "
                    f"{lengths_text(r)}.")
    verdict.status = group_words(outcomes)
    if control.must_hurt:
        verdict.add(what_it_means(seen, margin) if seen else
                    "One seed: this pair of models shows what one retraining without the dims that carry position "
                    "did; it says nothing of the spread between seeds, so it cannot show that (a)'s test sees a loss "
                    f"of its ±{margin:g} margin." if any(exploratory(r) for r in found) else "Too few sentences to decide.")
    verdict.family = family.describe()
    return verdict


def group_words(outcomes: list[tuple[str, str]]) -> str:
    """The control's word: one word where every training group reads alike, else each group's word named by its group
    ("different (words 1-9, base_cpu); pending: 1 of 8 planned seeds (words 11-17, base_cpu)"), so that a group
    still waiting for its seeds is not read as one that disagrees."""
    if not outcomes:
        return "not measured"
    words = {word for word, _ in outcomes}
    if len(words) == 1:
        return words.pop()
    return "; ".join(f"{word} ({brief_group(group)})" for word, group in outcomes)


def what_it_means(seen: list[tuple[str, str]], margin: float) -> str:
    """The positive control retrains. Where a model trained without dims that carry position is worse, the test of
    (a) can see such a loss; where it is shown about the same (TOST), a retrained model made up for them and (a),
    which retrains too, cannot show there that dims >= 400 carried nothing; where neither is shown, the test set or
    the seeds are too few to tell, which is not evidence that retraining made up for anything."""
    if not seen:
        return "Too few sentences to decide."
    if all(outcome == "worse" for _, outcome in seen):
        return ("Retrained without dims that carry position, the model loses BLEU, so the test of (a) can see such a "
                "loss.")
    readings = {"worse": "the model retrained without dims that carry position loses BLEU, so there the test of (a) "
                         "can see such a loss",
                "same": f"a retrained model made up for the lost dims (about the same within ±{margin:g} BLEU): there "
                        f"(a), which retrains too, cannot show that dims ≥ 400 carried nothing (zeroing them at test "
                        f"time can)",
                "unclear": "the loss is neither shown nor ruled out (too few sentences or seeds): there a loss like it "
                           "may go unseen by (a) too"}
    parts = []
    for outcome, reading in readings.items():
        names = ", ".join(f"`{name}`" for name, o in seen if o == outcome)
        if names:
            parts.append(f"on {names} {reading}")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def check_controls(spans: list[SpanRow], test_set: str | None, rules: Rules) -> list[Verdict]:
    """The controls the sweep ran, in CONTROLS order."""
    verdicts = (check_control(control, spans, test_set, rules) for control in CONTROLS)
    return [v for v in verdicts if v is not None]


def other_encodings(rows: list[RowSetting]) -> list[str]:
    """Encodings used as is besides sinusoidal (e.g. rope, t5): (b) and (c) are read against each of them too."""
    return sorted({r.encoding for r in rows if r.ablation == "none"} - {"sinusoidal", "none"})
