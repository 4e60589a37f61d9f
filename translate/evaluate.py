"""`python -m translate.evaluate checkpoint=PATH`: translate a split with a checkpoint and score it.

Writes metrics.json (BLEU and chrF with sacreBLEU signatures, sentence count, scores by length) and <split>.hyp.txt,
by_length.md, and a TensorBoard folder tb/ of its own (scores by length, attention maps, encoding pictures).
"""
from __future__ import annotations

import logging
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig

from translate.ablations import apply_at_test_time
from translate.checkpoints import load_model
from translate.config import ConfigError, check_data_fits, validate_decode
from translate.data.pipeline import prepare_data
from translate.decoding.translator import DecodeSettings, Translator
from translate.evaluation.evaluate_split import score_split, write_results
from translate.reports.report_split import report_checkpoint, training_lengths_note
from translate.reports.settings import ReportSettings
from translate.training.checkpoint import CheckpointError
from translate.training.device import pick_device

log = logging.getLogger("translate.evaluate")
CONF_DIR = str(Path(__file__).resolve().parents[1] / "conf")


def output_dir(cfg: DictConfig) -> Path:
    if cfg.output_dir:
        return Path(cfg.output_dir)
    return Path(cfg.checkpoint).parent / f"eval-{cfg.split}-beam{cfg.decode.beam_size}"


def evaluate(cfg: DictConfig) -> tuple[dict, Path]:
    validate_decode(cfg)
    report_settings = ReportSettings.from_config(cfg)
    if cfg.split not in ("train", "valid", "test"):
        raise ConfigError(f"split={cfg.split!r} is not allowed: expected one of ['train', 'valid', 'test']")
    device = pick_device(cfg.device)
    loaded = load_model(cfg.checkpoint, device)
    apply_at_test_time(loaded.model, cfg.get("ablation"))  # e.g. ablation=zero_dims on a model trained without
    data_cfg = loaded.config.data
    if cfg.data_path:
        data_cfg.path = cfg.data_path
    data = prepare_data(data_cfg, tokenizer=loaded.tokenizer)
    check_data_fits(loaded.model.encoding, {cfg.split: data.splits[cfg.split]}, cfg.decode)  # e.g. a learned table
    translator = Translator(loaded.model, loaded.tokenizer, DecodeSettings.from_config(cfg.decode), device)
    metrics, hyps = score_split(translator, data.splits[cfg.split])
    metrics.update(split=cfg.split, checkpoint=str(cfg.checkpoint), step=loaded.step,
                   beam_size=cfg.decode.beam_size)
    out = output_dir(cfg)
    metrics["by_length"] = report_checkpoint(report_settings, translator, data.splits[cfg.split], hyps, out,
                                             loaded.step, training_lengths_note(data_cfg))
    write_results(out, cfg.split, metrics, hyps)
    return metrics, out


@hydra.main(config_path=CONF_DIR, config_name="evaluate", version_base="1.3")
def main(cfg: DictConfig) -> None:
    try:
        metrics, out = evaluate(cfg)
    except (ConfigError, CheckpointError, ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    print(f"{cfg.split} BLEU {metrics['bleu']:.2f}  chrF {metrics['chrf']:.2f}  ({metrics['sentences']} sentences)")
    print(f"written: {out / 'metrics.json'}")


if __name__ == "__main__":
    main()
