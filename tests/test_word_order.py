"""Word choice apart from word order: the same words in another order keep unigram F and lose Kendall τ."""
from __future__ import annotations

import pytest

from translate.scoring.word_order import word_choice_and_order, words

REFERENCE = "The cat sat on the mat."


def test_the_reference_itself_is_perfect_in_both():
    same = word_choice_and_order(REFERENCE, REFERENCE)
    assert (same.precision, same.recall, same.f) == (1.0, 1.0, 1.0) and same.order_tau == pytest.approx(1.0)


def test_reversed_words_keep_their_choice_and_lose_their_order():
    reversed_ = word_choice_and_order("mat the on sat cat the", REFERENCE)
    assert reversed_.f == 1.0 and reversed_.order_tau == pytest.approx(-1.0)
    moved = word_choice_and_order("on the mat the cat sat", REFERENCE)
    assert moved.f == 1.0 and -1.0 < moved.order_tau < 1.0


def test_counts_are_clipped_and_missing_words_cost_recall():
    repeated = word_choice_and_order("the the the the cat", REFERENCE)      # "the" counts twice at most
    assert repeated.precision == pytest.approx(3 / 5) and repeated.recall == pytest.approx(3 / 6)
    short = word_choice_and_order("the cat sat", REFERENCE)
    assert short.precision == 1.0 and short.recall == pytest.approx(0.5) and short.order_tau == pytest.approx(1.0)


def test_no_shared_words_and_empty_sentences():
    none = word_choice_and_order("a dog barked", REFERENCE)
    assert none.f == 0.0 and none.order_tau is None
    empty = word_choice_and_order("", REFERENCE)
    assert empty.precision is None and empty.f == 0.0 and empty.order_tau is None
    assert word_choice_and_order("a cat", "").f is None


def test_words_are_lowercased_13a_tokens_without_punctuation():
    assert words("Don't stop, Tom!") == ["don't", "stop", "tom"]
