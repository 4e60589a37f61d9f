"""Start-up validation: a bad value is a ConfigError naming the key, the value and what is allowed, before any work.
Includes a property-based test: any value at any key gives success or such a ConfigError, nothing else."""
from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from omegaconf import DictConfig, OmegaConf, open_dict

from conftest import make_config
from translate.config import ConfigError, check_data_fits, validate_config
from translate.data.cleaning import Pair
from translate.data.pipeline import TokenizedSplit
from translate.encodings.learned import Learned
from translate.encodings.sinusoidal import Sinusoidal


BASE = make_config("model=tiny")


def config_with(key: str, value):
    cfg = copy.deepcopy(BASE)
    with open_dict(cfg):
        OmegaConf.update(cfg, key, value, merge=False)
    return cfg


def error_of(cfg) -> str:
    with pytest.raises(ConfigError) as caught:
        validate_config(cfg)
    return str(caught.value)


# Each: a bad override as typed on the command line -> the exact message.
CASES = [
    ("train.max_steps=ten", "train.max_steps='ten' is not allowed: expected an integer >= 1"),
    ("train.max_steps=2.5", "train.max_steps=2.5 is not allowed: expected an integer >= 1"),
    ("train.max_steps=true", "train.max_steps=True is not allowed: expected an integer >= 1"),
    ("train.lr=nan", "train.lr=nan is not allowed: expected a learning rate in (0, 1)"),
    ("train.lr=0", "train.lr=0 is not allowed: expected a learning rate in (0, 1)"),
    ("train.betas=[0.9]", "train.betas=[0.9] is not allowed: expected two numbers in [0, 1)"),
    ("train.max_minutes=-5", "train.max_minutes=-5 is not allowed: expected a number of minutes > 0"),
    ("train.max_bad_steps=0", "train.max_bad_steps=0 is not allowed: expected an integer >= 1"),
    ("train.precision=fp16", "train.precision='fp16' is not allowed: expected one of ['auto', 'fp32', 'bf16']"),
    ("train.compile=yes", "train.compile='yes' is not allowed: expected true or false"),
    ("train.resume=''", "train.resume='' is not allowed: expected null, auto or a checkpoint path"),
    ("model.n_heads=3", "model.n_heads=3 does not divide model.d_model=64; allowed n_heads: [1, 2, 4, 8, 16, 32, 64]"),
    ("model.d_model=0", "model.d_model=0 is not allowed: expected an integer >= 1"),
    ("model.dropout=1", "model.dropout=1 is not allowed: expected a number in [0, 1)"),
    ("model.tie_embeddings=1", "model.tie_embeddings=1 is not allowed: expected true or false"),
    ("decode.beam_size=0", "decode.beam_size=0 is not allowed: expected an integer >= 1"),
    ("decode.length_penalty=inf", "decode.length_penalty=inf is not allowed: expected a number in [0, 10]"),
    ("decode.max_length_extra=0", "decode.max_length_extra=0 is not allowed: expected an integer >= 1"),
    ("data.tokenizer.vocab_size=8", "data.tokenizer.vocab_size=8 is too small: expected >= 16"),
    ("data.train_limit=-1", "data.train_limit=-1 is not allowed: expected an integer >= 1"),
    ("data.train_max_pairs=0", "data.train_max_pairs=0 is not allowed: expected an integer >= 1"),
    ("data.train_max_pairs=1.5", "data.train_max_pairs=1.5 is not allowed: expected an integer >= 1"),
    ("data.corpus.valid_size=0", "data.corpus.valid_size=0 is not allowed: expected an integer >= 1"),
    ("data.corpus.split_seed=x", "data.corpus.split_seed='x' is not allowed: expected an integer"),
    ("data.corpus._target_=nowhere.Corpus", "data.corpus._target_='nowhere.Corpus' is not allowed: expected an "
                                            "importable class (Error loading 'nowhere.Corpus':"),
    ("encoding.base=abc", "encoding.base='abc' is not allowed: expected a finite number (like the default, "
                          "10000.0)"),
    ("encoding._target_=translate.encodings.Nope", "encoding._target_='translate.encodings.Nope' is not allowed: "
                                                   "expected an importable class"),
    ("encoding.merge=sum", "encoding (translate.encodings.sinusoidal.Sinusoidal) cannot be built from "
                           "encoding.base=10000.0, encoding.merge='sum': encoding.merge='sum' is not allowed; "
                           "choose one of ['add', 'mul', 'concat']"),
    ("+encoding.extra=1", "encoding (translate.encodings.sinusoidal.Sinusoidal) cannot be built from"),
    ("ablation._target_=translate.encodings.base.AttentionTerms", "ablation (translate.encodings.base.AttentionTerms)"
                                                                  " cannot be"),
    ("seed=1.5", "seed=1.5 is not allowed: expected an integer"),
]


@pytest.mark.parametrize("override,message", CASES, ids=[c[0] for c in CASES])
def test_bad_value_message(override, message):
    assert error_of(make_config("model=tiny", override)).startswith(message)


def test_learned_table_too_small_for_a_model_dimension_is_refused_by_its_class():
    message = error_of(make_config("model=tiny", "encoding=learned", "encoding.max_positions=0"))
    assert "encoding.max_positions=0" in message


def test_unresolvable_interpolation_and_missing_value_name_the_key():
    assert error_of(config_with("train.lr", "${nowhere}")) == \
        "train.lr cannot be read: Interpolation key 'nowhere' not found"
    assert error_of(config_with("encoding.base", "${nowhere}")).startswith("encoding.base cannot be read")
    assert error_of(config_with("decode.beam_size", "???")) == "decode.beam_size is not set (???); give it a value"


def test_a_scalar_where_a_section_belongs():
    assert error_of(config_with("train", 5)) == "train=5 is not allowed: expected a config section"


def test_every_shipped_option_still_validates():
    validate_config(make_config("model=tiny"))
    validate_config(make_config("model=base", "encoding=learned", "decode=beam", "data=multi30k"))


# -- learned table >= longest sentence, and >= longest translation ------------------------------------------------

def split_of(src_lengths: list[int], tgt_lengths: list[int]) -> TokenizedSplit:
    return TokenizedSplit([Pair("x", "y")] * len(src_lengths), [[5] * n for n in src_lengths],
                          [[5] * n for n in tgt_lengths])


DECODE = OmegaConf.create({"max_length_ratio": 1.5, "max_length_extra": 10})


def test_learned_table_shorter_than_longest_sentence():
    with pytest.raises(ConfigError, match=r"encoding.max_positions=32 is shorter than the longest valid sentence "
                                          r"\(40 tokens\); allowed: >= 40"):
        check_data_fits(Learned(16, 2, max_positions=32), {"train": split_of([3], [4]),
                                                           "valid": split_of([5, 39], [6, 2])}, DECODE)


def test_learned_table_shorter_than_longest_possible_translation():
    with pytest.raises(ConfigError) as caught:
        check_data_fits(Learned(16, 2, max_positions=32), {"test": split_of([15], [10])}, DECODE)
    assert str(caught.value).startswith(
        "encoding.max_positions=32 is shorter than the longest translation decoding may produce for the test split "
        "(34 tokens = 16 source tokens * decode.max_length_ratio=1.5 + decode.max_length_extra=10)")
    check_data_fits(Learned(16, 2, max_positions=34), {"test": split_of([15], [10])}, DECODE)


def test_unbounded_encoding_has_no_length_check():
    check_data_fits(Sinusoidal(16, 2), {"train": split_of([5000], [5000])}, DECODE)


def test_trainer_refuses_a_learned_table_too_short_for_the_data(tiny_config, tiny_data, tmp_path):
    from translate.training.device import make_runtime
    from translate.training.trainer import Trainer

    cfg = tiny_config("encoding=learned", "encoding.max_positions=8")
    with pytest.raises(ConfigError, match=r"encoding.max_positions=8 is shorter than the longest train sentence"):
        Trainer(cfg, tiny_data, make_runtime("cpu", "fp32"), tmp_path)


# -- property: arbitrary values at arbitrary keys ------------------------------------------------------------------

def leaf_keys(node, prefix: str = "") -> list[str]:
    keys = []
    for key in node:
        value = node._get_node(key)
        full = f"{prefix}{key}"
        keys += leaf_keys(node[key], full + ".") if isinstance(value, DictConfig) else [full]
    return keys


KEYS = leaf_keys(BASE) + ["model", "train", "encoding", "data.corpus", "decode"]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
                    st.sampled_from(["${nowhere}", "???", "${model.d_model}", "auto", "add", "0.5", "1e3", ""]))
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(st.text("abc", max_size=3), SCALARS,
                                                                        max_size=2))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(KEYS), value=VALUES)
def test_any_value_at_any_key_is_accepted_or_named(key, value):
    cfg = config_with(key, value)
    try:
        validate_config(cfg)
    except ConfigError as error:
        assert key in str(error), (key, value, str(error))
