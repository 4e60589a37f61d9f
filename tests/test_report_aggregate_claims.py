"""The three claims of the source notes, judged from report rows: each verdict can come out either way, sameness
needs an interval inside the margin (never just a large p), and the numbers behind it are printed."""
from __future__ import annotations

from translate.analysis.sweep.claims import check_claims, diagonal_claim, equivalence, no_pe_claim, zero_dims_claim

BUCKETS = (("1-5", 1, 5, 1000), ("6-10", 6, 10, 1500), ("11-15", 11, 15, 240), ("16-20", 16, 20, 20))
BASE = {"1-5": 40.0, "6-10": 30.0, "11-15": 20.0, "16-20": 15.0}


def rows_for(group, encoding, ablation, bleu, delta, half_width, diagonal, interaction=None) -> list:
    """One row per bucket and the whole-split row; Δ intervals are Δ ± half_width[bucket]."""
    rows = []
    for bucket, low, high, n in BUCKETS:
        d, w = delta.get(bucket), half_width.get(bucket, 0.5)
        rows.append({"group": group, "encoding": encoding, "ablation": ablation, "bucket": bucket, "low": low,
                     "high": high, "sentences": n, "bleu": bleu[bucket], "delta_bleu": d,
                     "delta_bleu_low": None if d is None else d - w, "delta_bleu_high": None if d is None else d + w,
                     "p_bleu": None if d is None else 0.5, "diagonal_share_normalised": diagonal[bucket],
                     "lengths": "trained" if high <= 10 else "beyond"})
    whole = {"group": group, "encoding": encoding, "ablation": ablation, "bucket": "all", "low": None, "high": None,
             "sentences": 2760, "bleu": 30.0, "delta_bleu": None, "p_bleu": None, "diagonal_share_normalised": None}
    if interaction is not None:
        whole.update(delta_interaction_bleu=interaction[0], delta_interaction_bleu_low=interaction[1],
                     delta_interaction_bleu_high=interaction[2])
    return rows + [whole]


def sweep_rows(nope_long_bleu=5.0, nope_long_width=1.0, zero_short_delta=-0.4, zero_short_width=0.5,
               nope_long_diagonal=0.2, interaction=(-14.0, -16.0, -12.0)) -> list:
    rows = rows_for("train words 1-9", "sinusoidal", "none", BASE, {}, {}, {b: 0.6 for b in BASE})
    zero_bleu = {b: v + (zero_short_delta if b in ("1-5", "6-10") else 0) for b, v in BASE.items()}
    rows += rows_for("train words 1-9", "sinusoidal", "zero_dims", zero_bleu,
                     {b: zero_bleu[b] - BASE[b] for b in BASE}, {"1-5": zero_short_width, "6-10": zero_short_width},
                     {b: 0.6 for b in BASE})
    nope = dict(BASE, **{"1-5": 39.8, "6-10": 29.7, "11-15": nope_long_bleu, "16-20": nope_long_bleu})
    rows += rows_for("train words 1-9", "none", "none", nope, {b: nope[b] - BASE[b] for b in BASE},
                     {"11-15": nope_long_width, "16-20": 40.0},
                     {"1-5": 0.5, "6-10": 0.4, "11-15": nope_long_diagonal, "16-20": nope_long_diagonal}, interaction)
    return rows


def test_equivalence_needs_the_whole_interval_inside_the_margin():
    assert equivalence({"delta_bleu_low": -0.9, "delta_bleu_high": 0.8}, 1.0) == "same"
    assert equivalence({"delta_bleu_low": -2.5, "delta_bleu_high": 1.9}, 1.0) == "inconclusive"  # wide
    assert equivalence({"delta_bleu_low": -3.0, "delta_bleu_high": -1.5}, 1.0) == "different"


def test_claims_supported_when_the_numbers_say_so():
    a, b, c = check_claims(sweep_rows())
    assert (a.status, b.status, c.status) == ("supported", "supported", "supported")
    assert "1-5 (n=1000, trained lengths): -0.40 [-0.90, +0.10] BLEU, p=0.500" in a.details[0]
    assert "11-15 (n=240, beyond training lengths): -15.00 [-16.00, -14.00] BLEU" in b.details[0]
    assert "75% below" in b.details[0] and "(much worse)" in b.details[0]
    assert "16-20 (n=20, beyond training lengths, too few to decide)" in b.details[0]  # its wide interval is ignored
    assert "Δ_long − Δ_short -14.00 [-16.00, -12.00] BLEU (long lose more)" in b.details[0]
    assert "11-15 (long): 0.60 / 0.20" in c.details[0]


def test_a_large_p_with_a_wide_interval_is_not_about_as_well():
    """p=0.5 everywhere, but the short intervals span ±2.5 BLEU: sameness is not shown."""
    rows = sweep_rows(zero_short_delta=-0.4, zero_short_width=2.5)
    assert all(r["p_bleu"] >= 0.05 for r in rows if r["ablation"] == "zero_dims" and r["bucket"] != "all")
    a = zero_dims_claim(rows)
    assert a.status == "inconclusive" and "[-2.90, +2.10]" in a.details[0]


def test_claims_rejected_when_the_numbers_disagree():
    rows = sweep_rows(nope_long_bleu=19.0, zero_short_delta=-3.0, nope_long_diagonal=0.58,
                      interaction=(-0.5, -2.0, 1.0))
    assert zero_dims_claim(rows).status == "not supported"   # [-3.5, -2.5]: entirely outside ±1
    b = no_pe_claim(rows)
    assert b.status == "partly supported" and "(not much worse everywhere)" in b.details[0]
    assert "(not shown that long lose more)" in b.details[0]
    assert diagonal_claim(rows).status == "not supported"


def test_the_interaction_alone_can_fail_claim_b():
    b = no_pe_claim(sweep_rows(interaction=(-3.0, -7.0, 1.0)))
    assert b.status == "partly supported" and "(not shown that long lose more)" in b.details[0]


def test_min_bucket_decides_which_buckets_count():
    rows = sweep_rows()
    assert no_pe_claim(rows, min_bucket=2000).status == "not measured"   # no bucket that large
    assert "too few to decide" in no_pe_claim(rows, min_bucket=2000).details[0]


def test_claims_without_the_jobs_are_not_measured():
    only_base = [r for r in sweep_rows() if r["ablation"] == "none" and r["encoding"] == "sinusoidal"]
    verdicts = check_claims(only_base)
    assert [v.status for v in verdicts] == ["not measured"] * 3
    assert all(v.details for v in verdicts)
