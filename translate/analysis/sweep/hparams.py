"""TensorBoard HParams entries, one session per finished job, so that a sweep can be compared in the HParams tab:
`tensorboard --logdir SWEEP_DIR` (the sessions are under report/hparams/, next to each job's own tb/ folder)."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from torch.utils.tensorboard import SummaryWriter

from translate.analysis.sweep.jobs import Job, varying_keys

METRIC_PREFIX = "hparams/"  # unique: add_hparams logs metrics as scalars, which must not clash with training tags


def job_hparams(job: Job, varying: list[str]) -> dict[str, Any]:
    hp = {"encoding": job.settings.encoding, "ablation": job.settings.ablation, "model": job.settings.model,
          "train_words": job.settings.train_words, "seed": job.seed}
    for key in varying:
        if not key.startswith("encoding.") and not key.endswith("_target_") and key not in ("ablation.name",
                                                                                               "model.name"):
            hp[key] = job.config.get(key)
    return hp


def job_metrics(job: Job) -> dict[str, float]:
    primary = job.metrics.primary
    values = {"bleu": primary and primary.bleu, "chrf": primary and primary.chrf,
              "target_tokens_per_s": job.metrics.target_tokens_per_s, "train_minutes": job.metrics.train_minutes}
    metrics = {f"{METRIC_PREFIX}{k}": float(v) for k, v in values.items() if v is not None}
    for bucket in primary.by_length.buckets if primary and primary.by_length else []:
        for key in ("bleu", "chrf", "diagonal_share"):
            if getattr(bucket, key) is not None:
                metrics[f"{METRIC_PREFIX}{key}/{bucket.bucket}"] = float(getattr(bucket, key))
    return metrics


def consistent_types(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """HParams needs one type per key: a key holding anything but numbers in some job is text in every job."""
    keys = set().union(*rows) if rows else set()
    text = {k for k in keys if any(not isinstance(r.get(k), (int, float)) or isinstance(r.get(k), bool)
                                   for r in rows)}
    return [{k: (str(r.get(k)) if k in text else r.get(k)) for k in keys} for r in rows]


def write_hparams(jobs: list[Job], out_dir: Path) -> Path:
    """Rewrites out_dir (a folder of the report) with one add_hparams session per finished job."""
    finished = [job for job in jobs if job.finished]
    if out_dir.exists():
        shutil.rmtree(out_dir)
    varying = varying_keys([j.config for j in finished])
    rows = consistent_types([job_hparams(job, varying) for job in finished])
    domains = {k: sorted({r[k] for r in rows}) for k in (rows[0] if rows else {}) if isinstance(rows[0][k], str)}
    with SummaryWriter(str(out_dir)) as writer:
        for job, hp in zip(finished, rows):
            writer.add_hparams(hp, job_metrics(job), hparam_domain_discrete=domains,
                               run_name=job.name.replace("/", "__"), global_step=job.metrics.steps)
    return out_dir
