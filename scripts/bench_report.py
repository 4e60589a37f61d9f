"""Time `translate.report` over a fabricated 26-job sweep on the whole Tatoeba test split.

    python scripts/bench_report.py [--jobs 26] [--samples 10000] [--test-size N]

13 settings (encodings x two training-length groups, plus zero_dims) x 2 seeds; each job's hypotheses are the
references with words dropped at a job-specific rate, so every comparison has something to find. Prints the
seconds to build the report (hypothesis statistics, bootstraps, tables, plots; no HParams) and per job.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path


from omegaconf import OmegaConf

from translate.assembly.settings import data_settings
from translate.analysis.sweep import build_report
from translate.assembly.compose import compose

ENCODINGS = ("sinusoidal", "none", "rope", "learned", "alibi", "t5")
GROUPS = ((1, 9), (11, 17))
EDGES = ((1, 5), (6, 10), (11, 15), (16, 20), (21, None))


def degraded(refs: list[str], rate: int) -> list[str]:
    return [" ".join(w for k, w in enumerate(r.split()) if (k + i) % rate) if rate else r for i, r in enumerate(refs)]


def fabricate(root: Path, jobs: int, test_size: str) -> int:
    from translate.data.pipeline import load_splits

    specs = [(enc, None, g) for g in GROUPS for enc in ENCODINGS] + [("sinusoidal", 400, GROUPS[0])]
    specs = [(spec, seed) for seed in (1, 2) for spec in specs][:jobs]
    pairs = None
    for k, ((encoding, zero_from, (low, high)), seed) in enumerate(specs):
        overrides = ["model=tiny", f"encoding={encoding}", f"seed={seed}", f"data.train_min_words={low}",
                     f"data.train_max_words={high}"] + ([test_size] if test_size else [])
        cfg = compose(*overrides)
        if zero_from:
            cfg.ablation = {"_target_": "translate.ablations.zero_dims.ZeroDims", "name": "zero_dims",
                            "from": zero_from}
        pairs = pairs or load_splits(data_settings(cfg)).test
        hyps = degraded([p.en for p in pairs], (k % 7) + 2 + (encoding != "sinusoidal") * 3)
        folder = root / f"{encoding}_{zero_from}_{low}-{high}_seed{seed}"
        folder.mkdir(parents=True)
        (folder / "config.yaml").write_text(OmegaConf.to_yaml(cfg, resolve=True))
        (folder / "test.hyp.txt").write_text("".join(h + "\n" for h in hyps))
        buckets = []
        for b_low, b_high in EDGES:
            n = sum(1 for p in pairs if b_low <= len(p.fr.split()) and (b_high is None or len(p.fr.split()) <= b_high))
            buckets.append({"bucket": f"{b_low}+" if b_high is None else f"{b_low}-{b_high}", "low": b_low,
                            "high": b_high, "sentences": n, "bleu": 30.0, "chrf": 50.0, "bleu_ci": [29.0, 31.0],
                            "chrf_ci": [49.0, 51.0], "length_ratio": 1.0, "diagonal_share": 0.5,
                            "attention_entropy": 1.0})
        metrics = {"bleu": 30.0, "chrf": 50.0, "sentences": len(pairs), "split": "test", "steps": 100,
                   "train_minutes": 1.0, "target_tokens_per_s": 1000.0, "parameters": 1000,
                   "by_length": {"bucketed_by": "source_words", "buckets": buckets}}
        (folder / "metrics.json").write_text(json.dumps(metrics))
    return len(pairs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=26)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--test-size", default="", help="e.g. data.corpus.test_size=500 for a smaller test split")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        sentences = fabricate(Path(tmp), args.jobs, args.test_size)
        start = time.perf_counter()
        report = build_report(Path(tmp), samples=args.samples, hparams=False)
        seconds = time.perf_counter() - start
    print(f"{args.jobs} jobs, {sentences} test sentences, {args.samples} bootstrap samples: report in {seconds:.1f} s "
          f"({seconds / args.jobs:.2f} s per job), {len(report.rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
