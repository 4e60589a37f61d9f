"""Statistics of the sweep report: scores from summed statistics equal sacreBLEU's, groups of test pairs, the
seed-aware interval against numbers worked out by hand, Holm, and how p is printed."""
from __future__ import annotations

import math

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF
from scipy import stats as scipy_stats

from translate.data.cleaning import Pair
from translate.analysis.sweep.reference_sentences import TestSet as SentencesOfTest
from translate.analysis.significance import (MAX_DF, SCORE, Difference, Groups, ReferenceCache, SentenceStats,
                                             compare, difference_from_samples, group_counts, holm,
                                             independent_contrast, p_text, percentile_interval, reference_cache,
                                             resampled_scores, resampled_scores_of, seed_df, seed_t_interval,
                                             seeds_needed, sentence_noise, summed, t_quantile, t_two_sided_p,
                                             two_sided_p)

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


def test_a_hypothesis_met_again_is_scored_from_its_first_statistics_as_sacrebleu_would():
    """One cache serves every job of a test set, and a sentence's statistics are computed once per distinct
    hypothesis: jobs sharing some outputs, or met in another order, get exactly sacreBLEU's statistics."""
    cache = ReferenceCache(REFS)
    outputs = [drop_words(REFS, 3), drop_words(REFS, 2), REFS, drop_words(REFS, 3)[:20] + REFS[20:]]
    for hyps in outputs + outputs[::-1]:
        for key, metric in (("bleu", BLEU), ("chrf", CHRF)):
            fresh = np.asarray(metric()._extract_corpus_statistics(hyps, [REFS]), dtype=np.float64)
            assert np.array_equal(cache.stats(hyps).stats[key], fresh)
    distinct = {(i, h) for hyps in outputs for i, h in enumerate(hyps)}
    assert len(cache._rows) == len(distinct) < sum(len(h) for h in outputs)


def test_two_reports_of_one_test_set_share_its_reference_cache():
    """A page aggregates the same jobs against a second baseline: equal references (another list, read again) find
    the statistics already computed; other references get their own cache."""
    first = reference_cache(list(REFS))
    first.stats(drop_words(REFS, 3))
    again = reference_cache([str(r) for r in REFS])
    assert again is first and again._rows
    other = reference_cache(REFS[1:] + REFS[:1])
    assert other is not first and not other._rows


@pytest.mark.parametrize("key", list(SCORE))
def test_many_models_resampled_in_one_product_score_as_each_alone_to_the_bit(key):
    """The pages' comparisons score every model of a test set on the same draws in one product (the draw counts read
    once): each model's resampled scores equal those of its own product."""
    groups = Groups.singletons(len(REFS))
    counts = group_counts(groups.count, 500)
    models = [SentenceStats.extract(drop_words(REFS, every), REFS) for every in (2, 3, 4, 5)]
    together = resampled_scores_of([summed(m, key, groups.ids, groups.count) for m in models], key, counts)
    for model, scores in zip(models, together):
        assert np.array_equal(scores, resampled_scores(model, key, groups, counts), equal_nan=True)


def test_the_length_ratio_is_compared_by_the_same_procedure_as_bleu():
    """Dropping every other word roughly halves each output: Δ of the mean hypothesis/reference word ratio is exactly
    the difference of the means, its interval and p from the same resamples as BLEU's."""
    full, halved = SentenceStats.extract(REFS, REFS), SentenceStats.extract(drop_words(REFS, 2), REFS)
    expected = np.mean([len(h.split()) / len(r.split()) for h, r in zip(drop_words(REFS, 2), REFS)]) - 1.0
    assert full.score("length_ratio") == pytest.approx(1.0)
    differences = compare([full], [halved], Groups.singletons(len(REFS)), samples=999)
    ratio = differences["length_ratio"]
    assert ratio.delta == pytest.approx(expected) and ratio.high < 0 and ratio.p < 0.01
    same = compare([full], [full], Groups.singletons(len(REFS)), samples=999)["length_ratio"]
    assert same.delta == 0 and same.low == same.high == 0


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
    t = 2 -> two-sided p = 1 − (2/π)·atan(2) = 0.2952 (Cauchy). With a shared test-set SE of 1: SE = √2, and the
    seed part (1, one df) enters the df at its 70% upper bound 1/χ²₁(0.3) = 1/z(0.65)² = 6.735: Satterthwaite
    df = (6.735 + 1)² / 6.735² = 1.319, far below the 4 that the seed part's point estimate would give."""
    mean, low, high, p = seed_t_interval([1.0, 3.0])
    assert mean == 2.0
    assert (low, high) == (pytest.approx(2 - 12.7062, abs=1e-3), pytest.approx(2 + 12.7062, abs=1e-3))
    assert p == pytest.approx(1 - 2 / math.pi * math.atan(2), abs=1e-9) == pytest.approx(0.2952, abs=1e-4)
    bound = 1 / scipy_stats.norm.ppf(0.65) ** 2
    df = (bound + 1) ** 2 / bound ** 2
    assert bound == pytest.approx(6.735, abs=1e-3) and df == pytest.approx(1.319, abs=1e-3)
    mean, low, high, p = seed_t_interval([1.0, 3.0], shared_se=1.0)
    assert high - mean == pytest.approx(scipy_stats.t.ppf(0.975, df) * math.sqrt(2), rel=1e-9)
    assert p == pytest.approx(2 * scipy_stats.t.sf(math.sqrt(2), df), rel=1e-9)
    mean, low, high, p = seed_t_interval([2.0, 2.0], shared_se=1.0)     # seeds agree: the normal quantile
    assert high - mean == pytest.approx(1.962, abs=2e-3)


def test_seed_df_runs_from_s_minus_1_to_the_normal():
    assert seed_df([(1.0, 4), (0.0, 0)]) == pytest.approx(4.0)          # seeds alone: S − 1
    assert seed_df([(0.0, 4), (1.0, 0)]) == MAX_DF                      # the test set alone: known variance
    plain = (1.0 + 1.0) ** 2 / (1.0 / 4)                                # Satterthwaite with the point estimate: 16
    assert 4.0 < seed_df([(1.0, 4), (1.0, 0)]) < plain


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
    assert p_text(2 / 10001, 10000) == "p < 0.001" and p_text(0.0004) == "p < 0.001"
    assert p_text(0.0421) == "p=0.042" and p_text(None) == "p=–"


@pytest.mark.parametrize("samples", [999, 1000, 1199, 10000])
def test_p_below_005_exactly_when_the_95_interval_excludes_0(samples):
    """Fabricated paired draws of every shift, both signs, including the boundary counts: the p and the interval come
    from one procedure, so they never disagree."""
    rng = np.random.default_rng(7)
    base = rng.standard_normal(samples)
    for shift in np.concatenate([np.linspace(-4, 4, 81), [0.0]]):
        draws = base + shift
        low, high = percentile_interval(draws)
        assert (two_sided_p(draws) < 0.05) == (low > 0 or high < 0), shift
    for far in range(0, 40):  # exactly `far` resamples on the far side of 0, for both signs
        draws = np.concatenate([-np.arange(1, far + 1), np.arange(1, samples - far + 1)]).astype(float)
        for sign in (1, -1):
            low, high = percentile_interval(sign * draws)
            assert (two_sided_p(sign * draws) < 0.05) == (low > 0 or high < 0), (far, sign)


def test_a_one_seed_difference_is_two_sided_and_never_p_1_over_b():
    draws = np.full((1, 999), 0.43)  # a 1-sentence bucket: every resample equals Δ
    d = difference_from_samples([0.43], draws)
    assert d.p == pytest.approx(2 / 1000) and (d.low, d.high) == (0.43, 0.43)
    spread = np.random.default_rng(1).normal(0.5, 1.0, size=(1, 10000))
    d = difference_from_samples([0.5], spread)
    share_below = float((spread <= 0).mean())
    assert d.p == pytest.approx(2 * share_below, abs=1e-3)  # two-sided: twice the tail, not the tail
    assert d.low90 > d.low and d.high90 < d.high  # the equivalence interval is the 90% one


def test_tost_decides_equivalent_on_a_tight_delta_and_not_on_a_wide_one():
    rng = np.random.default_rng(3)
    tight = difference_from_samples([0.1], rng.normal(0.1, 0.3, size=(1, 5000)))
    wide = difference_from_samples([0.1], rng.normal(0.1, 1.2, size=(1, 5000)))
    assert tight.equivalent(1.0) and not wide.equivalent(1.0)
    assert tight.established_margin == pytest.approx(max(abs(tight.low90), abs(tight.high90)))
    assert tight.established_margin < 1.0 < wide.established_margin
    assert wide.detectable == pytest.approx((1.959964 + 0.841621) * wide.se, rel=1e-2)  # α = 0.05, 80% power
    seeds = Difference(0.2, 0, 0, 1, [0.1, 0.3, 0.2], 0.1, "", -0.15, 0.55, 0.2, 0.05, 2.0)
    assert seeds.equivalent(1.0) and not seeds.equivalent(0.5)


def test_the_contrast_of_two_independent_groups_worked_by_hand():
    """Δ_short −1 (SE 0.3), Δ_long −4 (SE 0.4), one seed each: −3 ± 1.96·0.5; p from t = −6 at the normal's df."""
    short = Difference(-1.0, 0, 0, 1, [-1.0], None, "", sentence_se=0.3, se=0.3)
    long = Difference(-4.0, 0, 0, 1, [-4.0], None, "", sentence_se=0.4, se=0.4)
    c = independent_contrast(short, long)
    assert c.delta == -3.0 and c.se == pytest.approx(0.5)
    assert (c.low, c.high) == (pytest.approx(-3 - 1.96 * 0.5, abs=2e-3), pytest.approx(-3 + 1.96 * 0.5, abs=2e-3))
    assert c.p == pytest.approx(t_two_sided_p(6.0, 1000)) and c.p < 1e-8
    # three seeds a group, not paired across groups: Satterthwaite over the two seed parts (s = 1 each: var 1/3 per
    # group), both bounded alike so the bound cancels
    short3 = Difference(-1.0, 0, 0, 1, [-2.0, -1.0, 0.0], 1.0, "", sentence_se=0.0)
    long3 = Difference(-4.0, 0, 0, 1, [-5.0, -4.0, -3.0], 1.0, "", sentence_se=0.0)
    c = independent_contrast(short3, long3)
    assert c.se == pytest.approx(math.sqrt(2 / 3)) and c.df == pytest.approx(4.0)  # (2/3)² / (2·(1/3)²/2)
    assert c.high - c.delta == pytest.approx(2.7764 * math.sqrt(2 / 3), abs=1e-3)


def test_seeds_needed_for_an_equivalence_grows_with_the_spread_between_seeds():
    assert seeds_needed(0.3, 0.2, 1.0) is not None
    few, many = seeds_needed(0.5, 0.2, 1.0), seeds_needed(1.5, 0.2, 1.0)
    assert few is not None and many is not None and 2 <= few < many
    assert seeds_needed(1.0, 0.7, 1.0) is None  # the shared test-set noise alone is too large for ±1


def test_more_seeds_average_away_a_seeds_own_test_set_noise_but_not_the_shared_part():
    """A seed's own test-set noise is part of the spread between seeds, which more seeds average away; the part all
    seeds share (the same sentences) is a floor."""
    own = seeds_needed(0.62, 0.1, 1.0)             # 0.62 of spread (own noise in it), 0.1 shared
    assert own is not None and 3 <= own <= 8
    assert seeds_needed(0.1, 0.46, 1.0) is None     # 0.46 shared: (1.645 + 1.282)·0.46 > 1 at any count
    assert seeds_needed(0.62, 0.0, 1.0) <= own


def test_the_shared_test_set_noise_is_read_from_the_resamples():
    """Δ per seed = common + own noise over the same resamples: sentence_noise recovers both parts."""
    rng = np.random.default_rng(0)
    common, own = rng.normal(0, 0.3, 200_000), rng.normal(0, 0.4, (3, 200_000))
    per_seed, shared = sentence_noise(common + own)
    assert per_seed == pytest.approx(0.5, abs=0.005) and shared == pytest.approx(0.3, abs=0.01)
    observed = [0.1, 0.3, 0.2]
    d = difference_from_samples(observed, common + own)
    assert (d.seed_sentence_se, d.shared_sentence_se) == (pytest.approx(per_seed), pytest.approx(shared))
    assert d.sentence_se == pytest.approx(shared)   # the shared part is the test-set part of the SE
    assert d.se == pytest.approx(math.sqrt(np.var(observed, ddof=1) / 3 + shared ** 2))
    one = difference_from_samples([0.1], (common + own)[:1])
    assert one.seed_sentence_se is None and one.shared_sentence_se is None
