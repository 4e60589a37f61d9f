"""Holm's family is the tests of one test set that decide: a bucket too small to decide is in no family, nor is a
comparison of one seed (exploratory: no star, no verdict word)."""
from __future__ import annotations

import copy

from translate.analysis.sweep.aggregate import adjust_for_many_tests
from translate.analysis.sweep.rows import Comparison, Delta, ReportRow
from translate.analysis.sweep.rules import verdict_word
from translate.analysis.sweep.cells import comparison_cell


def row(test_set: str, seeds: int = 3, decides: bool = True, sentences: int = 500, **deltas: Delta) -> ReportRow:
    """A report row of `test_set` over `seeds` seeds holding the given Δs (Comparison's fields: bleu, chrf, ...)."""
    for d in deltas.values():
        d.seeds = [d.delta] * seeds
    return ReportRow(test_set=test_set, seeds=seeds, decides=decides, sentences=sentences,
                     compared=Comparison(**deltas))


def test_a_bucket_too_small_to_decide_is_never_starred_and_not_in_the_family():
    tiny = row("t", decides=False, sentences=1, bleu=Delta(0.43, 0.43, 0.43, 2 / 1001))
    big = [row("t", bleu=Delta(1.0, 0.1, 2.0, p)) for p in (0.02, 0.03)]
    rows = [tiny] + big
    adjust_for_many_tests(rows)
    assert tiny.compared.bleu.holm is None and not comparison_cell(tiny.compared.bleu, tiny.decides).endswith("*")
    assert [r.compared.bleu.holm for r in big] == [0.04, 0.04]  # a family of 2, not 3: the tiny bucket is left out
    assert all(comparison_cell(r.compared.bleu, r.decides).endswith("*") for r in big)
    assert "p_bleu_holm" in big[0].as_json() and "p_chrf_holm" not in big[0].as_json()  # only tests that were made
    other = copy.deepcopy(big[0])  # another test set: another family
    other.test_set = "u"
    adjust_for_many_tests(rows + [other])
    assert other.compared.bleu.holm == 0.02 and other.family != big[0].family


def test_a_one_seed_comparison_is_never_starred_nor_worded_however_small_its_p():
    one = row("t", seeds=1, bleu=Delta(-3.0, -4.0, -2.0, 0.0002, -3.8, -2.2))
    three = row("t", bleu=Delta(-3.0, -4.0, -2.0, 0.0002, -3.8, -2.2))
    adjust_for_many_tests([one, three])
    assert one.compared.bleu.holm is None and three.compared.bleu.holm == 0.0002   # a family of one: three seeds
    assert not comparison_cell(one.compared.bleu, True).endswith("*")
    assert comparison_cell(three.compared.bleu, True).endswith("*")
    assert verdict_word(one.compared.bleu, True, 1.0) == "one seed" and verdict_word(three.compared.bleu, True, 1.0) == "worse"


def test_jobs_that_disagree_on_the_sweep_rules_are_refused_unless_the_rule_is_given():
    from types import SimpleNamespace

    import pytest

    from translate.analysis.run.settings import ReportSettings
    from translate.analysis.sweep.aggregate import rules_from
    from translate.analysis.sweep.errors import SweepError

    def job(name, min_bucket):
        report = ReportSettings(min_bucket=min_bucket)
        return SimpleNamespace(name=name, finished=True, settings=SimpleNamespace(report=report))

    alike = rules_from([job("a", 50), job("b", 50)], None, None, None)
    assert alike.min_bucket == 50
    with pytest.raises(SweepError, match=r"report.min_bucket differs between the sweep's jobs \(30 in b, 50 in a\)"
                                         r".*give --min-bucket"):
        rules_from([job("a", 50), job("b", 30)], None, None, None)
    assert rules_from([job("a", 50), job("b", 30)], None, 40, None).min_bucket == 40


def test_a_delta_without_spread_decides_nothing_and_says_so():
    """Every model at BLEU 0: +0.00 [+0.00, +0.00] is not "about the same"."""
    from translate.study.verdicts.claims import no_difference_word
    from translate.study.verdicts.verdict import INCONCLUSIVE

    zero = Delta(0.0, 0.0, 0.0, 1.0, 0.0, 0.0, seeds=[0.0, 0.0, 0.0])
    assert verdict_word(zero, True, 1.0) == "no spread: decides nothing"
    assert no_difference_word(zero, 1.0) == INCONCLUSIVE
    assert verdict_word(Delta(0.1, -0.3, 0.5, 0.6, -0.2, 0.4, seeds=[0.1] * 3), True, 1.0) == "about the same"
