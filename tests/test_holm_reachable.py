"""A one-seed bootstrap's smallest p is 1/(B+1): with many tests on one page, Holm's first threshold 0.05/m can fall
below it, and then no Δ is starred however large. The report draws enough samples, or says so."""
from __future__ import annotations

from translate.analysis.sweep.aggregate import Report, Rules, one_seed_bleu_tests, samples_for_holm
from translate.analysis.sweep.tables import reading_rules, unreachable_stars


def test_enough_samples_make_the_bootstrap_floor_pass_holms_first_threshold():
    for tests in (1, 10, 499, 500, 501, 528, 3000):
        samples = samples_for_holm(tests)
        assert 1 / (samples + 1) <= 0.05 / tests
        assert samples % 10_000 == 0 and samples >= 10_000
    assert samples_for_holm(500) == 10_000   # 0.05/500 = 1e-4 ≥ 1/10,001
    assert samples_for_holm(528) == 20_000   # 0.05/528 = 9.5e-5 < 1/10,001


def report_with(tests: int, samples: int, seeds: int = 1) -> Report:
    rows = [{"p_bleu": 0.0001, "seeds": seeds, "p_chrf": 0.0001} for _ in range(tests - 1)]
    rows.append({"p_bleu": None, "p_interaction_bleu": 0.0001, "seeds": seeds})
    return Report(rows=rows, rules=Rules(samples=samples))


def test_only_one_seed_bleu_tests_count():
    assert one_seed_bleu_tests(report_with(528, 10_000)) == 528
    assert one_seed_bleu_tests(report_with(528, 10_000, seeds=3)) == 0  # t over seeds: no bootstrap floor


def test_the_page_says_when_no_star_is_reachable_and_how_many_samples_would_make_it_so():
    note = unreachable_stars(report_with(528, 10_000))
    assert note and "528 one-seed BLEU tests" in note and "--samples 20000" in note
    assert any(note in line for line in reading_rules(report_with(528, 10_000)))
    assert unreachable_stars(report_with(528, 20_000)) is None
    assert unreachable_stars(report_with(400, 10_000)) is None
    assert unreachable_stars(report_with(528, 10_000, seeds=3)) is None
    assert unreachable_stars(report_with(30, 1_000)) is None  # 1/1,001 ≤ 0.05/30: reachable with fewer than 10,000
    assert unreachable_stars(report_with(60, 1_000))  # 1/1,001 > 0.05/60
    assert not any("can carry a star" in line for line in reading_rules(report_with(400, 10_000)))
