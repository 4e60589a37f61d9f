"""Shared fixtures: composed configs and a small real Tatoeba slice (cached per test session)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from hypothesis import settings

from translate.assembly.settings import data_settings
from translate.assembly.compose import CONF_DIR, compose
from translate.assembly.schemas import register

register()  # for the tests that load configs through Hydra's own loader (tests/test_sweep_configs.py)

# Property tests draw the same examples on every run, so a CI run repeats the one before it; to search for new
# failing inputs, run them with HYPOTHESIS_PROFILE=explore (and raise max_examples).
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

# One thread: faster for tiny models, and immune to OpenMP spin-waits when other processes share the cores.
torch.set_num_threads(1)


make_config = compose  # conf/<config_name>.yaml with Hydra overrides, as the command line would


TINY_RUN = ("+debug=tiny",)  # conf/debug/tiny.yaml: model=tiny on a 2,000-pair slice, 20 steps, one thread


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> Path:
    """One SentencePiece/tokenized cache for the whole session."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def tiny_config(cache_dir):
    """A tiny, fast training config on a 2,000-pair Tatoeba slice; pass extra overrides as arguments."""
    def build(*overrides: str):
        return make_config(*TINY_RUN, f"data.cache_dir={cache_dir}", *overrides)
    return build


@pytest.fixture(scope="session")
def tiny_data(cache_dir):
    """PreparedData of the tiny slice (SentencePiece vocabulary 1,000)."""
    from translate.data.pipeline import prepare_data

    cfg = make_config(*TINY_RUN, f"data.cache_dir={cache_dir}")
    return prepare_data(data_settings(cfg))


def untrained_checkpoint(cfg, data, path: Path, step: int = 0) -> Path:
    """A checkpoint of an untrained model (seeded: its output is deterministic) for the tokenizer of `data`."""
    from omegaconf import OmegaConf

    from translate.assembly.trainer import model_from_config
    from translate.training.checkpoint import save_checkpoint

    tok = data.tokenizer
    torch.manual_seed(0)
    model = model_from_config(cfg, len(tok), tok.pad_id)
    save_checkpoint(path, {"config": OmegaConf.to_container(cfg, resolve=True), "tokenizer": tok.model_proto,
                           "model": model.state_dict(), "progress": {"step": step}})
    return path
