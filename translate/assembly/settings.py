"""Start-up validation of a whole run: every section typed and checked (translate.config.fields), then the corpus,
encoding and ablation named by `_target_` built by their builders (translate.assembly.builders), so their own checks
run before data preparation too. An error names the key, the value and what is allowed."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from translate.analysis.run.settings import ReportSettings
from translate.assembly.builders import Component, build_encoding, check_corpus
from translate.assembly.controls_at_test import ControlAtTest, controls_at_test
from translate.config.errors import ConfigError, from_omegaconf, not_allowed
from translate.data.config import DataConfig
from translate.data.eval_config import EvalConfig
from translate.decoding.settings import DecodeSettings
from translate.model.config import ModelConfig
from translate.training.config import TrainConfig


@dataclass
class RunSettings:
    """A run's typed sections. Encoding and ablation are components: each names its class with `_target_`, and the
    class checks its own settings. `record`: the whole config resolved, as a checkpoint keeps it. `controls`: the
    test-time controls of eval.at_test, scored at the end of the run (none for a run trained with an ablation)."""

    seed: int
    data: DataConfig
    model: ModelConfig
    train: TrainConfig
    decode: DecodeSettings
    report: ReportSettings
    eval: EvalConfig
    encoding: Component
    ablation: Component
    record: dict = field(repr=False)
    controls: list[ControlAtTest] = field(default_factory=list)


def typed(cfg: DictConfig, section: str, cls: type) -> Any:
    """cfg[section] as a `cls` object: OmegaConf checks types, missing values and unknown keys against the dataclass
    (even where the YAML forgot its schema), the dataclass checks the allowed values."""
    node = section_node(cfg, section)
    schema = OmegaConf.structured(cls)
    try:
        merged = OmegaConf.merge(schema, node)
        # a ??? in the YAML or on the command line: merging keeps the dataclass default instead, so look at both
        missing = sorted(OmegaConf.missing_keys(node) | OmegaConf.missing_keys(merged))
        if missing:
            key = missing[0] if missing[0].startswith(section + ".") else f"{section}.{missing[0]}"
            raise ConfigError(f"{key} is not set (???); give it a value")
        return OmegaConf.to_object(merged)
    except OmegaConfBaseException as error:
        if not getattr(error, "full_key", None):  # a merge error names no key: find the key that fails alone
            error = first_failing_key(schema, node) or error
        raise from_omegaconf(error, section) from None


def first_failing_key(schema: DictConfig, node: DictConfig) -> Optional[OmegaConfBaseException]:
    for key in node:
        try:
            OmegaConf.merge(schema, {key: node._get_node(key)})
        except OmegaConfBaseException as error:
            if not getattr(error, "full_key", None):
                error.full_key = str(key)
            return error
    return None


def section_node(cfg: DictConfig, section: str) -> DictConfig:
    try:
        node = cfg.get(section) if isinstance(cfg, DictConfig) else None
    except OmegaConfBaseException as error:
        raise from_omegaconf(error, section) from None
    if node is None:
        raise ConfigError(f"{section} is missing from the config; add `- {section}: ...` to the defaults list")
    if not isinstance(node, DictConfig):
        raise not_allowed(section, node, "a config section")
    return node


def validate_config(cfg: DictConfig) -> RunSettings:
    """Every section the trainer reads, typed and checked; raises ConfigError naming the first bad key."""
    try:
        seed = cfg.get("seed")
    except OmegaConfBaseException as error:  # a ${...} that does not resolve
        raise from_omegaconf(error, "seed") from None
    if not (isinstance(seed, int) and not isinstance(seed, bool)):
        raise not_allowed("seed", seed, "an integer")
    data, model = typed(cfg, "data", DataConfig), typed(cfg, "model", ModelConfig)
    train, decode = typed(cfg, "train", TrainConfig), typed(cfg, "decode", DecodeSettings)
    report, evaluation = typed(cfg, "report", ReportSettings), typed(cfg, "eval", EvalConfig)
    check_corpus(cfg.data)
    encoding = Component.of(section_node(cfg, "encoding"), "encoding")
    ablation = Component.of(section_node(cfg, "ablation"), "ablation")
    build_encoding(encoding, ablation, model.d_model, model.n_heads)  # its own checks, before any data is read
    controls = controls_at_test(evaluation.at_test)
    if ablation.name not in (None, "none"):  # a control is of the model trained without an ablation
        controls = []
    for control in controls:  # each applies to this model: checked before any data is read, as the run's own
        build_encoding(encoding, Component(control.key, control.ablation), model.d_model, model.n_heads)
    return RunSettings(seed, data, model, train, decode, report, evaluation, encoding, ablation, record_of(cfg),
                       controls)


def record_of(cfg: DictConfig) -> dict:
    """The run's config resolved, as config.yaml and checkpoints keep it; without the `hydra` node that a config
    composed as a launcher does (return_hydra_config) carries: it is not part of the run."""
    try:
        return OmegaConf.to_container(OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"]), resolve=True)
    except OmegaConfBaseException as error:  # a ${...} that does not resolve: name the key that holds it
        raise from_omegaconf(error) from None


def data_settings(cfg: DictConfig) -> DataConfig:
    """The `data` section typed, for preparing data without a whole run (scripts and tests)."""
    return typed(cfg, "data", DataConfig)
