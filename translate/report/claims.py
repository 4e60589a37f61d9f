"""The source notes' three claims, checked against a seed_repro report (report.json rows), per training-length group.

(a) zeroing PE dims >= 400 barely changes BLEU on short sentences;
(b) without PE short sentences translate about as well, long ones much worse;
(c) with PE the cross-attention lines up along the diagonal on long sentences, without it it does not.

The thresholds are stated here and printed with every verdict, so that a reader can disagree with them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

SHORT_MAX = 10          # a bucket is short when all its sentences have at most 10 French words
LONG_MIN = 11           # long: at least 11 words (the source notes' "long" training set starts there)
BARELY = 1.0            # (a) |Δ BLEU| at most this, or not significant
ALPHA = 0.05
ABOUT_AS_WELL = 0.10    # (b) short: BLEU at most 10% below sinusoidal (or within BARELY points, or not significant)
MUCH_WORSE = 0.30       # (b) long: BLEU at least 30% below sinusoidal, and significant
DIAGONAL_GAP = 0.10     # (c) diagonal share at least 0.10 higher with PE than without
THRESHOLDS = (f"short = buckets of at most {SHORT_MAX} source words, long = buckets from {LONG_MIN} words; "
              f"(a) barely = |Δ BLEU| ≤ {BARELY} or p ≥ {ALPHA}; (b) about as well = at most "
              f"{ABOUT_AS_WELL:.0%} below sinusoidal, |Δ| ≤ {BARELY} or p ≥ {ALPHA}; much worse = at least "
              f"{MUCH_WORSE:.0%} below and p < {ALPHA}; (c) lines up = diagonal share at least {DIAGONAL_GAP} "
              f"higher with sinusoidal PE than without")


@dataclass
class Verdict:
    claim: str
    status: str = "not measured"    # supported, partly supported, not supported, not measured
    details: list[str] = field(default_factory=list)


def is_sinusoidal(r: dict) -> bool:
    return r["encoding"] == "sinusoidal" and r["ablation"] == "none"


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


def status_of(oks: list[bool]) -> str:
    if not oks:
        return "not measured"
    return "supported" if all(oks) else "not supported" if not any(oks) else "partly supported"


def overall(statuses: list[str]) -> str:
    measured = [s for s in statuses if s != "not measured"]
    if not measured:
        return "not measured"
    return measured[0] if len(set(measured)) == 1 else "partly supported"


def in_group(group: str) -> str:
    return f"trained on {group.removeprefix('train ')}" if group else "all jobs"


def delta_text(r: dict) -> str:
    return f"{r['bucket']} (n={r['sentences']}): {r['delta_bleu']:+.2f} BLEU, p={r['p_bleu']:.3f}"


def relative_drop(system: dict, base: dict) -> Optional[float]:
    """How far below the baseline, as a share of its BLEU (0.3: 30% lower)."""
    if not base.get("bleu"):
        return None
    return (base["bleu"] - system["bleu"]) / base["bleu"]


def zero_dims_claim(rows: list[dict]) -> Verdict:
    verdict, statuses = Verdict("(a) Zeroing PE dimensions ≥ 400 barely changes BLEU on short sentences."), []
    for group in groups(rows):
        zero = [r for r in bucket_rows(rows, group, is_zero_dims, is_short).values() if r["delta_bleu"] is not None]
        oks = [abs(r["delta_bleu"]) <= BARELY or r["p_bleu"] >= ALPHA for r in zero]
        statuses.append(status_of(oks))
        if zero:
            verdict.details.append(f"{in_group(group)}: {statuses[-1]}; zero_dims minus sinusoidal: "
                                   + "; ".join(delta_text(r) for r in zero) + ".")
    verdict.status = overall(statuses)
    if verdict.status == "not measured":
        verdict.details.append("no sinusoidal + zero_dims job compared with sinusoidal on short buckets")
    return verdict


def no_pe_claim(rows: list[dict]) -> Verdict:
    verdict, statuses = Verdict("(b) Without PE, short sentences translate about as well, long ones much worse."), []
    for group in groups(rows):
        base_short = bucket_rows(rows, group, is_sinusoidal, is_short)
        base_long = bucket_rows(rows, group, is_sinusoidal, is_long)
        short = [r for b, r in bucket_rows(rows, group, is_nope, is_short).items() if b in base_short
                 and r["delta_bleu"] is not None]
        long = [r for b, r in bucket_rows(rows, group, is_nope, is_long).items() if b in base_long
                and r["delta_bleu"] is not None]
        if not short or not long:
            statuses.append("not measured")
            verdict.details.append(f"{in_group(group)}: not measured; it needs no-PE and sinusoidal jobs with "
                                   f"test sentences of both {SHORT_MAX} words or fewer and {LONG_MIN} or more")
            continue

        def drop(r: dict, base: dict) -> str:
            d = relative_drop(r, base[r["bucket"]])
            return "" if d is None else f", {d:.0%} below"

        short_ok = [abs(r["delta_bleu"]) <= BARELY or r["p_bleu"] >= ALPHA
                    or (relative_drop(r, base_short[r["bucket"]]) or 0) <= ABOUT_AS_WELL for r in short]
        long_bad = [r["p_bleu"] < ALPHA and r["delta_bleu"] < 0
                    and (relative_drop(r, base_long[r["bucket"]]) or 0) >= MUCH_WORSE for r in long]
        statuses.append(status_of([all(short_ok), all(long_bad)]))
        verdict.details.append(
            f"{in_group(group)}: {statuses[-1]}; no PE minus sinusoidal, short: "
            + "; ".join(delta_text(r) + drop(r, base_short) for r in short) + (" (about as well)" if all(
                short_ok) else " (not about as well)") + "; long: "
            + "; ".join(delta_text(r) + drop(r, base_long) for r in long) + (" (much worse)" if all(
                long_bad) else " (not much worse everywhere)") + ".")
    verdict.status = overall(statuses)
    return verdict


def diagonal_claim(rows: list[dict]) -> Verdict:
    verdict, statuses = Verdict("(c) With PE the cross-attention lines up along the diagonal on long sentences; "
                                "without PE it does not."), []
    for group in groups(rows):
        with_pe = bucket_rows(rows, group, is_sinusoidal, lambda r: r["diagonal_share"] is not None)
        without = bucket_rows(rows, group, is_nope, lambda r: r["diagonal_share"] is not None)
        both = [b for b in with_pe if b in without]
        long = [b for b in both if is_long(with_pe[b])]
        oks = [with_pe[b]["diagonal_share"] - without[b]["diagonal_share"] >= DIAGONAL_GAP for b in long]
        statuses.append(status_of(oks))
        if both:
            verdict.details.append(
                f"{in_group(group)}: {statuses[-1]}; diagonal share with / without PE: " + "; ".join(
                    f"{b}{' (long)' if b in long else ''}: {with_pe[b]['diagonal_share']:.2f} / "
                    f"{without[b]['diagonal_share']:.2f}" for b in both) + ".")
    verdict.status = overall(statuses)
    if not verdict.details:
        verdict.details.append("no diagonal share per bucket for both sinusoidal and no-PE jobs")
    return verdict


def check_claims(rows: list[dict]) -> list[Verdict]:
    return [zero_dims_claim(rows), no_pe_claim(rows), diagonal_claim(rows)]
