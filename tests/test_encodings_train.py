"""Every file in conf/encoding trains: a few dozen steps of the tiny model on real Tatoeba pairs lower the held-out
loss. The folder is globbed, so a new encoding is tested the moment its config exists."""
from __future__ import annotations

from pathlib import Path

import pytest

from translate.assembly.settings import validate_config
from translate.training.device import make_runtime
from translate.assembly.trainer import build_trainer

ENCODINGS = sorted(path.stem for path in (Path(__file__).resolve().parents[1] / "conf" / "encoding").glob("*.yaml"))
STEPS = 30



def test_the_encoding_folder_is_found():
    assert {"sinusoidal", "none", "rope", "t5", "shaw"} <= set(ENCODINGS)


@pytest.mark.slow
@pytest.mark.parametrize("name", ENCODINGS)
def test_training_lowers_the_held_out_loss(name, tiny_config, tiny_data, tmp_path):
    cfg = tiny_config(f"encoding={name}", "model.dropout=0.0")
    trainer = build_trainer(validate_config(cfg), tiny_data, make_runtime("cpu", "fp32"), tmp_path)
    before = trainer.validator.loss()["loss"]
    batches = trainer.epoch_batches(0)
    losses = [trainer.train_step(batches[i % len(batches)]) for i in range(STEPS)]
    assert all(stats is not None for stats in losses), "a step had a non-finite loss or gradient"
    after = trainer.validator.loss()["loss"]
    assert after < before - 1.0, f"{name}: held-out loss {before:.3f} -> {after:.3f} after {STEPS} steps"
