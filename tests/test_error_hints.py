"""Every setting an error message advises exists: the keys named in these hints compose on the default config (and
encoding.max_positions on the encodings that have a limit)."""
from __future__ import annotations

import re

import pytest
from omegaconf import OmegaConf

from conftest import make_config
from translate.data.batching import make_batches
from translate.data.corpora import CorpusError, Splits

KEY = re.compile(r"\b(?:data|train|encoding|model|report|eval|decode)\.[a-z_]+(?:\.[a-z_]+)*")
MISSING = object()


def named_keys(message: str) -> list[str]:
    return KEY.findall(message)


def assert_keys_exist(message: str, *overrides: str) -> None:
    cfg = make_config(*overrides)
    keys = named_keys(message)
    assert keys, message
    for key in keys:
        assert OmegaConf.select(cfg, key, default=MISSING) is not MISSING, (key, message)


def test_a_sentence_longer_than_a_batch_names_settings_that_exist():
    with pytest.raises(ValueError) as error:
        make_batches([30], [30], max_tokens=5, seed=1)
    assert_keys_exist(str(error.value))


def test_an_empty_split_names_settings_that_exist():
    with pytest.raises(CorpusError) as error:
        Splits([], [], []).check_not_empty("tatoeba")
    assert_keys_exist(str(error.value))


def test_a_sentence_longer_than_an_encoding_represents_names_settings_that_exist():
    from translate.encodings.base import PositionalEncoding

    limited = type("Limited", (), {"max_positions": 4})()   # what check_length reads of an encoding
    with pytest.raises(ValueError) as error:
        PositionalEncoding.check_length(limited, 9, "a source sentence")
    assert_keys_exist(str(error.value), "encoding=learned")
