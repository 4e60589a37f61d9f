"""The reserved long test and long valid sets, validation on the training lengths, groups matched in target tokens."""
from __future__ import annotations

import pytest
from translate.assembly.settings import data_settings
from conftest import TINY_RUN, make_config
from test_data import SHARED

from translate.data.cleaning import Pair
from translate.data.corpora import Tatoeba
from translate.data.long_reserve import BANDS, LONG_FROM, band_counts, reserve_long, sentence_count
from translate.data.pipeline import load_splits, prepare_data, same_target_tokens

needs_tatoeba = pytest.mark.skipif(not (SHARED / "tatoeba" / "fra-eng.zip").exists(), reason="no Tatoeba zip")


def sentences(pairs: list[Pair]) -> set[tuple[str, str]]:
    return {("en", p.en) for p in pairs} | {("fr", p.fr) for p in pairs}


@pytest.fixture(scope="module")
def tatoeba():
    return Tatoeba().load(str(SHARED / "tatoeba"))


@needs_tatoeba
def test_long_test_meets_its_sizes_and_shares_no_sentence_with_training(tatoeba):
    test_counts, valid_counts = band_counts(tatoeba.long_test), band_counts(tatoeba.long_valid)
    assert test_counts[BANDS[0]] >= 1000
    assert test_counts[BANDS[1]] >= 300 and test_counts[BANDS[2]] >= 200  # 208 in the corpus, 5 in the test split
    assert valid_counts[BANDS[0]] >= 350 and valid_counts[BANDS[1]] >= 100
    assert min(len(p.fr.split()) for p in tatoeba.long_test + tatoeba.long_valid) >= LONG_FROM
    trained = sentences(tatoeba.train)
    for reserved in (tatoeba.long_test, tatoeba.long_valid):
        assert not sentences(reserved) & trained
        assert not sentences(reserved) & sentences(tatoeba.valid + tatoeba.test)
    assert not sentences(tatoeba.long_test) & sentences(tatoeba.long_valid)


@needs_tatoeba
def test_the_reserve_leaves_valid_and_test_as_they_were(tatoeba):
    before = Tatoeba(long_reserve=False).load(str(SHARED / "tatoeba"))
    assert before.valid == tatoeba.valid and before.test == tatoeba.test
    assert not before.long_test and set(tatoeba.train) < set(before.train)


def test_reserve_moves_whole_components_and_drops_their_short_pairs():
    long_fr = " ".join(["mot"] * 12)
    train = [Pair("Court.", "Short."), Pair(long_fr, "Long one."), Pair("Bref.", "Long one."),
             Pair(long_fr + " b", "Another long one.")]
    reserve = reserve_long(train, seed=1)
    assert reserve.train == [Pair("Court.", "Short.")]
    assert set(reserve.long_test + reserve.long_valid) == {train[1], train[3]}
    assert reserve.dropped_short == 1  # "Bref." shares its English with a reserved long pair


def test_sentence_count_tags_lines_of_several_sentences():
    assert sentence_count("Les baleines ne sont pas des poissons. Ce sont des mammifères.") == 2
    assert sentence_count("Ne posez pas de questions ! Contentez-vous de me suivre !") == 2
    assert sentence_count("M. Dupont est arrivé à 3 h. 30 ce matin.") == 1  # no capital after "h."
    assert sentence_count("Il a dit : « Viens ici. »") == 1


def test_same_target_tokens_draws_pairs_until_the_other_groups_pieces(tiny_data):
    tokenizer = tiny_data.tokenizer
    pairs = tiny_data.splits["train"].pairs
    short, long = [p for p in pairs if len(p.fr.split()) <= 4], [p for p in pairs if len(p.fr.split()) >= 7]
    drawn = same_target_tokens(short, long, tokenizer)
    pieces = lambda ps: sum(len(ids) for ids in tokenizer.encode([p.en for p in ps]))  # noqa: E731
    longest = max(len(ids) for ids in tokenizer.encode([p.en for p in short]))
    assert pieces(long) <= pieces(drawn) < pieces(long) + longest  # stops at the first pair that reaches the total
    assert drawn == [p for p in short if p in set(drawn)] and len(drawn) < len(short)  # a subset, in corpus order
    assert same_target_tokens(short, long, tokenizer) == drawn  # fixed seed


def test_a_length_filtered_run_validates_on_its_own_lengths_and_matched_tokens(cache_dir):
    base = (*TINY_RUN, f"data.cache_dir={cache_dir}", "data.train_limit=null", "data.valid_limit=null",
            "data.tokenizer.vocab_size=300")
    long = prepare_data(data_settings(make_config(*base, "data.train_min_words=11", "data.train_max_words=17")))
    short = prepare_data(data_settings(make_config(*base, "data.train_max_words=9",
                                                   "data.train_same_tokens_as=[11,17]")))
    for data, (low, high) in ((long, (11, 17)), (short, (1, 9))):
        assert {len(p.fr.split()) for p in data.splits["valid"].pairs} <= set(range(low, high + 1))
    assert any(p in load_splits(data_settings(make_config(*base))).valid for p in long.splits["valid"].pairs)
    target = lambda d: sum(len(t) for t in d.splits["train"].tgt)  # noqa: E731
    assert 0 <= target(short) - target(long) < 40  # within the last drawn pair
    assert len(short.splits["train"]) > 1.5 * len(long.splits["train"])
