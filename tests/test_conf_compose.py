"""Every file in conf/ composes with the main config and what it names instantiates."""
from __future__ import annotations

from pathlib import Path

import pytest
from hydra.errors import ConfigCompositionException
from hydra.utils import instantiate

from translate.assembly.builders import Component
from translate.assembly.compose import in_group_order
from conftest import CONF_DIR, make_config
from translate.assembly.settings import validate_config
from translate.config import ConfigError
from translate.encodings.base import PositionalEncoding
from translate.assembly.builders import build_encoding
from translate.assembly.trainer import model_from_config

GROUPS = ("data", "model", "encoding", "ablation", "train", "decode", "report", "eval")


def options(group: str) -> list[str]:
    return sorted(p.stem for p in (Path(CONF_DIR) / group).glob("*.yaml"))


CASES = [(group, option) for group in GROUPS for option in options(group)]
# Ablations that only apply to some settings: zero_dims defaults to the source notes' dims >= 400 (512-wide model);
# freeze needs a learned table.
COMPANIONS = {("ablation", "zero_dims"): ["model=base"], ("ablation", "freeze"): ["model=tiny", "encoding=learned"]}


@pytest.mark.parametrize("group,option", CASES, ids=[f"{g}={o}" for g, o in CASES])
def test_every_option_composes_validates_and_builds(group, option):
    default = [] if group == "model" else ["model=tiny"]
    overrides = [f"{group}={option}"] + COMPANIONS.get((group, option), default)
    cfg = make_config(*overrides)
    validate_config(cfg)
    model_obj = model_from_config(cfg, vocab_size=64, pad_id=0)
    assert isinstance(model_obj.encoding, PositionalEncoding)
    if group == "data":
        corpus = instantiate(cfg.data.corpus)
        assert callable(corpus.load)


@pytest.mark.parametrize("option", options("debug"))
def test_every_debug_run_composes_validates_and_builds(option):
    """conf/debug/*.yaml are added with +debug=...; a setting after them on the command line still wins."""
    cfg = make_config(f"+debug={option}", "train.max_steps=3")
    settings = validate_config(cfg)
    assert settings.train.max_steps == 3
    assert isinstance(model_from_config(cfg, vocab_size=64, pad_id=0).encoding, PositionalEncoding)


@pytest.mark.parametrize("sweep", ["encodings", "seeds"])
def test_the_debug_run_wins_over_a_sweep_in_either_order(sweep):
    """+debug=tiny with +sweep=...: the debug run's budget and model whichever comes first; a setting still wins."""
    # run_name fixed: its default is the clock's time, which may tick between the two compositions
    first, second = (make_config(*order, "run_name=fixed") for order in (["+debug=tiny", f"+sweep={sweep}"],
                                                                         [f"+sweep={sweep}", "+debug=tiny"]))
    assert first == second
    assert (first.train.max_steps, first.model.name) == (20, "tiny")
    assert make_config(f"+sweep={sweep}", "train.max_steps=7", "+debug=tiny").train.max_steps == 7


def test_the_command_line_keeps_its_flags_where_they_were():
    """The train command reorders its arguments the same way; a flag's value stays beside the flag."""
    assert in_group_order(["+debug=tiny", "+sweep=encodings", "--cfg", "job"]) == [
        "+sweep=encodings", "+debug=tiny", "--cfg", "job"]
    assert in_group_order(["-m", "+debug=tiny", "model.d_model=32"]) == ["-m", "+debug=tiny", "model.d_model=32"]
    assert in_group_order(["+debug=tiny", "--cfg", "job"]) == ["+debug=tiny", "--cfg", "job"]


def test_every_encoding_has_a_name_matching_its_file():
    for option in options("encoding"):
        assert make_config(f"encoding={option}").encoding.name == option


def test_evaluate_config_composes():
    cfg = make_config("checkpoint=/x/best.pt", "decode=beam", config_name="evaluate")
    assert cfg.decode.beam_size == 4 and cfg.test_sets is None


def test_the_test_sets_follow_the_corpus():
    assert [s.name for s in make_config().eval.test_sets] == ["test", "multi30k_flickr2016", "long_test"]
    assert [s.name for s in make_config("data=multi30k").eval.test_sets] == ["test"]


def test_an_unknown_option_lists_the_allowed_ones():
    with pytest.raises(ConfigCompositionException) as error:
        make_config("encoding=no_such_encoding")
    assert "sinusoidal" in str(error.value) and "rope" in str(error.value)


@pytest.mark.parametrize("override,key", [
    ("model.n_heads=3", "model.n_heads=3"),
    ("model.dropout=1.5", "model.dropout=1.5"),
    ("model.norm_position=middle", "model.norm_position='middle'"),
    ("train.lr=-1", "train.lr=-1"),
    ("train.max_tokens=0", "train.max_tokens=0"),
    ("decode.beam_size=0", "decode.beam_size=0"),
    ("train.device=tpu", "train.device='tpu'"),
    ("data.tokenizer.model_type=word", "data.tokenizer.model_type='word'"),
])
def test_bad_values_name_the_key_the_value_and_what_is_allowed(override, key):
    with pytest.raises(ConfigError) as error:
        validate_config(make_config(override))
    assert key in str(error.value) and ("allowed" in str(error.value) or "expected" in str(error.value))


def test_a_user_encoding_class_outside_the_package_plugs_in(tmp_path, monkeypatch):
    (tmp_path / "my_pe.py").write_text(
        "import torch\n"
        "from translate.encodings.base import AbsoluteEncoding\n"
        "class Ramp(AbsoluteEncoding):\n"
        "    def compute_table(self, positions):\n"
        "        return positions.float()[..., None].expand(*positions.shape, self.d_model) / 100\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    # start from encoding=none, whose only settings are _target_ and name
    cfg = make_config("model=tiny", "encoding=none", "+encoding.extra=1", "encoding._target_=my_pe.Ramp")
    with pytest.raises(ValueError, match="extra"):  # an unknown hyperparameter is refused by the class
        build_encoding(Component.of(cfg.encoding, "encoding"), Component.of(cfg.ablation, "ablation"), 64, 4)
    cfg = make_config("model=tiny", "encoding=none", "encoding._target_=my_pe.Ramp", "encoding.name=ramp")
    model = model_from_config(cfg, vocab_size=64, pad_id=0)
    import torch
    assert type(model.encoding).__name__ == "Ramp"
    assert torch.allclose(model.encoding.table(torch.arange(3))[:, 0], torch.tensor([0.0, 0.01, 0.02]))
