"""Silver word alignments (eflomal, symmetrised, cached) and the AER of cross-attention against them: Shift-Att reading,
pieces to words, and the layer and threshold chosen on the valid split only."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
import torch

from translate.assembly.settings import data_settings
from translate.analysis.run import alignment_error
from translate.analysis.run.aer import (AerChoice, aer_grid, alignment_error_rate, choose_layer_threshold,
                                        piece_words, predicted_links, sentence_aer, word_attention)
from translate.analysis.run.alignment_error import SentenceAer, SilverReference, choose_on_valid, silver_reference
from translate.analysis.run.forced_attention import SentenceAttention
from translate.analysis.run.settings import ReportSettings
from translate.config.errors import ConfigError
from translate.data import silver_alignments as silver
from translate.data.cleaning import Pair
from translate.data.pipeline import TokenizedSplit
from translate.data.symmetrise import grow_diag_final_and


def shift_att_cross(links: set, source_pieces: int, target_pieces: int, layers: int = 1, heads: int = 2
                    ) -> torch.Tensor:
    """(L, H, bos + target, source + eos) cross-attention in which the step whose INPUT is target piece t (row t + 1)
    attends only to the source piece linked to it; the first row (input bos) attends to eos."""
    cross = torch.zeros(layers, heads, target_pieces + 1, source_pieces + 1)
    cross[..., 0, -1] = 1.0
    for s, t in links:
        cross[..., t + 1, s] = 1.0
    return cross


PERMUTED = {(2, 0), (0, 1), (1, 2)}   # source word 2 -> target word 0, ...: not on the diagonal
ONE_PIECE = [0, 1, 2]                 # one piece per word


def test_aer_is_zero_for_attention_equal_to_the_links_and_one_for_disjoint_links():
    attention = word_attention(shift_att_cross(PERMUTED, 3, 3), ONE_PIECE, ONE_PIECE)  # (1, 3, 3)
    choice = AerChoice(layer=0, threshold=0.5, valid_aer=0.0, valid_sentences=1)
    assert sentence_aer(attention, PERMUTED, choice) == 0.0
    assert sentence_aer(attention, {(0, 0), (1, 1), (2, 2)}, choice) == 1.0
    assert alignment_error_rate({(0, 0), (1, 1)}, {(0, 0), (2, 2)}) == pytest.approx(0.5)   # 1 - 2*1/(2+2)
    assert alignment_error_rate(set(), set()) is None
    # Sure and Possible (Och & Ney): a link in P but not in S counts in the numerator once, not in the denominator
    assert alignment_error_rate({(0, 0), (1, 1)}, {(0, 0)}, {(1, 1)}) == pytest.approx(1 - (1 + 2) / (2 + 1))
    assert alignment_error_rate({(0, 0)}, {(0, 0), (1, 1)}, {(2, 2)}) == pytest.approx(1 - 2 / 3)


def test_shift_att_reads_the_row_whose_input_is_the_target_word():
    cross = shift_att_cross(PERMUTED, 3, 3)
    shifted = word_attention(cross, ONE_PIECE, ONE_PIECE)[0]         # (Wt, Ws)
    assert predicted_links(shifted, 0.5) == PERMUTED
    # The row that PREDICTS target word t (row t, one earlier) looks where word t - 1 came from: wrong every time.
    predicting = cross.mean(1)[0, :-1, :-1]                           # rows 0..2, eos column dropped
    assert alignment_error_rate(predicted_links(predicting, 0.5), PERMUTED) == 1.0


def test_pieces_are_summed_into_source_words_and_averaged_into_target_words():
    source = ["▁le", "▁ch", "at", "▁noir", "."]        # words: le, chat, noir.
    target = ["▁the", "▁bl", "ack", "▁cat"]             # words: the, black, cat
    assert piece_words(source) == [0, 1, 1, 2, 2] and piece_words(target) == [0, 1, 1, 2]
    cross = torch.zeros(1, 1, 1 + 4, 5 + 1)             # (L, H, bos + 4 target pieces, 5 source pieces + eos)
    cross[0, 0, 4, 1], cross[0, 0, 4, 2], cross[0, 0, 4, 5] = 0.3, 0.5, 0.2    # input "▁cat": 0.8 on "chat"
    cross[0, 0, 2, 3], cross[0, 0, 2, 4] = 0.6, 0.4     # input "▁bl": all on "noir."
    cross[0, 0, 3, 0], cross[0, 0, 3, 3] = 0.5, 0.5     # input "ack": half on "le", half on "noir."
    words = word_attention(cross, piece_words(source), piece_words(target))[0]   # (3 target, 3 source words)
    assert words[2].tolist() == pytest.approx([0.0, 0.8, 0.0])    # summed over chat's two pieces; eos left out
    assert words[1].tolist() == pytest.approx([0.25, 0.0, 0.75])  # black: mean of its pieces' rows
    assert predicted_links(words, 0.7) == {(1, 2), (2, 1)}


def test_the_best_layer_and_threshold_minimise_the_mean_aer():
    diagonal = {(0, 0), (1, 1), (2, 2)}
    attention = torch.stack([word_attention(shift_att_cross(PERMUTED, 3, 3), ONE_PIECE, ONE_PIECE)[0],
                             word_attention(shift_att_cross(diagonal, 3, 3), ONE_PIECE, ONE_PIECE)[0]])  # (2, 3, 3)
    grid = aer_grid(attention, diagonal)                              # (L=2, K thresholds)
    assert grid[1].max() == 0.0 and grid[0].min() == 1.0
    choice = choose_layer_threshold([grid, grid])
    assert choice.layer == 1 and choice.valid_aer == 0.0 and choice.valid_sentences == 2


class FakeModel:
    """forced_attention stand-in: layer 0 attends along the diagonal, layer 1 along the anti-diagonal."""

    @staticmethod
    def forced_attention(model, tokenizer, src_ids, tgt_ids, batch_tokens=4000):
        for i, (src, tgt) in enumerate(zip(src_ids, tgt_ids)):
            n = len(src)
            cross = torch.cat([shift_att_cross({(k, k) for k in range(n)}, n, n),
                               shift_att_cross({(n - 1 - k, k) for k in range(n)}, n, n)])   # (2, 2, n + 1, n + 1)
            yield i, SentenceAttention(torch.zeros(0), torch.zeros(0), cross)


def fabricated_split(n_sentences: int = 4, n_words: int = 4) -> TokenizedSplit:
    words = " ".join(f"w{k}" for k in range(n_words))
    return TokenizedSplit([Pair(words, words)] * n_sentences, [list(range(10, 10 + n_words))] * n_sentences,
                          [list(range(10, 10 + n_words))] * n_sentences)


def test_layer_and_threshold_are_chosen_on_valid_links_only(monkeypatch):
    monkeypatch.setattr(alignment_error, "forced_attention", FakeModel.forced_attention)
    n = 4
    diagonal = frozenset((k, k) for k in range(n))
    anti = frozenset((n - 1 - k, k) for k in range(n))
    valid, test = fabricated_split(), fabricated_split()
    translator = SimpleNamespace(model=None, tokenizer=SimpleNamespace(pieces=lambda ids: [f"▁{i}" for i in ids]),
                                 settings=SimpleNamespace(batch_tokens=4000))
    choices = []
    for test_links in ([anti] * 4, [diagonal] * 4):     # the test links would pick layer 1, then layer 0
        reference = SilverReference(valid, [diagonal] * 4, {"test": test_links})
        choices.append(choose_on_valid(translator, reference))
    assert choices[0] == choices[1] and choices[0].layer == 0 and choices[0].valid_aer == 0.0
    scorer = SentenceAer(choices[0], translator.tokenizer, test, [anti] * 4)
    aer = [scorer(i, att.cross) for i, att in FakeModel.forced_attention(None, None, test.src, test.tgt)]
    assert aer == [1.0] * 4       # scored at the valid choice, though layer 1 would give 0 on these links
    assert scorer.summary() == {"aer_layer": 0, "aer_threshold": choices[0].threshold, "aer_valid": 0.0,
                                "aer_chosen_on": "valid"}


def test_a_sentence_whose_pieces_do_not_make_its_words_has_no_aer():
    split = TokenizedSplit([Pair("a b c", "x y")], [[10, 11]], [[12, 13]])     # 2 source pieces for 3 words
    scorer = SentenceAer(AerChoice(0, 0.5, 0.0, 1), SimpleNamespace(pieces=lambda ids: [f"▁{i}" for i in ids]),
                         split, [frozenset({(0, 0)})])
    assert scorer(0, torch.full((1, 1, 3, 3), 1 / 3)) is None


def test_grow_diag_final_and_keeps_agreement_and_grows_along_neighbours():
    forward = {(0, 0), (1, 1), (0, 1), (2, 1), (4, 4)}
    reverse = {(0, 0), (1, 1), (4, 5)}
    links = grow_diag_final_and(forward, reverse)
    assert links == {(0, 0), (1, 1), (2, 1), (4, 4)}
    # (0, 0), (1, 1): both directions agree. (2, 1): a neighbour of (1, 1) linking the unlinked source word 2.
    # (0, 1): a neighbour too, but both its words are linked already. (4, 4): far from the rest, added by final-and
    # (from the forward links first); then (4, 5) is left out, as source word 4 is linked.


@pytest.fixture(scope="module")
def real_pairs():
    """The Tatoeba training slice of the tiny runs and the test pairs that speak of a cat."""
    from conftest import TINY_RUN, make_config
    from translate.data.pipeline import read_corpus

    corpus = read_corpus(data_settings(make_config(*TINY_RUN)))
    cats = [p for p in corpus.test if "chat" in [silver.aligner_word(w) for w in p.fr.lower().split()]
            and "cat" in [silver.aligner_word(w) for w in p.en.lower().split()]]
    return corpus.train[:2000], cats


def test_silver_links_of_real_pairs_are_plausible_and_cached(real_pairs, tmp_path, monkeypatch):
    train, cats = real_pairs
    assert len(cats) >= 3
    [links] = silver.silver_alignments(train, [cats], tmp_path)
    for pair, found in zip(cats, links):
        fr = [silver.aligner_word(w).lower() for w in pair.fr.split()]
        en = [silver.aligner_word(w).lower() for w in pair.en.split()]
        assert (fr.index("chat"), en.index("cat")) in found, (pair, sorted(found))
        if "chien" in fr:
            assert (fr.index("chien"), en.index("dog")) in found
        assert all(s < len(fr) and t < len(en) for s, t in found)
    cached = list(tmp_path.glob("silver-eflomal-*.json"))
    assert len(cached) == 1

    def no_aligner(pairs):
        raise AssertionError("eflomal ran again instead of reading the cache")

    monkeypatch.setattr(silver, "run_eflomal", no_aligner)
    assert silver.silver_alignments(train, [cats], tmp_path) == [links]
    with pytest.raises(AssertionError, match="ran again"):   # other pairs: a new key, so a new alignment
        silver.silver_alignments(train, [cats[:1]], tmp_path)


def test_a_missing_aligner_is_an_error_naming_the_setting(monkeypatch, tmp_path):
    def missing(pairs):
        raise silver.AlignerMissing("the word aligner eflomal is not installed")

    monkeypatch.setattr(silver, "run_eflomal", missing)
    data = SimpleNamespace(splits={"train": fabricated_split(), "valid": fabricated_split()},
                           test_sets={"test": fabricated_split()})
    with pytest.raises(ConfigError, match="report.alignment_error_rate=false"):
        silver_reference(ReportSettings(), data, tmp_path)
    assert silver_reference(ReportSettings(alignment_error_rate=False), data, tmp_path) is None
    with pytest.raises(ConfigError, match="report.alignment_error_rate="):
        ReportSettings(alignment_error_rate="yes")


def test_pinned_links_are_read_before_the_cache_and_never_redrawn(tmp_path, monkeypatch):
    """A comparison's jobs in other checkouts (empty caches) read the committed links, not a new eflomal draw."""
    train = [Pair(f"le chat {i}", f"the cat {i}") for i in range(3)]
    to_align = [Pair("le chien", "the dog")]
    draws = iter([["0-0 1-1"], ["0-1 1-0"]])  # eflomal takes no seed: each call samples other links

    def sampling_aligner(pairs):
        lines = next(draws)
        return ["0-0"] * len(train) + lines, ["0-0"] * len(train) + lines

    monkeypatch.setattr(silver, "run_eflomal", sampling_aligner)
    first_cache, pinned_dir = tmp_path / "first_checkout", tmp_path / "pinned"
    pinned = silver.pin_alignments(train, [to_align], first_cache, pinned_dir)
    assert pinned.parent == pinned_dir
    assert pinned.name == silver.cached_alignment_path(train, to_align, first_cache).name
    assert silver.silver_alignments(train, [to_align], tmp_path / "other_checkout", pinned_dir) == [[{(0, 0), (1, 1)}]]
    assert not (tmp_path / "other_checkout").exists()  # read from the pinned file: nothing aligned, nothing cached
    # a cache holding another draw of the same pairs loses to the pinned links, and pinning again keeps the first
    assert silver.silver_alignments(train, [to_align], tmp_path / "third", tmp_path / "nothing_pinned") == [
        [{(0, 1), (1, 0)}]]
    assert silver.silver_alignments(train, [to_align], tmp_path / "third", pinned_dir) == [[{(0, 0), (1, 1)}]]
    before = pinned.read_text()
    silver.pin_alignments(train, [to_align], tmp_path / "third", pinned_dir)
    assert pinned.read_text() == before


def test_the_committed_pinned_links_are_readable_and_complete():
    """Each file of data/silver/ parses, and holds as many sentences as it says."""
    files = sorted(silver.PINNED_DIR.glob("silver-eflomal-*.json"))
    assert files, f"no pinned links in {silver.PINNED_DIR}"
    for path in files:
        expected = json.loads(path.read_text())["sentences"]
        assert len(silver.read_cached(path, expected)) == expected > 0


def test_a_gold_test_set_is_scored_against_its_own_links_at_a_reading_chosen_on_its_trial_pairs(monkeypatch,
                                                                                                  tmp_path):
    """Trial links on the diagonal choose layer 0; the test pairs' gold links (Sure diagonal, one Possible link
    besides) are scored there with Och & Ney's AER, whatever the silver links of the run would have said."""
    from translate.data import test_sets

    monkeypatch.setattr(alignment_error, "forced_attention", FakeModel.forced_attention)
    folder = tmp_path / "hansards_align"
    folder.mkdir()
    for split in ("trial", "test"):
        (folder / f"{split}.fr").write_text("a b c d\na b c d\n", encoding="utf-8")
        (folder / f"{split}.en").write_text("w x y z\nw x y z\n", encoding="utf-8")
        links = [f"000{s} {k} {k} S" for s in (1, 2) for k in range(1, 5)]
        if split == "test":
            links.append("0001 1 2 P")   # English 1 with French 2: possible only
        (folder / f"{split}.wa.nonullalign").write_text("\n".join(links) + "\n", encoding="utf-8")
    monkeypatch.setenv("TRANSLATE_DATA_DIR", str(tmp_path))
    spec = test_sets.parse_test_sets([{"name": "gold", "gold": "test"}])[0]
    assert spec.kind.gold_links and "human Sure/Possible links" in spec.source
    pairs = test_sets.test_set_pairs(spec, None)
    assert [(p.fr, p.en) for p in pairs] == [("a b c d", "w x y z")] * 2
    tokenizer = SimpleNamespace(pieces=lambda ids: [f"▁{i}" for i in ids],
                                encode=lambda texts: [list(range(10, 10 + len(t.split()))) for t in texts])
    translator = SimpleNamespace(model=None, tokenizer=tokenizer, settings=SimpleNamespace(batch_tokens=4000))
    split = TokenizedSplit(pairs, tokenizer.encode([p.fr for p in pairs]), tokenizer.encode([p.en for p in pairs]))
    scorer = alignment_error.gold_reading(translator, spec, split)
    assert scorer.choice.layer == 0 and scorer.summary()["aer_chosen_on"] == "gold trial"
    aer = [scorer(i, att.cross) for i, att in FakeModel.forced_attention(None, None, split.src, split.tgt)]
    assert aer == [0.0, 0.0]   # the diagonal is every Sure link; the Possible one is not needed
    assert alignment_error_rate({(0, 0), (1, 0)}, {(0, 0)}, {(1, 0)}) == 0.0   # a predicted Possible link costs nothing


def test_a_gold_test_set_entry_is_checked_before_training():
    from translate.data.test_sets import parse_test_sets

    with pytest.raises(ConfigError, match=r"eval.test_sets\[0\].gold='trial' is not allowed: expected one of \['test'\]"):
        parse_test_sets([{"name": "gold", "gold": "trial"}])
