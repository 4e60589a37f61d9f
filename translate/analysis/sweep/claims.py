"""The source notes' three claims, checked against a seed_repro report (report.json rows), per training-length group.

(a) zeroing PE dims >= 400 barely changes BLEU on short sentences;
(b) without PE short sentences translate about as well, long ones much worse;
(c) with PE the cross-attention lines up along the diagonal on long sentences, without it it does not.

"About the same" is an equivalence: both ends of the 95% interval of Δ inside ±margin (report.equivalence_margin).
A large p is never evidence of sameness: a wide interval makes a claim of sameness *inconclusive*. "Worse": the
interval entirely below 0. Claim (b) is an interaction: Δ_long − Δ_short must lie entirely below 0 too. Buckets of
fewer than report.min_bucket sentences are listed but decide nothing. The thresholds are printed with every verdict.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from translate.analysis.sweep.aggregate import LONG_MIN, MARGIN, MIN_BUCKET, SHORT_MAX
from translate.analysis.sweep.significance import p_text

MUCH_WORSE = 0.30       # (b) long: BLEU at least 30% below sinusoidal, besides an interval below 0
DIAGONAL_GAP = 0.10     # (c) normalised diagonal share at least 0.10 higher with PE than without


def thresholds(margin: float = MARGIN, min_bucket: int = MIN_BUCKET) -> str:
    return (f"short = buckets of at most {SHORT_MAX} source words, long = buckets from {LONG_MIN} words; only "
            f"buckets of at least {min_bucket} sentences decide; about the same = the 95% interval of Δ BLEU "
            f"inside ±{margin:g} (a wide interval is inconclusive, whatever p says); worse = the interval entirely "
            f"below 0; (b) much worse = also at least {MUCH_WORSE:.0%} below sinusoidal, and Δ_long − Δ_short "
            f"entirely below 0; (c) lines up = normalised diagonal share at least {DIAGONAL_GAP} higher with "
            f"sinusoidal PE than without")


THRESHOLDS = thresholds()


@dataclass
class Verdict:
    claim: str
    status: str = "not measured"    # supported, partly supported, inconclusive, not supported, not measured
    details: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Reference:
    """The PE a claim is read against: sinusoidal (the notes' own) or another encoding used as is, so the page can
    say whether (b) and (c) hold for PE in general or for sinusoidal PE only."""

    name: str

    def matches(self, r: dict) -> bool:
        return r["encoding"] == self.name and r["ablation"] == "none"


SINUSOIDAL = Reference("sinusoidal")


def is_sinusoidal(r: dict) -> bool:
    return SINUSOIDAL.matches(r)


def is_zero_dims(r: dict) -> bool:
    return r["encoding"] == "sinusoidal" and r["ablation"] == "zero_dims"


def is_nope(r: dict) -> bool:
    return (r["encoding"] == "none" and r["ablation"] == "none") or r["ablation"] == "remove"


def is_short(r: dict) -> bool:
    return r["high"] is not None and r["high"] <= SHORT_MAX and bool(r["sentences"])


def is_long(r: dict) -> bool:
    return r["low"] is not None and r["low"] >= LONG_MIN and bool(r["sentences"])


def groups(rows: list[dict]) -> list[str]:
    return sorted({r["group"] for r in rows})


def bucket_rows(rows: list[dict], group: str, which: Callable[[dict], bool], span: Callable[[dict], bool]
                ) -> dict[str, dict]:
    return {r["bucket"]: r for r in rows if r["group"] == group and which(r) and r["bucket"] != "all" and span(r)}


def decides(r: dict, min_bucket: int) -> bool:
    return bool(r["sentences"]) and r["sentences"] >= min_bucket


def equivalence(r: dict, margin: float) -> str:
    """"same": the 95% interval of Δ inside ±margin; "different": entirely outside it; else "inconclusive"."""
    low, high = r.get("delta_bleu_low"), r.get("delta_bleu_high")
    if low is None or high is None:
        return "inconclusive"
    if -margin <= low and high <= margin:
        return "same"
    if high < -margin or low > margin:
        return "different"
    return "inconclusive"


def below_zero(r: dict, key: str = "bleu") -> bool:
    high = r.get(f"delta_{key}_high")
    return high is not None and high < 0


def status_of(oks: list[bool], inconclusive: bool = False) -> str:
    """All true: supported; else inconclusive when a too-wide interval is what fails; else partly / not."""
    if not oks:
        return "not measured"
    if all(oks):
        return "supported"
    if inconclusive:
        return "inconclusive"
    return "not supported" if not any(oks) else "partly supported"


def overall(statuses: list[str]) -> str:
    measured = [s for s in statuses if s != "not measured"]
    if not measured:
        return "not measured"
    return measured[0] if len(set(measured)) == 1 else "partly supported"


def in_group(group: str) -> str:
    return f"trained on {group.removeprefix('train ')}" if group else "all jobs"


def interval_text(r: dict, key: str = "bleu") -> str:
    low, high = r.get(f"delta_{key}_low"), r.get(f"delta_{key}_high")
    return f" [{low:+.2f}, {high:+.2f}]" if low is not None and high is not None else ""


LENGTHS = {"trained": "trained lengths", "beyond": "beyond training lengths", "partly": "partly trained lengths"}


def delta_text(r: dict, min_bucket: int = MIN_BUCKET) -> str:
    """"11-15 (n=240, beyond training lengths): -15.00 [-17.10, -12.90] BLEU, p < 0.001"."""
    notes = [f"n={r['sentences']}"] + ([LENGTHS[r["lengths"]]] if r.get("lengths") in LENGTHS else [])
    if not decides(r, min_bucket):
        notes.append("too few to decide")
    return f"{r['bucket']} ({', '.join(notes)}): {r['delta_bleu']:+.2f}{interval_text(r)} BLEU, {p_text(r['p_bleu'])}"


def relative_drop(system: dict, base: dict) -> Optional[float]:
    """How far below the baseline, as a share of its BLEU (0.3: 30% lower)."""
    if not base.get("bleu"):
        return None
    return (base["bleu"] - system["bleu"]) / base["bleu"]


def zero_dims_claim(rows: list[dict], margin: float = MARGIN, min_bucket: int = MIN_BUCKET) -> Verdict:
    verdict, statuses = Verdict("(a) Zeroing PE dimensions ≥ 400 barely changes BLEU on short sentences."), []
    for group in groups(rows):
        zero = [r for r in bucket_rows(rows, group, is_zero_dims, is_short).values() if r["delta_bleu"] is not None]
        deciding = [equivalence(r, margin) for r in zero if decides(r, min_bucket)]
        statuses.append(status_of([e == "same" for e in deciding], "inconclusive" in deciding))
        if zero:
            verdict.details.append(f"{in_group(group)}: {statuses[-1]}; zero_dims minus sinusoidal: "
                                   + "; ".join(delta_text(r, min_bucket) for r in zero) + ".")
    verdict.status = overall(statuses)
    if not verdict.details:
        verdict.details.append("no sinusoidal + zero_dims job compared with sinusoidal on short buckets")
    return verdict


def interaction_text(whole: dict) -> str:
    if whole.get("delta_interaction_bleu") is None:
        return "Δ_long − Δ_short not measured"
    return (f"Δ_long − Δ_short {whole['delta_interaction_bleu']:+.2f}{interval_text(whole, 'interaction_bleu')} "
            f"BLEU" + (" (long lose more)" if below_zero(whole, "interaction_bleu") else " (not shown that long "
                                                                                         "lose more)"))


def no_pe_claim(rows: list[dict], margin: float = MARGIN, min_bucket: int = MIN_BUCKET,
                pe: Reference = SINUSOIDAL) -> Verdict:
    """Claim (b) with `pe` as the PE: the rows' Δ must be against `pe` (a report whose baseline is `pe`)."""
    verdict, statuses = Verdict("(b) Without PE, short sentences translate about as well, long ones much worse."), []
    for group in groups([r for r in rows if pe.matches(r)]):  # a group without a job of `pe` has nothing to read
        base_short = bucket_rows(rows, group, pe.matches, is_short)
        base_long = bucket_rows(rows, group, pe.matches, is_long)
        short = [r for b, r in bucket_rows(rows, group, is_nope, is_short).items() if b in base_short
                 and r["delta_bleu"] is not None]
        long = [r for b, r in bucket_rows(rows, group, is_nope, is_long).items() if b in base_long
                and r["delta_bleu"] is not None]
        whole = next((r for r in rows if r["group"] == group and is_nope(r) and r["bucket"] == "all"), {})
        short_deciding = [r for r in short if decides(r, min_bucket)]
        long_deciding = [r for r in long if decides(r, min_bucket)]
        if not short_deciding or not long_deciding:
            statuses.append("not measured")
            verdict.details.append(
                f"{in_group(group)}: not measured; it needs no-PE and {pe.name} jobs with buckets of at least "
                f"{min_bucket} test sentences of both {SHORT_MAX} words or fewer and {LONG_MIN} or more"
                + (" (" + "; ".join(delta_text(r, min_bucket) for r in short + long) + ")" if short + long else ""))
            continue

        def drop(r: dict, base: dict) -> str:
            d = relative_drop(r, base[r["bucket"]])
            return "" if d is None else f", {d:.0%} below"

        same = [equivalence(r, margin) for r in short_deciding]
        long_bad = [below_zero(r) and (relative_drop(r, base_long[r["bucket"]]) or 0) >= MUCH_WORSE
                    for r in long_deciding]
        gap = below_zero(whole, "interaction_bleu")
        statuses.append(status_of([all(e == "same" for e in same), all(long_bad), gap],
                                  "inconclusive" in same and all(long_bad) and gap))
        short_word = ("about the same" if all(e == "same" for e in same) else
                      "not shown to be about the same" if "inconclusive" in same else "not about the same")
        verdict.details.append(
            f"{in_group(group)}: {statuses[-1]}; no PE minus {pe.name}, short: "
            + "; ".join(delta_text(r, min_bucket) + drop(r, base_short) for r in short) + f" ({short_word}); long: "
            + "; ".join(delta_text(r, min_bucket) + drop(r, base_long) for r in long)
            + (" (much worse)" if all(long_bad) else " (not much worse everywhere)") + f"; {interaction_text(whole)}.")
    verdict.status = overall(statuses)
    if not verdict.details:
        verdict.details.append(f"no {pe.name} job to compare no PE with")
    return verdict


def alignment_value(r: dict) -> tuple[Optional[float], str]:
    """The normalised diagonal share when the runs have it, else the raw share (runs before it existed)."""
    if r.get("diagonal_share_normalised") is not None:
        return r["diagonal_share_normalised"], "normalised diagonal share"
    return r.get("diagonal_share"), "diagonal share"


def diagonal_claim(rows: list[dict], margin: float = MARGIN, min_bucket: int = MIN_BUCKET,
                   pe: Reference = SINUSOIDAL) -> Verdict:
    verdict, statuses = Verdict("(c) With PE the cross-attention lines up along the diagonal on long sentences; "
                                "without PE it does not."), []
    for group in groups(rows):
        with_pe = bucket_rows(rows, group, pe.matches, lambda r: alignment_value(r)[0] is not None)
        without = bucket_rows(rows, group, is_nope, lambda r: alignment_value(r)[0] is not None)
        both = [b for b in with_pe if b in without]
        long = [b for b in both if is_long(with_pe[b]) and decides(with_pe[b], min_bucket)]
        oks = [alignment_value(with_pe[b])[0] - alignment_value(without[b])[0] >= DIAGONAL_GAP for b in long]
        statuses.append(status_of(oks))
        if both:
            verdict.details.append(
                f"{in_group(group)}: {statuses[-1]}; {alignment_value(with_pe[both[0]])[1]} with "
                f"{'' if pe == SINUSOIDAL else pe.name + ' '}/ without PE: "
                + "; ".join(f"{b}{' (long)' if is_long(with_pe[b]) else ''}"
                            f"{'' if decides(with_pe[b], min_bucket) else ' (too few to decide)'}: "
                            f"{alignment_value(with_pe[b])[0]:.2f} / {alignment_value(without[b])[0]:.2f}"
                            for b in both) + ".")
    verdict.status = overall(statuses)
    if not verdict.details:
        verdict.details.append(f"no diagonal share per bucket for both {pe.name} and no-PE jobs")
    return verdict


def check_claims(rows: list[dict], margin: float = MARGIN, min_bucket: int = MIN_BUCKET) -> list[Verdict]:
    return [zero_dims_claim(rows, margin, min_bucket), no_pe_claim(rows, margin, min_bucket),
            diagonal_claim(rows, margin, min_bucket)]
