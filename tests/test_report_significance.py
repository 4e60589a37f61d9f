"""Statistics of the sweep report: scores from summed statistics equal sacreBLEU's, groups of test pairs, the
seed-aware interval against numbers worked out by hand, Holm, and how p is printed."""
from __future__ import annotations

import math

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF

from translate.data.cleaning import Pair
from translate.analysis.sweep.references import TestSet as SentencesOfTest
from translate.analysis.sweep.significance import (SCORE, Groups, SentenceStats, compare, group_counts, holm, p_text,
                                           seed_t_interval, t_quantile, t_two_sided_p)

REFS = ["the cat sat on the mat", "a dog barks at night", "I like green tea very much", "she reads a book",
        "we went home early", "it is raining again today", "they play football on sundays", "he is tired"] * 5


def drop_words(refs, every: int) -> list[str]:
    return [" ".join(w for k, w in enumerate(r.split()) if (k + i) % every) for i, r in enumerate(refs)]


@pytest.mark.parametrize("key, metric", [("bleu", BLEU), ("chrf", CHRF)])
def test_scores_from_summed_statistics_equal_sacrebleu(key, metric):
    hyps = drop_words(REFS, 3)
    stats = SentenceStats.extract(hyps, REFS).stats[key]
    rng = np.random.default_rng(0)
    for _ in range(30):
        rows = rng.choice(len(REFS), size=rng.integers(1, 12))
        expected = metric()._compute_score_from_stats(list(stats[rows].sum(0))).score
        assert float(SCORE[key](stats[rows].sum(0))) == pytest.approx(expected, abs=1e-9)
    totals = np.stack([stats[rng.choice(len(REFS), 8)].sum(0) for _ in range(5)])   # vectorised over samples
    assert SCORE[key](totals) == pytest.approx([metric()._compute_score_from_stats(list(t)).score for t in totals])


def test_pairs_sharing_an_english_or_french_sentence_form_one_group():
    pairs = [Pair("a", "x"), Pair("b", "x"), Pair("c", "y"), Pair("c", "z"), Pair("d", "w"), Pair("e", "z")]
    ids = SentencesOfTest(pairs).groups.ids
    assert ids[0] == ids[1] and ids[2] == ids[3] == ids[5] and len({ids[0], ids[2], ids[4]}) == 3


def test_group_draws_keep_the_number_of_groups_and_resample_whole_groups():
    counts = group_counts(7, 50, seed=1)
    assert counts.shape == (50, 7) and (counts.sum(1) == 7).all()
    groups = Groups(np.array([0, 0, 1, 2]))          # sentences 0 and 1 always drawn together
    hyps = ["x"] * 4
    d = compare([SentenceStats.extract(hyps, REFS[:4])], [SentenceStats.extract(REFS[:4], REFS[:4])], groups, 200)
    assert d["bleu"].delta > 0 and d["bleu"].low <= d["bleu"].delta <= d["bleu"].high


def test_seed_interval_of_two_seeds_worked_by_hand():
    """Per-seed deltas +1 and +3: mean 2, s = √2, SE = s/√2 = 1, t(1 df, 97.5%) = 12.706;
    t = 2 -> two-sided p = 1 − (2/π)·atan(2) = 0.2952 (Cauchy). With a test-set SE of 1: SE = √2, t = √2 and
    Welch–Satterthwaite df = SE⁴ / (1² / 1) = 4: t(4, 97.5%) = 2.776; p = 1 − sinθ(1 + cos²θ/2) with
    tanθ = √2/2, i.e. 1 − (1/√3)(4/3) = 0.2302."""
    mean, low, high, p = seed_t_interval([1.0, 3.0])
    assert mean == 2.0
    assert (low, high) == (pytest.approx(2 - 12.7062, abs=1e-3), pytest.approx(2 + 12.7062, abs=1e-3))
    assert p == pytest.approx(1 - 2 / math.pi * math.atan(2), abs=1e-9) == pytest.approx(0.2952, abs=1e-4)
    mean, low, high, p = seed_t_interval([1.0, 3.0], sentence_se=1.0)
    assert high - mean == pytest.approx(2.7764 * math.sqrt(2), abs=1e-3)
    assert p == pytest.approx(1 - 4 / (3 * math.sqrt(3)), abs=1e-9) == pytest.approx(0.2302, abs=1e-4)
    mean, low, high, p = seed_t_interval([2.0, 2.0], sentence_se=1.0)     # seeds agree: the normal quantile
    assert high - mean == pytest.approx(1.962, abs=2e-3)


def test_student_t_matches_tables():
    assert t_quantile(1) == pytest.approx(12.7062, abs=1e-3)
    assert t_quantile(2) == pytest.approx(4.3027, abs=1e-3)
    assert t_quantile(9) == pytest.approx(2.2622, abs=1e-3)
    assert t_two_sided_p(2.2622, 9) == pytest.approx(0.05, abs=1e-4)
    assert t_two_sided_p(0.0, 4) == 1.0


def test_seeds_are_not_pooled_as_sentences():
    """Two seeds with the same per-seed delta: the interval stays about as wide as one seed's (pooling them as
    sentences would shrink it by √2)."""
    base = SentenceStats.extract(drop_words(REFS, 2), REFS)
    system = SentenceStats.extract(drop_words(REFS, 4), REFS)
    groups = Groups.singletons(len(REFS))
    one = compare([base], [system], groups, 500)["bleu"]
    two = compare([base, base], [system, system], groups, 500)["bleu"]
    assert two.per_seed == [pytest.approx(one.delta)] * 2 and two.std == 0.0
    assert two.high - two.low > 0.8 * (one.high - one.low)   # as wide as one seed: the same sentences, not more
    assert "t over 2 seeds" in two.method


def test_holm_and_p_text():
    assert holm([0.01, 0.04, 0.03, None]) == [pytest.approx(0.03), pytest.approx(0.06), pytest.approx(0.06), None]
    assert p_text(1 / 10001, 10000) == "p < 0.001" and p_text(0.0004) == "p < 0.001"
    assert p_text(0.0421) == "p=0.042" and p_text(None) == "p=–"
