"""The composition root of a training run: from the typed settings to the finished objects the Trainer runs on.

Seeding, the process group, the model (and its fit to the data), attention kernels, compiled steps, the translator,
the TensorBoard writer and the report callbacks are made here, once; the Trainer only runs the loop.
"""
from __future__ import annotations

import logging
import random
from pathlib import Path
from typing import Sequence

import torch
from omegaconf import DictConfig
from torch.utils.tensorboard import SummaryWriter

from translate.assembly.builders import Component, build_model
from translate.assembly.fit import check_data_fits
from translate.assembly.settings import RunSettings, section_node, typed
from translate.data.pipeline import PreparedData
from translate.decoding.translator import Translator
from translate.model.attention import MultiHeadAttention
from translate.model.config import ModelConfig
from translate.model.dropout import use_packed_dropout
from translate.model.transformer import Transformer
from translate.training import distributed
from translate.training.batch_plan import BatchPlan
from translate.training.callbacks import CallbackFactory, TrainingCallback
from translate.training.compilation import CompiledSteps
from translate.training.device import Runtime
from translate.training.trainer import Trainer
from translate.training.validator import Validator

log = logging.getLogger(__name__)


def use_flex_attention(model: Transformer, on: bool) -> None:
    for module in model.modules():
        if isinstance(module, MultiHeadAttention):
            module.flex = on


def build_trainer(settings: RunSettings, data: PreparedData, runtime: Runtime, run_dir: Path,
                  callbacks: Sequence[CallbackFactory] = (), writer: bool = True) -> Trainer:
    """settings: the run, typed by validate_config. callbacks: functions (translator, writer) -> a TrainingCallback."""
    train = settings.train
    torch.manual_seed(settings.seed)
    random.seed(settings.seed)
    distributed.init_process_group(runtime)
    tokenizer = data.tokenizer
    model = build_model(settings.model, settings.encoding, settings.ablation, len(tokenizer),
                        tokenizer.pad_id).to(runtime.device)
    check_data_fits(model.encoding, {**data.splits, **data.test_sets}, settings.decode)
    model.encoding.record_training_length(max(data.splits["train"].lengths()[0], default=0))  # into checkpoints
    use_flex_attention(model, train.flex_attention)
    use_packed_dropout(model, runtime.cpu_bf16)
    train_model = distributed.wrap_model(model, runtime)
    plan = BatchPlan.of(train, runtime, data.splits["train"].lengths(), settings.seed)
    compiled = None
    if train.compile:
        graphs = plan.shapes.count(plan.longest) if plan.shapes else 64  # without fixed shapes: one per shape met
        compiled = CompiledSteps(train_model, f"encoding={settings.encoding.name}", train.compile_backend, graphs)
        log.info("train.compile: batches take %d shapes, so at most that many graphs per mode", graphs)
    translator = Translator(model, tokenizer, settings.decode, runtime.device)
    tb = SummaryWriter(str(Path(run_dir) / "tb")) if writer and runtime.is_main else None
    made = [make(translator, tb) for make in callbacks]
    for callback in made:
        if not isinstance(callback, TrainingCallback):
            raise TypeError(f"{callback!r} is no TrainingCallback: it needs on_start, on_validate and on_end(step)")
    validator = Validator(model, data.splits["valid"], translator, train, runtime, tb)
    return Trainer(model, data, train, runtime, run_dir, plan=plan, validator=validator, writer=tb,
                   config_record=settings.record, callbacks=made, train_model=train_model, compiled=compiled)


def model_from_config(cfg: DictConfig, vocab_size: int, pad_id: int) -> Transformer:
    """The model a whole config describes, on the CPU (scripts and tests; runs use build_trainer)."""
    return build_model(typed(cfg, "model", ModelConfig), Component.of(section_node(cfg, "encoding"), "encoding"),
                       Component.of(section_node(cfg, "ablation"), "ablation"), vocab_size, pad_id)
