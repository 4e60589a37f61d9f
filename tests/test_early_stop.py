"""train.early_stop_patience: a run stops once valid BLEU has not improved for N validations in a row, max_steps
still caps it, and every validation lands on the learning curve (metrics.json `valid_curve`)."""
from __future__ import annotations

from translate.assembly.settings import validate_config
from translate.training.device import make_runtime
from translate.assembly.trainer import build_trainer

FROZEN = ("train.lr=1e-9", "train.warmup_steps=1", "train.valid_every=2", "train.save_every=2", "train.log_every=2",
          "train.max_steps=40", "train.valid_bleu_limit=20")  # weights barely move: valid BLEU stays where it starts


def test_a_plateau_stops_training_after_patience_validations(tiny_config, tiny_data, tmp_path):
    trainer = build_trainer(validate_config(tiny_config(*FROZEN, "train.early_stop_patience=2")), tiny_data,
                            make_runtime("cpu", "fp32"), tmp_path, writer=False)
    trainer.train()
    # first validation (step 2) sets the best; steps 4 and 6 do not beat it: patience 2 is spent at step 6
    assert trainer.progress.step == 6 and trainer.plateaued()
    curve = trainer.summary()["valid_curve"]
    assert [point[0] for point in curve] == [2, 4, 6]
    assert trainer.summary()["stopped_early"] is True


def test_without_patience_the_step_budget_decides(tiny_config, tiny_data, tmp_path):
    trainer = build_trainer(validate_config(tiny_config(*FROZEN, "train.max_steps=8")), tiny_data,
                            make_runtime("cpu", "fp32"), tmp_path, writer=False)
    trainer.train()
    assert trainer.progress.step == 8 and not trainer.plateaued()
    assert [point[0] for point in trainer.summary()["valid_curve"]] == [2, 4, 6, 8]


def test_patience_survives_a_resume(tiny_config, tiny_data, tmp_path):
    cfg = tiny_config(*FROZEN, "train.early_stop_patience=3", "train.max_steps=4")
    first = build_trainer(validate_config(cfg), tiny_data, make_runtime("cpu", "fp32"), tmp_path, writer=False)
    first.train()  # validations at 2 (best) and 4: one without improvement so far
    assert first.progress.validations_since_best == 1
    cfg = tiny_config(*FROZEN, "train.early_stop_patience=3")
    resumed = build_trainer(validate_config(cfg), tiny_data, make_runtime("cpu", "fp32"), tmp_path, writer=False)
    resumed.resume(tmp_path / "last.pt")
    resumed.train()
    assert resumed.progress.step == 8 and [p[0] for p in resumed.progress.valid_curve] == [2, 4, 6, 8]


def test_the_test_sets_score_the_last_step_unless_best_is_asked(tiny_config, tmp_path):
    from translate.cli.train import run

    stopped = (*FROZEN, "train.early_stop_patience=2", "data.test_limit=20", "report.images=[]",
               "report.bootstrap_samples=0")
    last = run(tiny_config(*stopped), tmp_path / "last")
    assert last["tested_step"] == last["steps"] == 6 and last["checkpoint"].endswith("last.pt")
    assert last["best_valid_step"] == 2  # the pilot's plateau step
    best = run(tiny_config(*stopped, "train.test_checkpoint=best"), tmp_path / "best")
    assert best["tested_step"] == 2 and best["steps"] == 6 and best["checkpoint"].endswith("best.pt")


def test_the_log_names_the_budget_that_stopped_a_run(tiny_config, tiny_data, tmp_path, caplog):
    import logging

    trainer = build_trainer(validate_config(tiny_config(*FROZEN, "train.max_minutes=0.0001")), tiny_data,
                            make_runtime("cpu", "fp32"), tmp_path, writer=False)
    with caplog.at_level(logging.INFO, logger="translate.training.trainer"):
        trainer.train()
    assert trainer.progress.step < 40 and "training stopped: " in caplog.text
    assert "minutes of train.max_minutes=0.0001" in caplog.text


def test_the_default_budget_is_in_steps():
    from conftest import make_config

    train = make_config().train
    assert train.max_minutes is None and train.max_steps == 1500
