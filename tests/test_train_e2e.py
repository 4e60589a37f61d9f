"""End to end: the Hydra app trains, checkpoints, evaluates and logs; runs repeat; a tiny model can overfit."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from conftest import TINY_RUN, make_config
from translate.data.corpora import Tatoeba
from translate.data.cleaning import DropCounts, clean_pairs
from translate.cli.evaluate import evaluate
from translate.cli.train import run
from translate.training.checkpoint import load_checkpoint, weights_digest

REPO = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("TRANSLATE_DATA_DIR") or REPO.parent / "shared" / "data")  # as the code finds them
SHARED_ZIP = CORPORA / "tatoeba" / "fra-eng.zip"


def scalars(tb_dir: Path) -> dict[str, list]:
    events = EventAccumulator(str(tb_dir), size_guidance={"scalars": 0})
    events.Reload()
    return {tag: [(e.step, e.value) for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]}


@pytest.mark.slow
def test_the_cli_trains_and_writes_checkpoint_metrics_and_tensorboard(tmp_path, cache_dir):
    run_dir = tmp_path / "run"
    cmd = [sys.executable, "-m", "translate.train", *TINY_RUN, f"data.cache_dir={cache_dir}",
           f"hydra.run.dir={run_dir}"]
    out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "test BLEU" in out.stdout and "run folder" in out.stdout
    for name in ("best.pt", "last.pt", "metrics.json", "test.hyp.txt", "config.yaml"):
        assert (run_dir / name).exists(), name
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert metrics["sentences"] == 100 and metrics["steps"] == 20 and "tok:13a" in metrics["bleu_signature"]
    assert metrics["device"] == "CPU, fp32"  # what the pages name beside every number
    assert metrics["encoding_kind"] == "absolute"  # the default sinusoidal table, as its class says
    assert len((run_dir / "test.hyp.txt").read_text().splitlines()) == 100
    logged = scalars(run_dir / "tb")
    assert [s for s, _ in logged["valid/bleu"]] == [10, 20]
    assert len(logged["train/loss"]) == 4 and logged["train/loss"][-1][1] < logged["train/loss"][0][1]
    assert {"train/lr", "train/grad_norm", "train/target_tokens_per_s", "valid/chrf", "test/bleu"} <= set(logged)


def test_a_seeded_run_repeats_exactly_and_a_resumed_run_continues(tmp_path, tiny_config):
    first = run(tiny_config("train.max_steps=10"), tmp_path / "a")
    again = run(tiny_config("train.max_steps=10"), tmp_path / "b")
    losses_a, losses_b = scalars(tmp_path / "a" / "tb")["train/loss"], scalars(tmp_path / "b" / "tb")["train/loss"]
    assert losses_a == losses_b and first["bleu"] == again["bleu"]
    weights = [load_checkpoint(tmp_path / name / "last.pt")["model"] for name in ("a", "b")]
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])  # the same model, bit for bit
    assert first["weights_sha256"] == again["weights_sha256"] == weights_digest(weights[0])  # what metrics.json shows
    assert 0 < first["run_minutes"] and first["train_minutes"] <= first["run_minutes"]
    resumed = run(tiny_config("train.max_steps=20", "train.resume=auto"), tmp_path / "a")
    assert resumed["steps"] == 20
    steps = [s for s, _ in scalars(tmp_path / "a" / "tb")["train/loss"]]
    assert steps[-1] == 20 and 15 in steps


def real_pairs_zip(path: Path, n_train: int) -> Path:
    """A fra-eng.zip of real Tatoeba pairs with one translation per sentence (no ambiguity to memorise)."""
    pairs = clean_pairs(Tatoeba.read_lines(SHARED_ZIP, DropCounts()), DropCounts())
    seen_fr, seen_en, chosen = set(), set(), []
    for p in pairs[20_000:]:
        if p.fr not in seen_fr and p.en not in seen_en and 4 <= len(p.fr.split()) <= 7:
            seen_fr.add(p.fr)
            seen_en.add(p.en)
            chosen.append(p)
        if len(chosen) == n_train + 20:
            break
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("fra.txt", "".join(f"{p.en}\t{p.fr}\n" for p in chosen))
    return path


@pytest.mark.slow
def test_a_tiny_model_overfits_200_real_pairs(tmp_path, cache_dir):
    data = real_pairs_zip(tmp_path / "fra-eng.zip", 200)
    cfg = make_config(
        "model=tiny", "model.d_model=128", "model.d_ff=256", "model.dropout=0.0", f"data.path={data}",
        "data.corpus.valid_size=10", "data.corpus.test_size=10", "data.tokenizer.vocab_size=400",
        f"data.cache_dir={cache_dir}", "train.max_tokens=4000", "train.max_steps=300", "train.lr=0.003",
        "train.warmup_steps=50", "train.label_smoothing=0.0", "train.valid_every=300", "train.log_every=50",
        "train.save_every=300", "train.max_minutes=null", "train.num_threads=1",
        "eval.test_sets=[{name: test, split: test}]")  # 220 pairs of 4-7 words: no long test set to reserve
    run(cfg, tmp_path / "run")
    metrics, _ = evaluate(make_config(f"checkpoint={tmp_path / 'run' / 'last.pt'}", "test_sets=[{name:train,split:train}]",
                                      f"output_dir={tmp_path / 'eval'}", config_name="evaluate"))
    assert metrics["sentences"] == 200
    assert metrics["bleu"] > 90, metrics
