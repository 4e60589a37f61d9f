"""Start-up validation: a bad value is a ConfigError naming the key, the value and what is allowed, before any work.
Includes a property-based test: any value at any key gives success or such a ConfigError, nothing else."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hydra.errors import ConfigCompositionException
from omegaconf import DictConfig, OmegaConf, open_dict
from omegaconf.errors import GrammarParseError

from conftest import make_config
from translate.assembly.fit import check_data_fits
from translate.assembly.settings import validate_config
from translate.config import ConfigError
from translate.config.errors import from_composition
from translate.data.cleaning import Pair
from translate.data.pipeline import TokenizedSplit
from translate.encodings.learned import Learned
from translate.encodings.sinusoidal import Sinusoidal
from translate.assembly.trainer import build_trainer


BASE = make_config("model=tiny")
REPO = Path(__file__).resolve().parents[1]


def config_with(key: str, value):
    """BASE with `key` set to any value: an untyped copy (as a YAML without its schema would give), so that the
    value reaches validate_config."""
    cfg = OmegaConf.create(OmegaConf.to_container(BASE))
    with open_dict(cfg):
        OmegaConf.update(cfg, key, value, merge=False)
    return cfg


def error_of(cfg) -> str:
    with pytest.raises(ConfigError) as caught:
        validate_config(cfg)
    return str(caught.value)


# One test per kind of error; each checks that the key and the value appear (the wording may change).

@pytest.mark.parametrize("override,key,value", [
    ("train.max_steps=ten", "train.max_steps", "ten"),
    ("train.max_steps=2.5", "train.max_steps", "2.5"),
    ("model.d_model=wide", "model.d_model", "wide"),
    ("decode.beam_size=x", "decode.beam_size", "x"),
])
def test_a_wrong_type_is_refused_when_the_config_is_composed(override, key, value):
    with pytest.raises(ConfigCompositionException) as caught:
        make_config("model=tiny", override)
    message = f"{caught.value} {caught.value.__cause__}"
    assert key in message and value in message


@pytest.mark.parametrize("override,key,value", [("train.max_steps=ten", "train.max_steps", "ten"),
                                               ("train.max_step=3", "train.max_step", ""),
                                               ("piece=3/2", "piece", "3/2")])
def test_the_train_command_answers_a_typing_error_in_one_line(override, key, value):
    result = subprocess.run([sys.executable, "-m", "translate.train", override], cwd=REPO, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: {key}") and value in result.stderr


def test_an_unknown_key_is_refused_when_the_config_is_composed():
    with pytest.raises(ConfigCompositionException) as caught:
        make_config("model=tiny", "train.max_step=10")
    assert "train.max_step" in f"{caught.value} {caught.value.__cause__}"


@pytest.mark.parametrize("override,key,suggested", [("train.max_stepz=5", "train.max_stepz", "max_steps"),
                                                     ("seeed=3", "seeed", "seed"),
                                                     ("encoding.bse=3", "encoding.bse", "base")])
def test_a_misspelt_key_gets_the_closest_settings(override, key, suggested):
    """As a misspelt option does: 'did you mean max_steps?', for a typed section and an untyped one alike."""
    with pytest.raises(ConfigCompositionException) as caught:
        make_config("model=tiny", override)
    message = str(from_composition(caught.value))
    assert message.startswith(f"{key} is not a setting") and f"did you mean {suggested}" in message


def test_a_section_without_its_schema_is_still_typed():
    """A user's own YAML that forgot `defaults: [schema]`: validate_config types it all the same."""
    cfg = config_with("train.max_steps", "ten")  # open_dict on an untyped copy
    assert "train.max_steps" in error_of(cfg) and "ten" in error_of(cfg)


@pytest.mark.parametrize("override,shown", [
    ("train.max_steps=0", "train.max_steps=0"),
    ("train.lr=nan", "train.lr=nan"),
    ("train.lr=0", "train.lr=0"),
    ("train.betas=[0.9]", "train.betas=[0.9]"),
    ("train.max_minutes=-5", "train.max_minutes=-5.0"),
    ("train.precision=fp16", "train.precision='fp16'"),
    ("train.resume=''", "train.resume=''"),
    ("model.dropout=1", "model.dropout=1.0"),
    ("decode.beam_size=0", "decode.beam_size=0"),
    ("decode.length_penalty=inf", "decode.length_penalty=inf"),
    ("data.tokenizer.vocab_size=8", "data.tokenizer.vocab_size=8"),
    ("data.train_max_pairs=0", "data.train_max_pairs=0"),
    ("report.edges=[10,5]", "report.edges=[10, 5]"),
    ("eval.test_sets=[]", "eval.test_sets=[]"),
    ("seed=1.5", "seed=1.5"),
])
def test_a_value_outside_what_is_allowed_names_key_value_and_the_allowed(override, shown):
    message = error_of(make_config("model=tiny", override))
    assert message.startswith(shown) and "expected" in message


@pytest.mark.parametrize("override,keys", [
    ("model.n_heads=3", ["model.n_heads=3", "model.d_model=64"]),
    ("data.train_min_words=9", ["data.train_min_words=9", "data.train_max_words=5"]),
])
def test_cross_field_checks_name_both_keys(override, keys):
    message = error_of(make_config("model=tiny", "data.train_max_words=5", override))
    assert all(k in message for k in keys)


@pytest.mark.parametrize("override,shown", [
    ("data.corpus.valid_size=0", "data.corpus"),
    ("data.corpus._target_=nowhere.Corpus", "data.corpus._target_='nowhere.Corpus'"),
    ("encoding.base=abc", "encoding.base='abc'"),
    ("encoding._target_=translate.encodings.Nope", "encoding._target_='translate.encodings.Nope'"),
    ("encoding.merge=sum", "encoding.merge='sum'"),
    ("+encoding.extra=1", "encoding"),
    ("ablation._target_=translate.encodings.base.AttentionTerms", "ablation"),
])
def test_classes_named_by_target_check_their_own_settings(override, shown):
    assert shown in error_of(make_config("model=tiny", override))


def test_learned_table_too_small_for_a_model_dimension_is_refused_by_its_class():
    message = error_of(make_config("model=tiny", "encoding=learned", "encoding.max_positions=0"))
    assert "encoding.max_positions=0" in message


def test_unresolvable_interpolation_and_missing_value_name_the_key():
    for key, value in (("train.lr", "${nowhere}"), ("encoding.base", "${nowhere}"), ("decode.beam_size", "???")):
        message = error_of(config_with(key, value))
        assert key in message and ("nowhere" in message or "???" in message), message


def test_a_scalar_where_a_section_belongs():
    message = error_of(config_with("train", 5))
    assert message.startswith("train=5") and "section" in message


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
    from translate.assembly.trainer import build_trainer

    cfg = tiny_config("encoding=learned", "encoding.max_positions=8")
    with pytest.raises(ConfigError, match=r"encoding.max_positions=8 is shorter than the longest train sentence"):
        build_trainer(validate_config(cfg), tiny_data, make_runtime("cpu", "fp32"), tmp_path)


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
    try:
        cfg = config_with(key, value)
    except GrammarParseError:  # OmegaConf refuses to hold a broken ${...} at all: no config to validate
        assume(False)
    try:
        validate_config(cfg)
    except ConfigError as error:
        assert key in str(error), (key, value, str(error))
