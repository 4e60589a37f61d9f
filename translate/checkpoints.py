"""Load a trained model (and its tokenizer and config) from a checkpoint, for evaluation and translation."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from omegaconf import DictConfig, OmegaConf

from translate.data.tokenizer import Tokenizer
from translate.model.builder import build_model
from translate.model.transformer import Transformer
from translate.training.checkpoint import load_checkpoint


@dataclass
class LoadedModel:
    model: Transformer
    tokenizer: Tokenizer
    config: DictConfig
    step: int


def load_model(path: str | Path, device: str | torch.device = "cpu") -> LoadedModel:
    state = load_checkpoint(Path(path))
    config = OmegaConf.create(state["config"])
    tokenizer = Tokenizer(state["tokenizer"])
    model = build_model(config, len(tokenizer), tokenizer.pad_id)
    model.load_state_dict(state["model"])
    model.to(device).eval()
    return LoadedModel(model, tokenizer, config, state["progress"]["step"])
