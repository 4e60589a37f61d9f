"""One model on its short and its long sentences (translate/analysis/sweep/within.py): Δ on each test set's span,
the within-model interaction paired by seed, and the per-sentence measures of word choice and word order, from
fabricated runs whose answers are known by hand."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from translate.analysis.run import metrics_json
from translate.analysis.significance import Groups, SentenceStats
from translate.analysis.sweep.rows import RowSetting, WithinRow
from translate.analysis.sweep.within import trains_both, within_rows

WORDS = {"test": [3, 4, 5, 6, 12], "long_test": [12, 13, 14, 15, 20]}   # 12 on `test`, 20: outside both spans
REFS = {name: [f"the cat sat on mat number {i} today" for i in range(5)] for name in WORDS}


def job(name: str, f_gap: dict, hyps: dict) -> SimpleNamespace:
    """A job whose unigram F is 0.8 minus f_gap[test set] on every sentence, τ 0.5 - f_gap, and hyps as given."""
    scores = {t: metrics_json.TestSetScores(t, by_length=metrics_json.LengthReport(per_sentence={
        "unigram_f": [0.8 - f_gap[t]] * 5, "order_tau": [0.5 - f_gap[t]] * 5,
        "token_accuracy": [0.9] * 5})) for t in WORDS}
    return SimpleNamespace(name=name, test_sets=lambda: scores, hyps=hyps)


def aggregator(pairs: list) -> SimpleNamespace:
    tests = {name: SimpleNamespace(words=lambda _, n=name: WORDS[n], groups=Groups.singletons(5)) for name in WORDS}
    return SimpleNamespace(
        paired=lambda setting, name: pairs, test_set=lambda job, name: tests[name],
        stats=lambda job, name, test: SentenceStats.extract(job.hyps[name], REFS[name]),
        rules=SimpleNamespace(samples=500))


def setting(trained=None) -> SimpleNamespace:
    return SimpleNamespace(settings=SimpleNamespace(trained=trained))


def rows_by_metric(pairs: list) -> dict[str, WithinRow]:
    return {r.metric: r for r in within_rows(aggregator(pairs), setting(), RowSetting(setting="none"))}


def test_the_interaction_is_each_seeds_long_minus_short_delta():
    """No PE's unigram F: 0.1 below sinusoidal's on short sentences, 0.3 below on long ones (seed 1), 0.2 and 0.3
    (seed 2): Δ_short −10 / −20 points, Δ_long −30 / −30, interaction −20 / −10 -> mean −15."""
    same = {t: list(REFS[t]) for t in WORDS}
    pairs = [(job("nope1", {"test": 0.1, "long_test": 0.3}, same), job("sin1", {"test": 0, "long_test": 0}, same)),
             (job("nope2", {"test": 0.2, "long_test": 0.3}, same), job("sin2", {"test": 0, "long_test": 0}, same))]
    rows = rows_by_metric(pairs)
    f = rows["unigram_f"]
    assert (f.short_test_set, f.short_span, f.long_test_set, f.long_span) == ("test", "1-10", "long_test", "11-17")
    assert (f.short_sentences, f.long_sentences, f.seeds) == (4, 4, 2)
    assert f.delta_short.per_seed == pytest.approx([-10, -20]) and f.delta_long.per_seed == pytest.approx([-30, -30])
    assert f.interaction.per_seed == pytest.approx([-20, -10]) and f.interaction.delta == pytest.approx(-15)
    # constant within each seed: no test-set noise, so the interval is the t over two seeds (df 1)
    half_width = 12.706 * np.std([-20, -10], ddof=1) / np.sqrt(2)
    assert (f.interaction.low, f.interaction.high) == pytest.approx((-15 - half_width, -15 + half_width), abs=0.05)
    assert (f.system_short, f.baseline_short, f.system_long) == pytest.approx((65.0, 80.0, 50.0))
    assert rows["order_tau"].delta_long.delta == pytest.approx(-0.3)
    assert rows["token_accuracy"].delta_long.delta == pytest.approx(0.0)
    assert rows["bleu"].delta_short.delta == pytest.approx(0.0) and rows["bleu"].system_short == 100.0


def test_bleu_on_each_span_is_the_corpus_score_of_its_sentences():
    """The system drops the last three words of every long reference: BLEU falls on long sentences only."""
    broken = {"test": list(REFS["test"]), "long_test": [" ".join(r.split()[:5]) for r in REFS["long_test"]]}
    same = {t: list(REFS[t]) for t in WORDS}
    none = {"test": 0, "long_test": 0}
    rows = rows_by_metric([(job("nope1", none, broken), job("sin1", none, same)),
                           (job("nope2", none, broken), job("sin2", none, same))])
    bleu = rows["bleu"]
    expected = SentenceStats.extract(broken["long_test"][:4], REFS["long_test"][:4]).score("bleu") - 100
    assert bleu.delta_long.delta == pytest.approx(expected, abs=0.01) and bleu.delta_short.delta == 0
    assert bleu.interaction.delta == pytest.approx(expected, abs=0.01)


def test_only_models_trained_on_both_lengths_are_read_within():
    assert trains_both(setting(None)) and trains_both(setting((1, 17))) and trains_both(setting((1, None)))
    assert not trains_both(setting((1, 9))) and not trains_both(setting((11, 17)))
    assert within_rows(aggregator([]), setting((1, 9)), RowSetting()) == []
