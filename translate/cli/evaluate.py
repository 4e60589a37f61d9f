"""`python -m translate.evaluate checkpoint=PATH [eval.test_sets=[...]]`: translate test sets with a checkpoint, score
them.

The test sets are the checkpoint's eval.test_sets unless `eval.test_sets` is given (the key training uses, with the
same entries; see translate/data/test_sets.py; `test_sets=` is the same setting). When every test set is a pair of
files ({name, src, ref}), no training corpus is read: the tokenizer and the model come from the checkpoint.
Writes metrics.json (laid out as in translate/analysis/run/test_set_reports.py), a
<name>.hyp.txt per test set, by_length tables, a TensorBoard folder tb/ of its own (scores by length, the BLEU
curve, attention maps, encoding pictures) and config.yaml: what the evaluation is, as a sweep report reads a job.
An evaluation written into a sweep folder beside the jobs is reported with them; `ablation=zero_dims` there is the
control "dims >= 400 zeroed at test time" of seed_repro (translate.study ablate-at-test). `encoding.KEY=VALUE` changes a
setting of the checkpoint's encoding that changes no weight (`encoding.scaling=yarn` on a RoPE model: its test-time
scaling beyond the training length); such an evaluation is named <encoding>_<values>_at_test.
"""
from __future__ import annotations

import copy
import json
import logging
import sys
from pathlib import Path
from typing import Any, Optional

import hydra
from omegaconf import DictConfig, OmegaConf
from torch.utils.tensorboard import SummaryWriter

from translate.ablations import ablates, apply_at_test_time
from translate.assembly.fit import check_data_fits
from translate.assembly.schemas import register as register_schemas
from translate.assembly.settings import typed
from translate.assembly.trained import load_model
from translate.config import ConfigError
from translate.data.config import DataConfig
from translate.data.pipeline import TokenizedSplit, cache_dir, prepare_data
from translate.decoding.translator import DecodeSettings, Translator
from translate.data.test_sets import NOT_SCORED_RULE, TestSetSpec, parse_test_sets, test_set_lines
from translate.data.tokenizer import Tokenizer
from translate.analysis.run.alignment_error import silver_reference
from translate.analysis.run.report_split import log_pictures, probes_for, training_lengths, training_lengths_note
from translate.analysis.run.settings import ReportSettings
from translate.analysis.run.test_set_reports import score_test_sets
from translate.training.checkpoint import CheckpointError
from translate.cli.preflight import check_overrides
from translate.io import WriteError, atomic_write_text
from translate.training.device import Runtime, pick_device
from translate.config.paths import CONF_DIR

log = logging.getLogger("translate.evaluate")
register_schemas()  # before Hydra composes: the YAML groups name their schema


def given_test_sets(cfg: DictConfig) -> Optional[tuple[str, Any]]:
    """(key, entries) of the test sets given on the command line, eval.test_sets or its older spelling test_sets;
    None when neither is."""
    given = [(key, OmegaConf.select(cfg, key)) for key in ("eval.test_sets", "test_sets")]
    given = [(key, value) for key, value in given if value is not None]
    if len(given) > 1:
        raise ConfigError("eval.test_sets and test_sets are the same setting, given twice: expected one of them")
    return given[0] if given else None


def test_set_specs(cfg: DictConfig, run_config: DictConfig) -> list[TestSetSpec]:
    """eval.test_sets if given, else the checkpoint's eval.test_sets (before they existed: its test split)."""
    given = given_test_sets(cfg)
    if given is not None:
        key, entries = given
        return parse_test_sets(entries, key)
    run_eval = run_config.get("eval")
    if run_eval is None:
        return [TestSetSpec("test", split="test")]
    return parse_test_sets(run_eval.test_sets, "eval.test_sets (of the checkpoint's config)")


def encoding_changes(cfg: DictConfig) -> dict:
    """The encoding settings given for this evaluation (`encoding.scaling=yarn`): those not null."""
    node = cfg.get("encoding")
    return {} if node is None else {k: v for k, v in OmegaConf.to_container(node, resolve=True).items()
                                    if v is not None}


def output_dir(cfg: DictConfig, primary: str) -> Path:
    if cfg.output_dir:
        return Path(cfg.output_dir)
    changed = "".join(f"-{key}_{value}" for key, value in encoding_changes(cfg).items())  # -scaling_yarn
    return Path(cfg.checkpoint).parent / f"eval-{primary}-beam{cfg.decode.beam_size}{changed}"


def as_job_config(run_config: DictConfig, cfg: DictConfig) -> DictConfig:
    """The checkpoint's training config with what this evaluation changed: decoding, length report, test sets, corpus,
    and an ablation applied at test time, named <name>_at_test so that a report never takes it for the same
    ablation applied in training. Paired with the model as trained, it differs from it in the ablation only."""
    job = copy.deepcopy(run_config)
    job.decode, job.report = cfg.decode, cfg.report
    given = given_test_sets(cfg)
    if given is not None:
        OmegaConf.update(job, "eval.test_sets", given[1], merge=False, force_add=True)
    if cfg.data_path:
        job.data.path = cfg.data_path
    if ablates(cfg.get("ablation")):
        job.ablation = copy.deepcopy(cfg.ablation)
        job.ablation.name = f"{cfg.ablation.name}_at_test"
    changes = encoding_changes(cfg)
    if changes:  # e.g. rope_yarn_at_test: the same weights read another way, never taken for the model as trained
        for key, value in changes.items():
            OmegaConf.update(job, f"encoding.{key}", value, force_add=True)
        job.encoding.name = "_".join([str(job.encoding.get("name", "encoding")), *map(str, changes.values()),
                                      "at_test"])
    return job


def file_test_sets(specs: list[TestSetSpec], tokenizer: Tokenizer, limit: Optional[int]
                   ) -> dict[str, TokenizedSplit]:
    """Test sets that are pairs of files, by name, tokenized with the checkpoint's tokenizer: no corpus is read.
    `limit` (the checkpoint's data.test_limit) keeps the first N of each, as in training."""
    tested = {}
    for spec in specs:
        pairs, lines = test_set_lines(spec, corpus=None, limit=limit)
        tested[spec.name] = TokenizedSplit(pairs, tokenizer.encode([p.fr for p in pairs]),
                                           tokenizer.encode([p.en for p in pairs]), lines)
    return tested


def evaluate(cfg: DictConfig) -> tuple[dict, Path]:
    if OmegaConf.is_missing(cfg, "checkpoint"):
        raise ConfigError("checkpoint is not given: expected checkpoint=PATH, the best.pt or last.pt of a run, e.g. "
                          "python -m translate.evaluate checkpoint=runs/DATE/TIME/best.pt")
    decode = typed(cfg, "decode", DecodeSettings)
    report_settings = typed(cfg, "report", ReportSettings)
    device = pick_device(cfg.device)
    loaded = load_model(cfg.checkpoint, device, encoding_changes(cfg))  # e.g. encoding.scaling=yarn
    specs = test_set_specs(cfg, loaded.config)
    apply_at_test_time(loaded.model, cfg.get("ablation"))  # e.g. ablation=zero_dims on a model trained without
    data_settings = typed(loaded.config, "data", DataConfig)  # as the checkpoint was trained
    if cfg.data_path:
        data_settings.path = cfg.data_path
    if not any(spec.kind.reads_corpus for spec in specs):  # only files: the corpus (and its splits) are not needed
        log.info("every test set is a pair of files: the training corpus is not read")
        data, test_sets = None, file_test_sets(specs, loaded.tokenizer, data_settings.test_limit)
    else:
        data = prepare_data(data_settings, tokenizer=loaded.tokenizer, test_sets=specs)
        test_sets = data.test_sets
    check_data_fits(loaded.model.encoding, test_sets, decode)  # e.g. a learned table
    silver = None  # AER's silver word links; None when turned off
    if data is not None:
        silver = silver_reference(report_settings, data, cache_dir(data_settings), specs)
    elif any(not spec.kind.gold_links for spec in specs) and report_settings.aer_wanted:
        # the silver links are aligned with the training corpus, which is not read here
        why = ("no AER on files: its word links and the valid split that chooses its layer need the training corpus, "
               "which is not read when every test set is a pair of files; add a split test set to get AER")
        if report_settings.alignment_error_rate:  # asked for on the command line: say it loudly
            log.warning("report.alignment_error_rate=true, but %s, or set report.alignment_error_rate=false", why)
        else:
            log.info("%s (report.alignment_error_rate=null: AER where it can be had)", why)
    translator = Translator(loaded.model, loaded.tokenizer, decode, device)
    out = output_dir(cfg, specs[0].name)
    writer = SummaryWriter(str(out / "tb"))  # a TensorBoard folder of its own
    try:
        metrics = score_test_sets(report_settings, translator, specs, test_sets, out, writer, loaded.step,
                                  training_lengths(data_settings), training_lengths_note(data_settings), silver)
        primary = test_sets[specs[0].name]
        log_pictures(report_settings, translator, probes_for(report_settings, translator, primary), writer,
                     loaded.step, encoding=True)
    finally:
        writer.close()
    metrics.update(checkpoint=str(cfg.checkpoint), step=loaded.step, beam_size=cfg.decode.beam_size,
                   encoding_kind=loaded.model.encoding.kind(),
                   device=Runtime(device, None).describe())  # decoded in fp32 on it
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
    print("\n".join(summary(metrics, out)))


def summary(metrics: dict, out: Path) -> list[str]:
    """What the command prints: each test set's scores, the lines of a user's files not scored and the rule."""
    printed = []
    for name, scores in metrics["test_sets"].items():
        lines = scores.get("lines")
        skipped = (f"; {lines['not_scored']} of {lines['lines']} lines not scored, each named above" if lines and
                   lines["not_scored"] else "")
        printed.append(f"{name} BLEU {scores['bleu']:.2f}  chrF {scores['chrf']:.2f}  ({scores['sentences']} "
                       f"sentences{skipped})")
    if any((scores.get("lines") or {}).get("not_scored") for scores in metrics["test_sets"].values()):
        printed.append(f"rule: {NOT_SCORED_RULE}")
    return printed + [f"written: {out / 'metrics.json'}"]


if __name__ == "__main__":
    check_overrides(CONF_DIR, "evaluate", sys.argv[1:])
    main()
