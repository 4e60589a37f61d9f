"""`python -m translate.train [overrides]`: train, then evaluate on every test set of eval.test_sets.

Examples:
    python -m translate.train encoding=rope model=small
    python -m translate.train data=multi30k train.max_minutes=60
    python -m translate.train hydra.run.dir=runs/mine train.resume=auto      # continue an interrupted run
"""
from __future__ import annotations

import json
import logging
import os
import sys
from functools import partial
from pathlib import Path

import hydra
import torch
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from translate.config import ConfigError, validate_config
from translate.data.pipeline import prepare_data
from translate.analysis.run.callback import LengthReport
from translate.analysis.run.report_split import training_lengths, training_lengths_note
from translate.analysis.run.test_set_reports import score_test_sets
from translate.training.checkpoint import CheckpointError, load_checkpoint, newest_valid_checkpoint
from translate.cli.piece import in_piece
from translate.cli.preflight import check_overrides, check_run_dir
from translate.io import WriteError, atomic_write_text, remove_partial_writes
from translate.training.device import make_runtime
from translate.training.interruption import Interrupted, resume_command
from translate.training.setup import build_trainer
from translate.training.trainer import TrainingDiverged

log = logging.getLogger("translate.train")
CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")


def resume_from(setting: str | None, run_dir: Path) -> tuple[Path, dict] | None:
    """(checkpoint, its state) to continue from: with `auto`, the newest valid one in the run folder (or None)."""
    if not setting:
        return None
    if setting == "auto":
        remove_partial_writes(run_dir)
        found = newest_valid_checkpoint(run_dir)
        if found is None:
            log.info("train.resume=auto: no checkpoint in %s yet; starting from scratch", run_dir)
        return found
    path = Path(setting)
    if not path.exists():
        raise ConfigError(f"train.resume={setting!r}: no such checkpoint; allowed: null, auto or an existing path")
    return path, load_checkpoint(path)


def run(cfg: DictConfig, run_dir: Path) -> dict:
    """Train and test; returns the test metrics. Shared by the CLI and the tests."""
    settings = validate_config(cfg)
    if settings.train.num_threads:
        torch.set_num_threads(settings.train.num_threads)
    runtime = make_runtime(settings.train.device, settings.train.precision)
    atomic_write_text(run_dir / "config.yaml", OmegaConf.to_yaml(cfg, resolve=True))  # fails early if not writable
    specs = settings.eval.specs
    data = prepare_data(cfg.data, test_sets=specs)
    report = partial(LengthReport, settings.report, probe_split=data.splits["test"])
    trainer = build_trainer(cfg, data, runtime, run_dir, [report], settings)
    checkpoint = resume_from(settings.train.resume, run_dir)
    if checkpoint:
        trainer.resume(*checkpoint)
    trainer.train()
    tested, tested_step = run_dir / "last.pt", trainer.progress.step
    if settings.train.test_checkpoint == "best" and (run_dir / "best.pt").exists():
        tested = run_dir / "best.pt"
        state = load_checkpoint(tested)
        trainer.model.load_state_dict(state["model"])
        tested_step = state["progress"]["step"]
    metrics = score_test_sets(  # files, TensorBoard scalars and figures: on the main rank only
        settings.report, trainer.translator, specs, data.test_sets, run_dir if runtime.is_main else None,
        trainer.writer, tested_step, training_lengths(cfg.data), training_lengths_note(cfg.data))
    metrics.update(corpus=cfg.data.name, encoding=cfg.encoding.name, ablation=cfg.ablation.name,
                   model=settings.model.name, **trainer.summary(),
                   checkpoint=str(tested), tested_step=tested_step)
    if runtime.is_main:
        atomic_write_text(run_dir / "metrics.json", json.dumps(metrics, indent=2, ensure_ascii=False) + "\n")
        if trainer.writer:
            trainer.writer.close()
    return metrics


@hydra.main(config_path=CONF_DIR, config_name="config", version_base="1.3")
def main(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    run_dir = Path(hydra_cfg.runtime.output_dir)
    resume = resume_command(hydra_cfg.overrides.task, Path(hydra_cfg.run.dir))
    try:
        if not in_piece(cfg.get("piece"), OmegaConf.select(hydra_cfg, "job.num", throw_on_missing=False)):
            print(f"not in piece={cfg.piece}: {os.path.relpath(run_dir)} skipped")
            return
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    if cfg.train.resume == "auto" and (run_dir / "metrics.json").exists():  # a finished job of a rerun sweep
        print(f"already finished: {run_dir / 'metrics.json'} (delete it to run this job again)")
        return
    try:
        metrics = run(cfg, run_dir)
    except Interrupted as stop:
        log.warning("%s", stop)
        print(f"interrupted: training stopped at step {stop.step}; checkpoint saved to {stop.checkpoint}.\n"
              f"Resume with:\n  {resume}", file=sys.stderr)
        sys.exit(stop.exit_code)
    except KeyboardInterrupt:
        print("interrupted: stopped at once, without saving a checkpoint." + (f" Resume with:\n  {resume}" if (
            run_dir / "last.pt").exists() else ""), file=sys.stderr)
        sys.exit(130)
    except (ConfigError, CheckpointError, WriteError, TrainingDiverged, ValueError, OSError) as error:
        log.error("%s", error)
        print(f"error: {error}", file=sys.stderr)
        if isinstance(error, (WriteError, TrainingDiverged)) and (run_dir / "last.pt").exists():
            print(f"Once fixed, resume with:\n  {resume}", file=sys.stderr)
        sys.exit(2)
    print(f"test BLEU {metrics['bleu']:.2f}  chrF {metrics['chrf']:.2f}  ({metrics['sentences']} sentences, "
          f"{metrics['steps']} steps, {metrics['target_tokens_per_s']:.0f} target tokens/s)")
    print(f"run folder: {os.path.relpath(run_dir)}")


if __name__ == "__main__":
    check_run_dir(sys.argv[1:])
    check_overrides(CONF_DIR, "config", sys.argv[1:])
    main()
