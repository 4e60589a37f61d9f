"""eval.test_sets: entry validation, file pairs found like corpora, and the synthetic long_concat set."""
from __future__ import annotations

import gzip
from collections import Counter

import pytest
from conftest import make_config

from translate.assembly.settings import validate_config
from translate.config import ConfigError
from translate.data.cleaning import Pair
from translate.data.corpora import CorpusError, Splits, Tatoeba
from translate.data.long_concat import RANGES, build_long_concat
from translate.data import test_sets as sets
from test_data import SHARED


@pytest.mark.parametrize("value,message", [
    ("[]", "eval.test_sets=[] is not allowed: expected a non-empty list of test sets"),
    ("[{name:a,split:dev}]", "eval.test_sets[0].split='dev' is not allowed: expected one of ['train', 'valid', 'test', "
                             "'long_test', 'long_valid']"),
    ("[{name:a,long_concat_from:train}]", "eval.test_sets[0].long_concat_from='train' is not allowed: expected one "
                                          "of ['valid', 'test', 'long_test', 'long_valid'] (never train)"),
    ("[{name:a,src:x.fr}]", "eval.test_sets[0].ref=None is not allowed: expected a file path"),
    ("[{name:a,split:test},{name:a,split:valid}]", "eval.test_sets names ['a'] more than once"),
    ("[{split:test}]", "eval.test_sets[0].name=None is not allowed"),
    ("[{name:a,split:test,src:x,ref:y}]", "eval.test_sets[0] (a) sets ['split', 'src']: expected exactly one of"),
    ("[{name:a,split:test,size:3}]", "eval.test_sets[0] has unknown keys ['size']"),
])
def test_bad_test_sets_name_the_key_the_value_and_what_is_allowed(value, message):
    with pytest.raises(ConfigError) as error:
        validate_config(make_config("model=tiny", f"eval.test_sets={value}"))
    assert message in str(error.value)


def test_a_file_pair_is_read_and_a_missing_one_names_its_entry(tmp_path):
    with gzip.open(tmp_path / "a.fr.gz", "wt") as f:
        f.write("Un chat.\nDeux chiens.\n")
    (tmp_path / "a.en").write_text("A cat.\nTwo dogs.\n")
    spec = sets.parse_test_sets([{"name": "mine", "src": str(tmp_path / "a.fr.gz"), "ref": str(tmp_path / "a.en")}])[0]
    assert sets.test_set_pairs(spec, Splits([], [], [])) == [Pair("Un chat.", "A cat."), Pair("Deux chiens.", "Two dogs.")]
    missing = sets.parse_test_sets([{"name": "gone", "src": "nowhere/x.fr", "ref": "nowhere/x.en"}])[1 - 1]
    with pytest.raises(CorpusError, match=r"eval.test_sets\[0\] \(gone\): src='nowhere/x.fr' not found"):
        sets.test_set_pairs(missing, Splits([], [], []))


def test_the_default_multi30k_test_set_is_found_in_the_shared_corpora():
    spec = sets.parse_test_sets(make_config().eval.test_sets)[1]
    pairs = sets.test_set_pairs(spec, Splits([], [], []))
    assert spec.name == "multi30k_flickr2016" and len(pairs) == 1000


@pytest.fixture(scope="module")
def tatoeba() -> Splits:
    return Tatoeba().load(str(SHARED / "tatoeba"))


def test_long_concat_fills_every_range_from_test_pieces_only(tatoeba):
    built = build_long_concat(tatoeba.test)
    counts = Counter(next((r for r in RANGES if r[0] <= len(p.fr.split()) <= r[1]), None) for p in built)
    assert all(counts[r] >= 300 for r in RANGES) and None not in counts, counts
    test_fr = {p.fr for p in tatoeba.test}
    train_fr, train_en = {p.fr for p in tatoeba.train}, {p.en for p in tatoeba.train}
    for pair in built[:200] + built[-200:]:  # every piece is a test sentence; none is in train
        pieces = [p for p in tatoeba.test if p.fr in pair.fr and p.en in pair.en]
        assert pieces and not any(p.fr in train_fr or p.en in train_en for p in pieces)
    assert not any(fr in train_fr for fr in test_fr)
    assert build_long_concat(tatoeba.test) == built  # deterministic


def test_long_concat_joins_consecutive_pairs_side_by_side():
    pairs = [Pair(" ".join(["mot"] * 6) + f" {i}", f"word {i}") for i in range(40)]
    built = build_long_concat(pairs, per_range=3)
    assert built[0] == Pair(f"{pairs[0].fr} {pairs[1].fr}", "word 0 word 1")  # 14 words: the 11-15 range
    assert all(2 <= p.en.count("word") <= 6 for p in built)
    spec = sets.TestSetSpec("long", long_concat_from="test")
    assert sets.test_set_pairs(spec, Splits([], [], pairs), limit=4) == build_long_concat(pairs)[:4]


def test_the_kind_says_what_a_test_set_is_whatever_its_name():
    from translate.analysis.run.metrics_json import RunMetrics
    from translate.analysis.sweep.plots import curve_test_set

    specs = sets.parse_test_sets([{"name": "mine", "split": "test"}, {"name": "far", "split": "long_test"},
                                  {"name": "glued", "long_concat_from": "valid"},
                                  {"name": "flickr", "src": "a.fr", "ref": "a.en"}])
    assert [s.long_lengths for s in specs] == [False, True, True, False]
    assert [s.kind.synthetic for s in specs] == [False, False, True, False]
    assert [s.source for s in specs] == ["split test", "split long_test", "long_concat of split valid (synthetic)",
                                         "files a.fr, a.en"]
    metrics = {"test_set": "mine", "test_sets": {s.name: {"source": s.source, "long_lengths": s.long_lengths}
                                                 for s in specs}}
    assert curve_test_set(RunMetrics.read(metrics)) == "far"  # the first built for long sentences, not a name the code knows
    old = {"test_set": "test", "test_sets": {"test": {"source": "split test"},
                                             "long_concat": {"source": "long_concat of split test (synthetic)"}}}
    assert curve_test_set(RunMetrics.read(old)) == "long_concat"  # runs written before long_lengths existed
