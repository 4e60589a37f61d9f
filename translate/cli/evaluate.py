"""`python -m translate.evaluate checkpoint=PATH [test_sets=[...]]`: translate test sets with a checkpoint, score them.

The test sets are the checkpoint's eval.test_sets unless `test_sets` is given (same entries; see
translate/data/test_sets.py). Writes metrics.json (laid out as in translate/analysis/run/test_set_reports.py), a
<name>.hyp.txt per test set, by_length tables, a TensorBoard folder tb/ of its own (scores by length, the BLEU
curve, attention maps, encoding pictures) and config.yaml: what the evaluation is, as a sweep report reads a job.
An evaluation written into a sweep folder beside the jobs is reported with them; `ablation=zero_dims` there is the
control "dims >= 400 zeroed at test time" of seed_repro (scripts/ablate_at_test.py).
"""
from __future__ import annotations

import copy
import json
import logging
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig, OmegaConf
from torch.utils.tensorboard import SummaryWriter

from translate.ablations import ablates, apply_at_test_time
from translate.training.checkpoint import load_model
from translate.config import ConfigError
from translate.config.validate import check_data_fits, typed
from translate.data.pipeline import prepare_data
from translate.decoding.translator import DecodeSettings, Translator
from translate.data.test_sets import TestSetSpec, parse_test_sets
from translate.analysis.run.report_split import log_pictures, probes_for, training_lengths, training_lengths_note
from translate.analysis.run.settings import ReportSettings
from translate.analysis.run.test_set_reports import score_test_sets
from translate.training.checkpoint import CheckpointError
from translate.cli.preflight import check_overrides
from translate.io import WriteError, atomic_write_text
from translate.training.device import pick_device

log = logging.getLogger("translate.evaluate")
CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")


def test_set_specs(cfg: DictConfig, run_config: DictConfig) -> list[TestSetSpec]:
    """`test_sets` if given, else the checkpoint's eval.test_sets (before they existed: its test split)."""
    if cfg.test_sets is not None:
        return parse_test_sets(cfg.test_sets, "test_sets")
    run_eval = run_config.get("eval")
    if run_eval is None:
        return [TestSetSpec("test", split="test")]
    return parse_test_sets(run_eval.test_sets, "eval.test_sets (of the checkpoint's config)")


def output_dir(cfg: DictConfig, primary: str) -> Path:
    if cfg.output_dir:
        return Path(cfg.output_dir)
    return Path(cfg.checkpoint).parent / f"eval-{primary}-beam{cfg.decode.beam_size}"


def as_job_config(run_config: DictConfig, cfg: DictConfig) -> DictConfig:
    """The checkpoint's training config with what this evaluation changed: decoding, length report, test sets, corpus,
    and an ablation applied at test time, named <name>_at_test so that a report never takes it for the same
    ablation applied in training. Paired with the model as trained, it differs from it in the ablation only."""
    job = copy.deepcopy(run_config)
    job.decode, job.report = cfg.decode, cfg.report
    if cfg.test_sets is not None:
        job.eval.test_sets = cfg.test_sets
    if cfg.data_path:
        job.data.path = cfg.data_path
    if ablates(cfg.get("ablation")):
        job.ablation = copy.deepcopy(cfg.ablation)
        job.ablation.name = f"{cfg.ablation.name}_at_test"
    return job


def evaluate(cfg: DictConfig) -> tuple[dict, Path]:
    decode = typed(cfg, "decode", DecodeSettings)
    report_settings = typed(cfg, "report", ReportSettings)
    device = pick_device(cfg.device)
    loaded = load_model(cfg.checkpoint, device)
    specs = test_set_specs(cfg, loaded.config)
    apply_at_test_time(loaded.model, cfg.get("ablation"))  # e.g. ablation=zero_dims on a model trained without
    data_cfg = loaded.config.data
    if cfg.data_path:
        data_cfg.path = cfg.data_path
    data = prepare_data(data_cfg, tokenizer=loaded.tokenizer, test_sets=specs)
    check_data_fits(loaded.model.encoding, data.test_sets, decode)  # e.g. a learned table
    translator = Translator(loaded.model, loaded.tokenizer, decode, device)
    out = output_dir(cfg, specs[0].name)
    writer = SummaryWriter(str(out / "tb"))  # a TensorBoard folder of its own
    try:
        metrics = score_test_sets(report_settings, translator, specs, data.test_sets, out, writer, loaded.step,
                                  training_lengths(data_cfg), training_lengths_note(data_cfg))
        primary = data.test_sets[specs[0].name]
        log_pictures(report_settings, translator, probes_for(report_settings, translator, primary), writer,
                     loaded.step, encoding=True)
    finally:
        writer.close()
    metrics.update(checkpoint=str(cfg.checkpoint), step=loaded.step, beam_size=cfg.decode.beam_size)
    atomic_write_text(out / "config.yaml", OmegaConf.to_yaml(as_job_config(loaded.config, cfg), resolve=True))
    atomic_write_text(out / "metrics.json", json.dumps(metrics, indent=2, ensure_ascii=False) + "\n")
    return metrics, out


@hydra.main(config_path=CONF_DIR, config_name="evaluate", version_base="1.3")
def main(cfg: DictConfig) -> None:
    try:
        metrics, out = evaluate(cfg)
    except (ConfigError, CheckpointError, WriteError, ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    for name, scores in metrics["test_sets"].items():
        print(f"{name} BLEU {scores['bleu']:.2f}  chrF {scores['chrf']:.2f}  ({scores['sentences']} sentences)")
    print(f"written: {out / 'metrics.json'}")


if __name__ == "__main__":
    check_overrides(CONF_DIR, "evaluate", sys.argv[1:])
    main()
