"""A trained model from its checkpoint, for evaluation and translation: the model its config describes, built by the
same builder as in training (translate.assembly.builders), with the checkpoint's weights and tokenizer."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import torch
from omegaconf import DictConfig, OmegaConf

from translate.assembly.builders import Component, build_model, locate_target, settings_of
from translate.config.errors import ConfigError
from translate.data.tokenizer import Tokenizer
from translate.model.config import model_config_of
from translate.model.transformer import Transformer
from translate.training.checkpoint import (ARCHITECTURE_SECTIONS, MODEL_RECORDS, CheckpointError, load_checkpoint,
                                           one_line)


@dataclass
class LoadedModel:
    model: Transformer
    tokenizer: Tokenizer
    config: DictConfig
    step: int


def at_test_time(encoding: DictConfig, changes: Optional[dict]) -> DictConfig:
    """The checkpoint's encoding config with `changes` (e.g. {"scaling": "yarn"}), each a setting its class lists in
    TEST_TIME_SETTINGS: one that changes no weight, so the trained model takes it without retraining."""
    if not changes:
        return encoding
    cls = locate_target(settings_of(encoding, "encoding"), "encoding")
    allowed = tuple(getattr(cls, "TEST_TIME_SETTINGS", ()))
    for key, value in changes.items():
        if key not in allowed:
            raise ConfigError(f"encoding.{key}={value!r} cannot be changed at test time for encoding "
                              f"{encoding.get('name', cls.__name__)} ({cls.__name__}): allowed at test time: "
                              f"{', '.join(allowed) or 'none of its settings'}")
    changed = encoding.copy()
    for key, value in changes.items():
        OmegaConf.update(changed, key, value, force_add=True)
    return changed


def load_model(path: str | Path, device: str | torch.device = "cpu", encoding_changes: Optional[dict] = None
               ) -> LoadedModel:
    """encoding_changes: test-time settings of the checkpoint's encoding (see `at_test_time`)."""
    path = Path(path)
    state = load_checkpoint(path, MODEL_RECORDS)
    missing = [s for s in ARCHITECTURE_SECTIONS if not isinstance(state["config"].get(s), dict)]
    if missing:
        raise CheckpointError(f"checkpoint {path}: its config lacks the section(s) {missing}; a translate checkpoint's "
                              f"config holds {list(ARCHITECTURE_SECTIONS)}")
    config = OmegaConf.create(state["config"])
    try:
        tokenizer = Tokenizer(state["tokenizer"])
    except (RuntimeError, OSError, TypeError) as error:
        raise CheckpointError(f"checkpoint {path}: its record 'tokenizer' is not a SentencePiece model "
                              f"({one_line(error)})") from None
    encoding = at_test_time(config.encoding, encoding_changes)
    model = build_model(model_config_of(state["config"]["model"]), Component.of(encoding, "encoding"),
                        Component.of(config.ablation, "ablation"), len(tokenizer), tokenizer.pad_id)
    try:
        model.load_state_dict(state["model"])
    except RuntimeError as error:
        raise CheckpointError(f"checkpoint {path}: its weights do not fit the model its config describes "
                              f"({one_line(error)[:300]})") from None
    model.to(device).eval()
    return LoadedModel(model, tokenizer, config, state["progress"]["step"])
