"""The three claims of the source notes, judged from report rows: each verdict can come out either way, and the
numbers behind it are printed."""
from __future__ import annotations

from translate.report.claims import check_claims, diagonal_claim, no_pe_claim, zero_dims_claim

BUCKETS = (("1-5", 1, 5, 1000), ("6-10", 6, 10, 1500), ("11-15", 11, 15, 240), ("16-20", 16, 20, 20))


def rows_for(group: str, encoding: str, ablation: str, bleu: dict, delta: dict, p: dict, diagonal: dict) -> list:
    rows = []
    for bucket, low, high, n in BUCKETS:
        rows.append({"group": group, "encoding": encoding, "ablation": ablation, "bucket": bucket, "low": low,
                     "high": high, "sentences": n, "bleu": bleu[bucket], "delta_bleu": delta.get(bucket),
                     "p_bleu": p.get(bucket), "diagonal_share": diagonal[bucket]})
    rows.append({"group": group, "encoding": encoding, "ablation": ablation, "bucket": "all", "low": None,
                 "high": None, "sentences": 2760, "bleu": 30.0, "delta_bleu": None, "p_bleu": None,
                 "diagonal_share": None})
    return rows


def sweep_rows(nope_long_bleu: float, nope_long_p: float, zero_short_delta: float, zero_short_p: float,
               nope_long_diagonal: float) -> list:
    base = {"1-5": 40.0, "6-10": 30.0, "11-15": 20.0, "16-20": 15.0}
    rows = rows_for("train words 1-9", "sinusoidal", "none", base, {}, {}, {b: 0.6 for b in base})
    zero_bleu = {b: v + (zero_short_delta if b in ("1-5", "6-10") else 0) for b, v in base.items()}
    rows += rows_for("train words 1-9", "sinusoidal", "zero_dims", zero_bleu,
                     {b: zero_bleu[b] - base[b] for b in base},
                     {"1-5": zero_short_p, "6-10": zero_short_p, "11-15": 1.0, "16-20": 1.0},
                     {b: 0.6 for b in base})
    nope = dict(base, **{"1-5": 39.5, "6-10": 29.0, "11-15": nope_long_bleu, "16-20": nope_long_bleu})
    rows += rows_for("train words 1-9", "none", "none", nope, {b: nope[b] - base[b] for b in base},
                     {"1-5": 0.3, "6-10": 0.04, "11-15": nope_long_p, "16-20": nope_long_p},
                     {"1-5": 0.5, "6-10": 0.4, "11-15": nope_long_diagonal, "16-20": nope_long_diagonal})
    return rows


def test_claims_supported_when_the_numbers_say_so():
    a, b, c = check_claims(sweep_rows(nope_long_bleu=5.0, nope_long_p=0.001, zero_short_delta=-0.4,
                                      zero_short_p=0.2, nope_long_diagonal=0.2))
    assert (a.status, b.status, c.status) == ("supported", "supported", "supported")
    assert "1-5 (n=1000): -0.40 BLEU, p=0.200" in a.details[0]
    assert "11-15 (n=240): -15.00 BLEU, p=0.001, 75% below" in b.details[0] and "(much worse)" in b.details[0]
    assert "11-15 (long): 0.60 / 0.20" in c.details[0]


def test_claims_rejected_when_the_numbers_disagree():
    rows = sweep_rows(nope_long_bleu=19.0, nope_long_p=0.3, zero_short_delta=-3.0, zero_short_p=0.01,
                      nope_long_diagonal=0.58)
    assert zero_dims_claim(rows).status == "not supported"
    b = no_pe_claim(rows)
    assert b.status == "partly supported" and "(not much worse everywhere)" in b.details[0]
    assert diagonal_claim(rows).status == "not supported"


def test_claims_without_the_jobs_are_not_measured():
    only_base = [r for r in sweep_rows(5.0, 0.001, 0.0, 1.0, 0.2) if r["ablation"] == "none"
                 and r["encoding"] == "sinusoidal"]
    verdicts = check_claims(only_base)
    assert [v.status for v in verdicts] == ["not measured"] * 3
    assert all(v.details for v in verdicts)
