"""The composition root of a training run: from the typed settings to the finished objects the Trainer runs on.

Seeding, the process group, the model (and its fit to the data), attention kernels, compiled steps, the translator,
the TensorBoard writer and the report callbacks are made here, once; the Trainer only runs the loop.
"""
from __future__ import annotations

import logging
import random
from pathlib import Path
from typing import Optional, Sequence

import torch
from omegaconf import DictConfig
from torch.utils.tensorboard import SummaryWriter

from translate.assembly.components import Component, build_model
from translate.assembly.fit import check_data_fits
from translate.assembly.settings import RunSettings, section_node, typed
from translate.data.batching import FixedShapes
from translate.data.pipeline import PreparedData
from translate.decoding.translator import Translator
from translate.model.attention import MultiHeadAttention
from translate.model.config import ModelConfig
from translate.model.transformer import Transformer
from translate.training import distributed
from translate.training.compilation import CompiledSteps
from translate.training.config import TrainConfig
from translate.training.device import Runtime
from translate.training.trainer import Trainer

log = logging.getLogger(__name__)


def fixed_shapes(train: TrainConfig, runtime: Runtime) -> Optional[FixedShapes]:
    """Batch shapes for a compiled model (train.pad_shapes: auto = with train.compile), else None."""
    if not train.fixed_shapes_wanted():
        return None
    return FixedShapes(train.shape_multiple, distributed.rank_budget(train.max_tokens, runtime, "train.max_tokens"),
                       distributed.rank_budget(train.max_sentences, runtime, "train.max_sentences"))


def use_flex_attention(model: Transformer, on: bool) -> None:
    for module in model.modules():
        if isinstance(module, MultiHeadAttention):
            module.flex = on


def build_trainer(settings: RunSettings, data: PreparedData, runtime: Runtime, run_dir: Path,
                  callbacks: Sequence = (), writer: bool = True) -> Trainer:
    """settings: the run, typed by validate_config. callbacks: objects with on_start / on_validate / on_end(step), or
    functions (translator, writer) -> such an object."""
    train = settings.train
    torch.manual_seed(settings.seed)
    random.seed(settings.seed)
    distributed.init_process_group(runtime)
    tokenizer = data.tokenizer
    model = build_model(settings.model, settings.encoding, settings.ablation, len(tokenizer),
                        tokenizer.pad_id).to(runtime.device)
    check_data_fits(model.encoding, {**data.splits, **data.test_sets}, settings.decode)
    use_flex_attention(model, train.flex_attention)
    train_model = distributed.wrap_model(model, runtime)
    shapes = fixed_shapes(train, runtime)
    compiled = None
    if train.compile:
        longest = max(max(lens) for lens in data.splits["train"].lengths())
        graphs = shapes.count(longest) if shapes else 64  # without fixed shapes: one graph per batch shape met
        compiled = CompiledSteps(train_model, f"encoding={settings.encoding.name}", train.compile_backend, graphs)
        log.info("train.compile: batches take %d shapes, so at most that many graphs per mode", graphs)
    translator = Translator(model, tokenizer, settings.decode, runtime.device)
    tb = SummaryWriter(str(Path(run_dir) / "tb")) if writer and runtime.is_main else None
    made = [c(translator, tb) if callable(c) and not hasattr(c, "on_validate") else c for c in callbacks]
    return Trainer(model, data, train, runtime, run_dir, seed=settings.seed, translator=translator, writer=tb,
                   config_record=settings.record, callbacks=made, train_model=train_model,
                   shapes=shapes, compiled=compiled)


def model_from_config(cfg: DictConfig, vocab_size: int, pad_id: int) -> Transformer:
    """The model a whole config describes, on the CPU (scripts and tests; runs use build_trainer)."""
    return build_model(typed(cfg, "model", ModelConfig), Component.of(section_node(cfg, "encoding"), "encoding"),
                       Component.of(section_node(cfg, "ablation"), "ablation"), vocab_size, pad_id)
