"""A one-seed two-sided bootstrap's smallest p is 2/(B+1): with many tests in one Holm family, its first threshold
0.05/m can fall below it, and then no Δ is starred however large. The report draws enough samples, or says so.
Holm's family is the tests of one test set that decide; a bucket too small to decide is in no family."""
from __future__ import annotations

import copy

from translate.analysis.sweep.aggregate import Report, Rules, adjust_for_many_tests, one_seed_bleu_tests, samples_for_holm
from translate.analysis.sweep.rows import Comparison, Delta, ReportRow
from translate.analysis.sweep.tables import comparison_cell, reading_rules, unreachable_stars


def row(test_set: str, seeds: int = 1, decides: bool = True, sentences: int = 500, **deltas: Delta) -> ReportRow:
    """A report row of `test_set` holding the given Δs (Comparison's fields: bleu, chrf, interaction_bleu, ...)."""
    return ReportRow(test_set=test_set, seeds=seeds, decides=decides, sentences=sentences,
                     compared=Comparison(**deltas))


def test_enough_samples_make_the_bootstrap_floor_pass_holms_first_threshold():
    for tests in (1, 10, 249, 250, 251, 264, 3000):
        samples = samples_for_holm(tests)
        assert 2 / (samples + 1) <= 0.05 / tests
        assert samples % 10_000 == 0 and samples >= 10_000
    assert samples_for_holm(250) == 10_000   # 0.05/250 = 2e-4 ≥ 2/10,001
    assert samples_for_holm(264) == 20_000   # 0.05/264 = 1.9e-4 < 2/10,001


def report_with(tests: int, samples: int, seeds: int = 1, test_sets: int = 1) -> Report:
    rows = []
    for k in range(test_sets):
        rows += [row(f"t{k}", seeds, bleu=Delta(1.0, p=0.0001), chrf=Delta(1.0, p=0.0001)) for _ in range(tests - 1)]
        rows.append(row(f"t{k}", seeds, interaction_bleu=Delta(1.0, p=0.0001)))
    return Report(rows=rows, rules=Rules(samples=samples))


def test_only_one_seed_bleu_tests_of_the_largest_family_count():
    assert one_seed_bleu_tests(report_with(264, 10_000)) == 264
    assert one_seed_bleu_tests(report_with(264, 10_000, test_sets=3)) == 264  # one family per test set
    assert one_seed_bleu_tests(report_with(264, 10_000, seeds=3)) == 0  # t over seeds: no bootstrap floor


def test_the_page_says_when_no_star_is_reachable_and_how_many_samples_would_make_it_so():
    note = unreachable_stars(report_with(264, 10_000))
    assert note and "264 one-seed BLEU tests" in note and "--samples 20000" in note
    assert any(note in line for line in reading_rules(report_with(264, 10_000)))
    assert unreachable_stars(report_with(264, 20_000)) is None
    assert unreachable_stars(report_with(200, 10_000)) is None
    assert unreachable_stars(report_with(264, 10_000, seeds=3)) is None
    assert unreachable_stars(report_with(20, 1_000)) is None  # 2/1,001 ≤ 0.05/20: reachable with fewer than 10,000
    assert unreachable_stars(report_with(30, 1_000))  # 2/1,001 > 0.05/30
    assert not any("can carry a star" in line for line in reading_rules(report_with(200, 10_000)))


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
