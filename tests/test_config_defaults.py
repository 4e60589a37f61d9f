"""Defaults live once, in the section dataclasses (the Hydra schema of each conf/<group>): a YAML option file lists
only what it changes, and composing the default run still gives every key its value."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from conftest import CONF_DIR, make_config
from translate.assembly.schemas import schemas

OPTION_FILES = [(group, path) for group in schemas() for path in sorted((Path(CONF_DIR) / group).glob("*.yaml"))]


def default_of(field: dataclasses.Field):
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def repeated_defaults(cls: type, node: dict, prefix: str) -> list[str]:
    repeated = []
    for field in dataclasses.fields(cls):
        if field.name not in node:
            continue
        default, value = default_of(field), node[field.name]
        if dataclasses.is_dataclass(default) and isinstance(value, dict):
            repeated += repeated_defaults(type(default), value, f"{prefix}{field.name}.")
        elif default is not dataclasses.MISSING and not dataclasses.is_dataclass(default) and value == default:
            repeated.append(f"{prefix}{field.name}={value!r}")
    return repeated


@pytest.mark.parametrize("group,path", OPTION_FILES, ids=[f"{g}/{p.name}" for g, p in OPTION_FILES])
def test_an_option_file_repeats_no_default_of_its_section(group, path):
    node = OmegaConf.to_container(OmegaConf.load(path))
    node.pop("defaults", None)
    assert repeated_defaults(schemas()[group], node, f"{group}.") == []


def test_the_default_run_takes_its_values_from_the_dataclasses():
    cfg = make_config()
    assert cfg.train.max_steps == 1500 and cfg.train.betas == [0.9, 0.98] and cfg.train.resume is None
    assert (cfg.model.dropout, cfg.model.norm_position, cfg.model.tie_embeddings) == (0.1, "pre", True)
    assert (cfg.data.tokenizer.model_type, cfg.data.tokenizer.vocab_size, cfg.data.path) == ("unigram", 8000, None)
    assert make_config("data=hf").data.tokenizer.vocab_size == 16000
    assert make_config("train=gpu").train.max_steps == 4000

