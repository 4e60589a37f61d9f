"""Decoding speed: sentences/s of greedy and beam search, with and without the decoder's key/value cache.

    python scripts/bench_decode.py                          # briefly trains a tiny model on Tatoeba first
    python scripts/bench_decode.py --checkpoint runs/x/best.pt --limit 500
    python scripts/bench_decode.py --train-steps 0          # random weights: every output runs to the length limit

Sentences are batched by length as the Translator does (decode.batch_tokens). For each batch the cached and the
uncached search run back to back, so other processes on the machine slow both alike: read the ratios, not the
absolute rates. The outputs of both must be identical (the cache is an optimisation, not an approximation).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from translate.assembly.settings import data_settings, validate_config  # noqa: E402
from translate.data.pipeline import prepare_data  # noqa: E402
from translate.decoding.search import search  # noqa: E402
from translate.assembly.settings import typed  # noqa: E402
from translate.decoding.settings import DecodeSettings, SpecialIds  # noqa: E402
from translate.decoding.translator import length_batches  # noqa: E402
from translate.assembly.trainer import build_trainer  # noqa: E402
from translate.assembly.compose import compose  # noqa: E402

SEARCHES = {"greedy": 1, "beam4": 4}


def briefly_trained(model: str, steps: int, max_tokens: int):
    """(model, tokenizer, description): `steps` training steps on Tatoeba (0: random weights)."""
    from translate.training.device import make_runtime
    from translate.assembly.trainer import build_trainer

    cfg = compose(f"model={model}", "train.device=cpu", "train.precision=fp32", f"train.max_tokens={max_tokens}",
                  f"train.warmup_steps={max(steps // 3, 1)}")
    data = prepare_data(data_settings(cfg))
    trainer = build_trainer(validate_config(cfg), data, make_runtime("cpu", "fp32"),
                            Path(tempfile.mkdtemp(prefix="bench_decode_")))
    started, batches = time.perf_counter(), trainer.epoch_batches(0)
    for indices in batches[:steps]:
        trainer.train_step(indices)
    what = (f"model={model} trained {steps} steps of {max_tokens} tokens on Tatoeba "
            f"({time.perf_counter() - started:.0f} s)") if steps else f"model={model} with random weights"
    return trainer.model.eval(), data.tokenizer, what


def from_checkpoint(path: str):
    from translate.assembly.trained import load_model

    loaded = load_model(path)
    return loaded.model, loaded.tokenizer, f"checkpoint {path} (model={loaded.config.model.name}, step {loaded.step})"


def sources_of_test_split(corpus: str, tokenizer, limit) -> list[list[int]]:
    cfg = compose(f"data={corpus}", f"data.test_limit={limit}" if limit else "data.test_limit=null")
    return prepare_data(data_settings(cfg), tokenizer=tokenizer).splits["test"].src


def source_tensor(rows: list[list[int]], tokenizer) -> torch.Tensor:
    from translate.data.batching import pad_rows

    return pad_rows(rows, tokenizer.pad_id, last=tokenizer.eos_id)


def bench(model, tokenizer, sources: list[list[int]], beam: int) -> dict:
    settings = typed(compose(f"decode={'greedy' if beam == 1 else 'beam'}"), "decode", DecodeSettings)
    settings, specials = replace(settings, beam_size=beam), SpecialIds.of(tokenizer)
    seconds = {True: 0.0, False: 0.0}
    identical, out_tokens = True, 0
    for batch in length_batches([len(s) + 1 for s in sources], settings.batch_tokens):
        src = source_tensor([sources[i] for i in batch], tokenizer)
        outputs = {}
        for use_cache in (True, False):
            started = time.perf_counter()
            outputs[use_cache] = search(model, src, specials=specials, settings=settings, use_cache=use_cache)
            seconds[use_cache] += time.perf_counter() - started
        identical &= outputs[True] == outputs[False]
        out_tokens += sum(len(h) for h in outputs[True])
    n = len(sources)
    return {"cached": n / seconds[True], "uncached": n / seconds[False], "identical": identical,
            "out_len": out_tokens / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", help="a trained checkpoint (default: train briefly, see --train-steps)")
    parser.add_argument("--model", default="tiny", help="model size to train briefly (conf/model)")
    parser.add_argument("--train-steps", type=int, default=300, help="0: random weights")
    parser.add_argument("--train-tokens", type=int, default=2000, help="train.max_tokens of the brief training")
    parser.add_argument("--limit", type=int, default=None, help="first N test sentences of each corpus")
    parser.add_argument("--corpora", nargs="+", default=["tatoeba", "multi30k"])
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, load average before "
          f"{os.getloadavg()[0]:.2f} (other processes share these cores: read the ratios)")
    if args.checkpoint:
        model, tokenizer, what = from_checkpoint(args.checkpoint)
    else:
        model, tokenizer, what = briefly_trained(args.model, args.train_steps, args.train_tokens)
    print(f"decoding with {what}")
    print(f"{'corpus':9s} {'search':7s} {'sents':>6s} {'out len':>7s} {'cached/s':>9s} {'uncached/s':>10s} "
          f"{'speed-up':>8s} {'same out':>8s}")
    for corpus in args.corpora:
        sources = sources_of_test_split(corpus, tokenizer, args.limit)
        for name, beam in SEARCHES.items():
            r = bench(model, tokenizer, sources, beam)
            print(f"{corpus:9s} {name:7s} {len(sources):6d} {r['out_len']:7.1f} {r['cached']:9.1f} "
                  f"{r['uncached']:10.1f} {r['cached'] / r['uncached']:7.2f}x {'yes' if r['identical'] else 'NO':>8s}",
                  flush=True)
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
