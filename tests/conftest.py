"""Shared fixtures: composed configs and a small real Tatoeba slice (cached per test session); the longest test files
run first."""
from __future__ import annotations

import json
import os
from collections import defaultdict
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


# -- the order of the files ---------------------------------------------------------------------------------------------
# xdist (--dist loadfile --no-loadscope-reorder, see the Makefile) hands whole files to the workers in collection
# order. Started last, a file of several minutes would end the run on one worker while the other waits; started
# first, it runs while the other worker takes the short files. `make test-durations` measures the files again.
DURATIONS = Path(__file__).with_name("durations.json")  # test file -> seconds of its tests (setup included)


def longest_files_first(nodeids: list[str], seconds: dict[str, float]) -> list[str]:
    """The node ids with the files of most seconds first (unmeasured files count 0); a file's tests keep their order
    and stay together."""
    return sorted(nodeids, key=longest_file_first_key(seconds))


def longest_file_first_key(seconds: dict[str, float]):
    """The sort key of that order (sorting is stable, so ties keep the collection order)."""
    return lambda nodeid: -seconds.get(file_of(nodeid), 0.0)


def file_of(nodeid: str) -> str:
    return nodeid.split("::")[0]


def committed_durations() -> dict[str, float]:
    """Seconds per test file as last measured (empty before the first `make test-durations`)."""
    return json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}


def pytest_addoption(parser):
    parser.addoption("--store-durations", action="store_true",
                     help=f"write each test file's seconds into {DURATIONS.name} (the files run keep their others)")


def pytest_collection_modifyitems(config, items):
    key = longest_file_first_key(committed_durations())
    items.sort(key=lambda item: key(item.nodeid))  # in place: items with the same node id stay


_measured: dict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report):
    _measured[file_of(report.nodeid)] += report.duration  # setup, call and teardown, from whichever worker


def pytest_sessionfinish(session):
    if not session.config.getoption("store_durations") or hasattr(session.config, "workerinput"):
        return  # only the controller (or a run without xdist) has every file's reports
    seconds = committed_durations()
    seconds.update({name: round(total, 1) for name, total in _measured.items()})
    temporary = DURATIONS.with_suffix(".tmp")
    temporary.write_text(json.dumps(dict(sorted(seconds.items())), indent=1) + "\n")
    temporary.replace(DURATIONS)


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
