"""Length extrapolation set-ups: train-only length filters, and a clear error when a learned table is too short."""
from __future__ import annotations

import pytest
from translate.assembly.settings import data_settings, validate_config
from conftest import TINY_RUN, make_config

from translate.config import ConfigError
from translate.data.corpora import CorpusError
from translate.data.pipeline import load_splits, prepare_data
from translate.cli.evaluate import evaluate
from translate.training.device import make_runtime
from translate.assembly.trainer import build_trainer


def french_words(pairs) -> set[int]:
    return {len(p.fr.split()) for p in pairs}


def test_length_filters_apply_to_train_only(cache_dir):
    overrides = (*TINY_RUN, f"data.cache_dir={cache_dir}", "data.test_limit=400")
    everything = load_splits(data_settings(make_config(*overrides, "data.train_limit=null")))
    filtered = load_splits(data_settings(make_config(*overrides, "data.train_min_words=3", "data.train_max_words=6")))
    assert filtered.train and french_words(filtered.train) <= set(range(3, 7))
    assert filtered.train == [p for p in everything.train if 3 <= len(p.fr.split()) <= 6][:2000]  # train_limit
    assert filtered.test == everything.test
    assert min(french_words(filtered.test)) < 3 and max(french_words(filtered.test)) > 6
    # validated on its own lengths: the valid split's pairs of 3-6 words first, then the long valid set's (none here)
    corpus = load_splits(data_settings(make_config(*overrides, "data.valid_limit=null")))
    assert filtered.valid == [p for p in corpus.valid if 3 <= len(p.fr.split()) <= 6][:100]
    assert len(filtered.valid) == 100 and french_words(filtered.valid) <= set(range(3, 7))


def test_only_a_maximum_keeps_every_shorter_length(cache_dir):
    splits = load_splits(data_settings(make_config(*TINY_RUN, f"data.cache_dir={cache_dir}", "data.train_max_words=4")))
    assert french_words(splits.train) == {1, 2, 3, 4}


def test_train_max_pairs_draws_a_fixed_subsample_after_the_length_filter(cache_dir):
    overrides = (*TINY_RUN, f"data.cache_dir={cache_dir}", "data.train_max_words=6")
    filtered = load_splits(data_settings(make_config(*overrides))).train
    drawn = load_splits(data_settings(make_config(*overrides, "data.train_max_pairs=300"))).train
    again = load_splits(data_settings(make_config(*overrides, "data.train_max_pairs=300", "seed=2"))).train
    assert len(drawn) == 300 and drawn == again
    assert drawn == [p for p in filtered if p in set(drawn)]  # a subset, in corpus order
    assert drawn != filtered[:300]  # drawn at random, not the first pairs
    with pytest.raises(CorpusError, match=rf"data.train_max_pairs=5000 is more than the {len(filtered)} training"):
        load_splits(data_settings(make_config(*overrides, "data.train_max_pairs=5000")))


def test_one_tokenizer_for_every_length_filter_and_subsample(cache_dir):
    base = (*TINY_RUN, f"data.cache_dir={cache_dir}", "data.train_limit=1000", "data.tokenizer.vocab_size=300")
    short = prepare_data(data_settings(make_config(*base, "data.train_max_words=5")))
    long = prepare_data(data_settings(make_config(*base, "data.train_min_words=8", "data.train_max_pairs=50")))
    assert len(long.splits["train"]) == 50 and max(french_words(short.splits["train"].pairs)) <= 5
    assert short.tokenizer.model_proto == long.tokenizer.model_proto


def test_learned_table_too_short_for_the_test_split_is_refused_at_start(tiny_data, tmp_path):
    longest = max(len(s) + 1 for s in tiny_data.splits["test"].src)
    cfg = make_config(*TINY_RUN, "encoding=learned", f"encoding.max_positions={longest - 1}")
    with pytest.raises(ConfigError, match=rf"encoding.max_positions={longest - 1} is shorter than the longest"):
        build_trainer(validate_config(cfg), tiny_data, make_runtime("cpu", "fp32"), tmp_path)


def test_standalone_evaluation_refuses_outputs_a_learned_table_cannot_hold(tiny_data, cache_dir, tmp_path):
    cfg = make_config(*TINY_RUN, f"data.cache_dir={cache_dir}", "encoding=learned", "encoding.max_positions=256")
    checkpoint = build_trainer(validate_config(cfg), tiny_data, make_runtime("cpu", "fp32"), tmp_path).save("best.pt")
    evaluate_cfg = make_config(f"checkpoint={checkpoint}", "decode.max_length_extra=300", config_name="evaluate")
    with pytest.raises(ConfigError, match=r"encoding.max_positions=256 is shorter than the longest translation"):
        evaluate(evaluate_cfg)
