"""`python -m translate.train [overrides]`: train, then evaluate on every test set of eval.test_sets.

Examples:
    python -m translate.train encoding=rope model=small
    python -m translate.train data=multi30k train.max_minutes=60
    python -m translate.train hydra.run.dir=runs/mine train.resume=auto      # continue an interrupted run
    python -m translate.train hydra.run.dir=runs/mine train.resume=auto train.max_steps=2000   # train a finished one on

A run that fails before it saved a checkpoint takes its new run folder back.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import time
from functools import partial
from pathlib import Path

import hydra
import torch
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from translate.assembly.compose import in_group_order
from translate.assembly.schemas import register as register_schemas
from translate.assembly.settings import typed, validate_config
from translate.cli.controls_at_test import score_controls
from translate.config import ConfigError
from translate.data.pipeline import cache_dir, prepare_data
from translate.analysis.run.alignment_error import silver_reference
from translate.analysis.run.callback import LengthReport
from translate.analysis.run.report_split import training_lengths, training_lengths_note
from translate.analysis.run.position_probe import position_probe, probe_table
from translate.analysis.run.test_set_reports import score_test_sets
from translate.training.checkpoint import (RESUME_RECORDS, CheckpointError, load_checkpoint, newest_valid_checkpoint,
                                           weights_digest)
from translate.cli.piece import in_piece
from translate.cli.preflight import check_overrides, check_run_dir
from translate.cli.run_folder import remove_made_folders
from translate.io import WriteError, atomic_write_text, remove_partial_writes
from translate.training.device import make_runtime
from translate.training.config import TrainConfig
from translate.training.interruption import Interrupted, resume_command
from translate.assembly.trainer import build_trainer
from translate.training.trainer import Progress, TrainingDiverged, budget_spent
from translate.config.paths import CONF_DIR

log = logging.getLogger("translate.train")
register_schemas()  # before Hydra composes: the YAML groups name their schema


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
    return path, load_checkpoint(path, RESUME_RECORDS)


def run(cfg: DictConfig, run_dir: Path) -> dict:
    """Train and test; returns the test metrics. Shared by the CLI and the tests."""
    started = time.perf_counter()
    settings = validate_config(cfg)
    if settings.train.num_threads:
        torch.set_num_threads(settings.train.num_threads)
    runtime = make_runtime(settings.train.device, settings.train.precision)
    atomic_write_text(run_dir / "config.yaml", OmegaConf.to_yaml(cfg, resolve=True))  # fails early if not writable
    checkpoint = resume_from(settings.train.resume, run_dir)  # before the corpus: a bad checkpoint fails at once
    specs = settings.eval.specs
    data = prepare_data(settings.data, test_sets=specs, probe=bool(settings.report.position_probe))
    silver = silver_reference(settings.report, data, cache_dir(settings.data), specs)  # before training: a missing
    # aligner fails now
    report = partial(LengthReport, settings.report, probe_split=data.splits["test"])
    trainer = build_trainer(settings, data, runtime, run_dir, [report])
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
        trainer.writer, tested_step, training_lengths(settings.data), training_lengths_note(settings.data), silver)
    if settings.report.position_probe:   # what the model knows of position, while the model is here
        metrics["position_probe"] = position_probe(
            trainer.model, trainer.translator.tokenizer, data.probe, settings.report.position_probe,
            trainer.translator.settings.batch_tokens, settings.report.bootstrap_samples, settings.report.bootstrap_seed)
        if runtime.is_main:
            atomic_write_text(run_dir / "position_probe.md", probe_table(metrics["position_probe"]))
    metrics.update(corpus=settings.data.name, encoding=settings.encoding.name,
                   encoding_kind=trainer.model.encoding.kind(), ablation=settings.ablation.name,
                   model=settings.model.name, corpus_dropped=data.corpus_dropped, **trainer.summary(),
                   checkpoint=str(tested), tested_step=tested_step,
                   weights_sha256=weights_digest(trainer.model.state_dict()),
                   run_minutes=round((time.perf_counter() - started) / 60, 2))
    if runtime.is_main:
        atomic_write_text(run_dir / "metrics.json", json.dumps(metrics, indent=2, ensure_ascii=False) + "\n")
        if trainer.writer:
            trainer.writer.close()
        score_controls(settings, run_dir, tested)  # the test-time controls, while the checkpoint is here
    return metrics


def nothing_left(cfg: DictConfig, run_dir: Path) -> str | None:
    """For a finished run (its metrics.json exists): why this command has nothing to train there, or None when a
    larger budget (train.max_steps, max_epochs, max_minutes, early_stop_patience) lets it continue from its newest
    checkpoint. A rerun of a sweep with the same budget so skips its finished jobs."""
    found = newest_valid_checkpoint(run_dir)
    if found is None:
        return "no checkpoint is left in the folder to continue from"
    path, state = found
    spent = budget_spent(typed(cfg, "train", TrainConfig), Progress(**state["progress"]))
    if spent is None:
        log.info("continuing the finished run from %s (step %d): this command's budget is larger", path,
                 state["progress"]["step"])
    return spent


def is_new(run_dir: Path, log_file: str) -> bool:
    """The run folder holds only what Hydra has just written for this command: it was made for this run."""
    return {p.name for p in run_dir.iterdir()} <= {".hydra", log_file} if run_dir.is_dir() else False


def take_back(run_dir: Path, log_file: str) -> None:
    """Remove a new run folder after a failure before any checkpoint was saved: nothing in it is worth keeping.
    Only the files Hydra and this command write are deleted; a folder holding anything else stays."""
    if any(run_dir.glob("*.pt")) or (run_dir / "metrics.json").exists():
        return
    for name in (".hydra", "tb"):
        shutil.rmtree(run_dir / name, ignore_errors=True)
    for name in (log_file, "config.yaml"):
        (run_dir / name).unlink(missing_ok=True)
    remove_partial_writes(run_dir)
    try:
        run_dir.rmdir()
    except OSError:  # something else is in it: keep it
        return
    remove_made_folders()  # runs/<date>/ and runs/ where this command made them and they are empty


def log_to_file(level: int, message: str) -> None:
    """Record `message` in the run's log file only: the console gets it once, from the print beside this call."""
    record = log.makeRecord(log.name, level, __file__, 0, "%s", (message,), None)
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.FileHandler):
            handler.handle(record)


@hydra.main(config_path=CONF_DIR, config_name="config", version_base="1.3")
def main(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    run_dir = Path(hydra_cfg.runtime.output_dir)
    log_file = f"{hydra_cfg.job.name}.log"
    new_folder, finished = is_new(run_dir, log_file), False
    try:
        train_and_test(cfg, hydra_cfg, run_dir)
        finished = True
    finally:
        if new_folder and not finished:
            take_back(run_dir, log_file)


def train_and_test(cfg: DictConfig, hydra_cfg, run_dir: Path) -> None:
    """main's body: every error is printed once, as `error: ...`, and exits with status 2."""
    resume = resume_command(hydra_cfg.overrides.task, Path(hydra_cfg.run.dir))
    try:
        if not in_piece(cfg.get("piece"), OmegaConf.select(hydra_cfg, "job.num", throw_on_missing=False)):
            print(f"not in piece={cfg.piece}: {os.path.relpath(run_dir)} skipped")
            return
        if cfg.train.resume == "auto" and (run_dir / "metrics.json").exists():  # finished: a rerun, or train on
            reason = nothing_left(cfg, run_dir)
            if reason is not None:
                tested = json.loads((run_dir / "metrics.json").read_text())["checkpoint"]
                score_controls(validate_config(cfg), run_dir, run_dir / Path(tested).name)  # any left undone
                print(f"already finished: {run_dir / 'metrics.json'} ({reason}); nothing to train. Raise that budget "
                      f"to train on, or delete metrics.json to run this job again")
                return
        metrics = run(cfg, run_dir)
    except Interrupted as stop:
        log_to_file(logging.WARNING, str(stop))
        print(f"interrupted: training stopped at step {stop.step}; checkpoint saved to {stop.checkpoint}.\n"
              f"Resume with:\n  {resume}", file=sys.stderr)
        sys.exit(stop.exit_code)
    except KeyboardInterrupt:
        print("interrupted: stopped at once, without saving a checkpoint." + (f" Resume with:\n  {resume}" if (
            run_dir / "last.pt").exists() else ""), file=sys.stderr)
        sys.exit(130)
    except (ConfigError, CheckpointError, WriteError, TrainingDiverged, ValueError, OSError) as error:
        log_to_file(logging.ERROR, str(error))
        print(f"error: {error}", file=sys.stderr)
        if isinstance(error, (WriteError, TrainingDiverged)) and (run_dir / "last.pt").exists():
            print(f"Once fixed, resume with:\n  {resume}", file=sys.stderr)
        sys.exit(2)
    print(outcome_text(metrics, os.path.relpath(run_dir)))


def outcome_text(metrics: dict, run_dir: str) -> str:
    """What a finished run says: every test set's scores, then where the run is and what to do with it next."""
    lines = [f"test BLEU and chrF of the model at step {metrics.get('tested_step', metrics['steps'])} "
             f"({metrics['steps']} steps trained, {metrics['target_tokens_per_s']:,.0f} target tokens/s):"]
    for name, scores in (metrics.get("test_sets") or {metrics.get("test_set", "test"): metrics}).items():
        lines.append(f"  {name}: BLEU {scores['bleu']:.2f}  chrF {scores['chrf']:.2f}  ({scores['sentences']} "
                     f"sentences; by length: {run_dir}/by_length{'' if name == metrics.get('test_set') else '.' + name}.md)")
    checkpoint = f"{run_dir}/{os.path.basename(str(metrics.get('checkpoint', 'last.pt')))}"
    lines += [f"run folder: {run_dir}",
              f"score other files: python -m translate.evaluate checkpoint={checkpoint} "
              f"'eval.test_sets=[{{name: mine, src: /path/to/source.fr, ref: /path/to/reference.en}}]'",
              f"attention maps and curves: tensorboard --logdir {run_dir}/tb"]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.argv[1:] = in_group_order(sys.argv[1:])  # +debug=tiny applies last, wherever it stands
    check_overrides(CONF_DIR, "config", sys.argv[1:])  # first: a refused command leaves no run folder
    check_run_dir(sys.argv[1:])
    main()
