"""Per-bucket scores are sacreBLEU's on the bucket's subset; bootstrap intervals and length ratios."""
from __future__ import annotations

import random

import pytest
from sacrebleu.metrics import BLEU, CHRF

from translate.analysis.run.bleu_by_length import bootstrap_intervals, length_ratio, scores_by_bucket
from translate.analysis.buckets import assign, buckets_from_edges

WORDS = "the a cat dog sees runs into house big small red green quickly slowly and with".split()


def corpus(n: int = 120, seed: int = 0) -> tuple[list[str], list[str]]:
    """References of 1..30 words; hypotheses drop, swap or replace some words."""
    rng = random.Random(seed)
    refs, hyps = [], []
    for _ in range(n):
        ref = [rng.choice(WORDS) for _ in range(rng.randint(1, 30))]
        hyp = [w if rng.random() > 0.25 else rng.choice(WORDS) for w in ref]
        if len(hyp) > 2 and rng.random() < 0.5:
            hyp.pop(rng.randrange(len(hyp)))
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    return hyps, refs


def test_bucket_scores_equal_sacrebleu_on_the_subset():
    hyps, refs = corpus()
    buckets = buckets_from_edges([5, 10, 15, 20])
    bucket_of = assign([len(r.split()) for r in refs], buckets)
    rows = scores_by_bucket(hyps, refs, bucket_of, len(buckets), samples=200, seed=1)
    assert sum(r["sentences"] for r in rows) == len(hyps)
    for k, row in enumerate(rows):
        sub_h = [h for h, b in zip(hyps, bucket_of) if b == k]
        sub_r = [r for r, b in zip(refs, bucket_of) if b == k]
        assert row["sentences"] == len(sub_h) > 0
        assert row["bleu"] == round(BLEU().corpus_score(sub_h, [sub_r]).score, 2)
        assert row["chrf"] == round(CHRF().corpus_score(sub_h, [sub_r]).score, 2)
        assert row["bleu_ci"][0] <= row["bleu"] <= row["bleu_ci"][1]
        assert row["chrf_ci"][0] <= row["chrf"] <= row["chrf_ci"][1]
        assert row["chrf_ci"][0] < row["chrf_ci"][1]


def test_empty_bucket_has_no_scores():
    hyps, refs = corpus(10)
    rows = scores_by_bucket(hyps, refs, [0] * len(hyps), 2, samples=10, seed=1)
    assert rows[1] == {"sentences": 0, "bleu": None, "chrf": None, "bleu_ci": None, "chrf_ci": None,
                       "length_ratio": None}


def test_bootstrap_is_reproducible_and_narrows_with_more_sentences():
    hyps, refs = corpus(400)
    assert bootstrap_intervals(hyps, refs, 200, seed=3) == bootstrap_intervals(hyps, refs, 200, seed=3)
    small = bootstrap_intervals(hyps[:40], refs[:40], 300, seed=3)["bleu_ci"]
    large = bootstrap_intervals(hyps, refs, 300, seed=3)["bleu_ci"]
    assert large[1] - large[0] < small[1] - small[0]


def test_identical_hypotheses_give_a_point_interval():
    _, refs = corpus(30)
    assert bootstrap_intervals(refs, refs, 50, seed=0) == {"bleu_ci": [100.0, 100.0], "chrf_ci": [100.0, 100.0]}


def test_length_ratio_is_the_mean_of_sentence_ratios():
    assert length_ratio(["a b", "a b c d"], ["a b c d", "a b"]) == pytest.approx((0.5 + 2.0) / 2)
