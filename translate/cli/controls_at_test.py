"""A trained model evaluated again with an ablation applied at test time: the run's own controls (eval.at_test,
translate/assembly/controls_at_test.py) at its end, and `translate.study ablate-at-test` on a sweep's finished jobs.
Each evaluation is written into a folder of its own beside the model's, decoded and bucketed as the model's run was,
so that a report pairs the two."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional, Sequence

from omegaconf import DictConfig, OmegaConf

from translate.assembly.compose import compose
from translate.assembly.controls_at_test import control_folder
from translate.assembly.settings import RunSettings
from translate.cli.evaluate import evaluate

log = logging.getLogger("translate.train")


def evaluate_at_test(checkpoint: Path, run_config: DictConfig, out: Path, overrides: Sequence[str] = (),
                     ablation: Optional[dict] = None) -> None:
    """translate.evaluate of `checkpoint` into `out` with `overrides` (e.g. ablation=zero_dims, device=cpu), or with
    the conf/ablation node `ablation`; decoding and the length report are the run's (`run_config`)."""
    cfg = compose(f"checkpoint={checkpoint}", f"output_dir={out}", *overrides, config_name="evaluate")
    if ablation is not None:
        cfg.ablation = OmegaConf.create(ablation)
    cfg.decode, cfg.report = run_config.decode, run_config.report  # a paired comparison: decoded and bucketed as
    evaluate(cfg)                                                     # the model's own run was


def score_controls(settings: RunSettings, run_dir: Path, checkpoint: Path) -> list[Path]:
    """The run's controls not scored yet, each evaluated from `checkpoint` (the one the run's test scores came from)
    into its folder beside the run; returns the folders written. A rerun of a finished run scores what is missing."""
    if settings.eval.at_test and not settings.controls:
        log.info("eval.at_test: no test-time control of this model: it was trained with ablation %s, and a control "
                 "is of a model trained without one", settings.ablation.name)
    written = []
    for control in settings.controls:
        out = control_folder(run_dir, settings.ablation.name or "none", control.label)
        if (out / "metrics.json").exists():
            continue
        if not checkpoint.exists():  # a finished run whose checkpoints were removed: nothing to score it from
            log.warning("%s: %s is not scored: %s, the checkpoint the run was tested on, is gone", control.key,
                        out.name, checkpoint)
            continue
        log.info("%s: the model of %s scored again with %s applied at test time (%s), into %s", control.key,
                 checkpoint.name, control.ablation["name"], ", ".join(
                     f"{k}={v}" for k, v in control.ablation.items() if k not in ("_target_", "name")), out)
        evaluate_at_test(checkpoint, OmegaConf.create(settings.record), out, [f"device={settings.train.device}"],
                         control.ablation)
        written.append(out)
    return written
