"""Decoding speed: sentences/s of greedy and beam search, with and without the decoder's key/value cache.

    python scripts/bench_decode.py                          # briefly trains a tiny model on Tatoeba first
    python scripts/bench_decode.py --checkpoint runs/x/best.pt --limit 500
    python scripts/bench_decode.py --train-steps 0          # random weights: every output runs to the length limit
    python scripts/bench_decode.py --against-eole --model small --train-steps 200 --threads 1   # ours vs Eole 0.6.4
    python scripts/bench_decode.py --checkpoint runs/x/last.pt --against-fp32-weights    # bf16 weights vs fp32

--against-eole times ours and Eole 0.6.4 (in its own venv: --eole-python, $EOLE_PYTHON or /work/eole-venv/bin/python;
said so and skipped when absent) on the same test sentences with the same weights (ours, briefly trained, converted
to Eole's format by scripts/eole_peer.py), the same batch_tokens and thread count, interleaved search by search and
round by round, and reports sentences/s and target tokens/s with their ratios. The trained weights and Eole's copy
are kept in --eole-dir, so a rerun only decodes.

--against-fp32-weights decodes one trained checkpoint twice, with its fp32 weights and with a bf16 copy (every
parameter and buffer cast), the same batches, greedy and beam 4, --rounds rounds alternating which goes first; it
prints sentences/s of each, their ratio, the share of identical outputs and the BLEU of each against the references.

Sentences are batched by length as the Translator does (decode.batch_tokens). For each batch the cached and the
uncached search run back to back, so other processes on the machine slow both alike: read the ratios, not the
absolute rates. The outputs of both must be identical (the cache is an optimisation, not an approximation).
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import torch

from translate.assembly.settings import data_settings, validate_config
from translate.data.pipeline import prepare_data
from translate.decoding.search import search
from translate.assembly.settings import typed
from translate.decoding.settings import DecodeSettings, SpecialIds
from translate.decoding.translator import length_batches
from translate.assembly.compose import compose

ROOT = Path(__file__).resolve().parents[1]

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


def decode_settings(beam: int) -> DecodeSettings:
    settings = typed(compose(f"decode={'greedy' if beam == 1 else 'beam'}"), "decode", DecodeSettings)
    return replace(settings, beam_size=beam)


def time_ours(model, tokenizer, sources: list[list[int]], settings: DecodeSettings) -> tuple[float, list[list[int]]]:
    """(seconds, outputs in input order) for the whole set, batched by length as the Translator does."""
    specials, seconds, outputs = SpecialIds.of(tokenizer), 0.0, [[] for _ in sources]
    for batch in length_batches([len(s) + 1 for s in sources], settings.batch_tokens):
        src = source_tensor([sources[i] for i in batch], tokenizer)
        started = time.perf_counter()
        found = search(model, src, specials=specials, settings=settings)
        seconds += time.perf_counter() - started
        for i, out in zip(batch, found):
            outputs[i] = out
    return seconds, outputs


class EolePeer:
    """Eole 0.6.4 in its own venv (scripts/eole_peer.py) holding our weights, kept loaded between requests."""

    def __init__(self, python: str, folder: Path, threads: int) -> None:
        import subprocess

        self.process = subprocess.Popen([python, str(ROOT / "scripts" / "eole_peer.py"), "serve", str(folder),
                                         "--threads", str(threads)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        self.ready = self._answer()

    def _answer(self) -> dict:
        import json

        for line in self.process.stdout:  # Eole may log to stdout: our answers are the JSON lines
            if line.startswith("{"):
                return json.loads(line)
        raise RuntimeError("the Eole peer ended without answering (run scripts/eole_peer.py serve by hand to see why)")

    def translate(self, pieces: list[list[str]], settings: DecodeSettings) -> tuple[float, list[list[str]]]:
        import json

        self.process.stdin.write(json.dumps({"sources": pieces, "beam": settings.beam_size,
                                             "batch_tokens": settings.batch_tokens}) + "\n")
        self.process.stdin.flush()
        answer = self._answer()
        return answer["seconds"], answer["outputs"]

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def eole_python(given: str | None) -> str | None:
    """--eole-python if given, else $EOLE_PYTHON, else /work/eole-venv/bin/python; None when it has no eole."""
    import subprocess

    for candidate in (given,) if given else (os.environ.get("EOLE_PYTHON"), "/work/eole-venv/bin/python"):
        if candidate and Path(candidate).exists() and subprocess.run(
                [candidate, "-c", "import eole"], capture_output=True).returncode == 0:
            return candidate
    return None


def ours_cached(model: str, steps: int, max_tokens: int, folder: Path):
    """briefly_trained, its weights kept in `folder` so that a rerun decodes at once (same data, same tokenizer)."""
    weights = folder / f"ours_{model}_{steps}x{max_tokens}.pt"
    if not weights.exists():
        trained, tokenizer, what = briefly_trained(model, steps, max_tokens)
        torch.save(trained.state_dict(), weights)
        return trained, tokenizer, what
    fresh, tokenizer, _ = briefly_trained(model, 0, max_tokens)
    fresh.load_state_dict(torch.load(weights, weights_only=True))
    return fresh.eval(), tokenizer, f"model={model} trained {steps} steps of {max_tokens} tokens on Tatoeba ({weights})"


def export_for_eole(tokenizer, folder: Path) -> None:
    """Our train split as SentencePiece pieces (train.fr, train.en) and our vocabulary (vocab.txt) for Eole."""
    if (folder / "vocab.txt").exists():
        return
    data = prepare_data(data_settings(compose("data=tatoeba")), tokenizer=tokenizer)
    for side, rows in (("fr", data.splits["train"].src), ("en", data.splits["train"].tgt)):
        (folder / f"train.{side}").write_text("".join(" ".join(tokenizer.pieces(r)) + "\n" for r in rows))
    specials = {tokenizer.pad_id, tokenizer.unk_id, tokenizer.bos_id, tokenizer.eos_id}  # Eole adds its own
    (folder / "vocab.txt").write_text("".join(p + "\n" for i, p in enumerate(tokenizer.pieces(range(len(tokenizer))))
                                              if i not in specials))


def against_eole(args) -> None:
    """Ours and Eole on the same test sentences, interleaved search by search and round by round."""
    import subprocess

    folder = Path(args.eole_dir)
    folder.mkdir(parents=True, exist_ok=True)
    model, tokenizer, what = ours_cached(args.model, args.train_steps, args.train_tokens, folder)
    weights = folder / f"ours_{args.model}_{args.train_steps}x{args.train_tokens}.pt"
    print(f"ours: {what}; Eole decodes the same weights, converted to its format (scripts/eole_peer.py)")
    python = eole_python(args.eole_python)
    peer = None
    if python is None:
        print("Eole not found (--eole-python, $EOLE_PYTHON or /work/eole-venv/bin/python with eole installed): "
              "ours only. Install: python3 -m venv /work/eole-venv && /work/eole-venv/bin/pip install torch==2.13.0 "
              "&& /work/eole-venv/bin/pip install eole==0.6.4 aiohttp")
    else:
        export_for_eole(tokenizer, folder)
        converted_from = folder / "model" / "converted_from.txt"
        if not converted_from.exists() or converted_from.read_text() != weights.name:
            print(f"writing our weights as an Eole model in {folder}/model ...", flush=True)
            subprocess.run([python, str(ROOT / "scripts" / "eole_peer.py"), "convert", str(folder), "--weights",
                            str(weights)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            converted_from.write_text(weights.name)
        peer = EolePeer(python, folder, torch.get_num_threads())
        print(f"Eole: {peer.ready['model']} ({python}), {peer.ready['threads']} threads")
    sources = sources_of_test_split(args.corpora[0], tokenizer, args.limit)
    pieces = [tokenizer.pieces(s + [tokenizer.eos_id]) for s in sources]  # our encoder sees the eos too: Eole's too
    n, totals, same = len(sources), {}, {}
    for round_ in range(args.rounds):
        for name, beam in SEARCHES.items():
            settings = decode_settings(beam)
            seconds, outputs = time_ours(model, tokenizer, sources, settings)
            tokens = sum(len(o) for o in outputs)
            totals.setdefault((name, "ours"), []).append((seconds, tokens))
            if peer is not None:
                seconds, theirs = peer.translate(pieces, settings)
                totals.setdefault((name, "eole"), []).append((seconds, sum(len(o) for o in theirs)))
                same[name] = sum(tokenizer.pieces(o) == e for o, e in zip(outputs, theirs)) / n
    if peer is not None:
        peer.close()
    print(f"{n} {args.corpora[0]} test sentences, {args.rounds} rounds, {torch.get_num_threads()} threads, "
          f"batch_tokens greedy {decode_settings(1).batch_tokens} / beam {decode_settings(4).batch_tokens} (both)")
    print(f"{'search':7s} {'who':5s} {'sent/s':>8s} {'tok/s':>8s} {'out len':>7s} {'ours/eole sent/s':>17s} "
          f"{'ours/eole tok/s':>16s} {'per round (sent/s ratio)':>25s}")
    for name in SEARCHES:
        rates = {}
        for who in ("ours", "eole"):
            if (name, who) not in totals:
                continue
            rounds = totals[(name, who)]
            seconds, tokens = sum(s for s, _ in rounds), sum(t for _, t in rounds)
            rates[who] = (n * len(rounds) / seconds, tokens / seconds, tokens / (n * len(rounds)), rounds)
        for who, (sents, toks, length, _) in rates.items():
            line = f"{name:7s} {who:5s} {sents:8.1f} {toks:8.0f} {length:7.2f}"
            if who == "eole":
                ours = rates["ours"]
                per_round = [e[0] / o[0] for o, e in zip(ours[3], rates["eole"][3])]
                line += (f" {ours[0] / sents:16.2f}x {ours[1] / toks:15.2f}x "
                         f"{' '.join(f'{r:.2f}' for r in per_round):>25s}")
            print(line, flush=True)
        if name in same:
            print(f"{name:7s} the same output as Eole for {same[name]:.1%} of the sentences (same weights)")


def against_fp32_weights(args) -> None:
    """One checkpoint decoded with fp32 weights and with a bf16 copy, ABBA round by round (module docstring)."""
    import copy

    from sacrebleu.metrics import BLEU

    if not args.checkpoint:
        raise SystemExit("--against-fp32-weights needs --checkpoint (a trained model: an untrained one decodes to "
                         "its length limit)")
    model, tokenizer, what = from_checkpoint(args.checkpoint)
    models = {"fp32": model.eval(), "bf16": copy.deepcopy(model).to(torch.bfloat16).eval()}
    corpus = args.corpora[0]
    cfg = compose(f"data={corpus}", f"data.test_limit={args.limit}" if args.limit else "data.test_limit=null")
    test = prepare_data(data_settings(cfg), tokenizer=tokenizer).splits["test"]
    sources, references = test.src, [pair.en for pair in test.pairs]
    print(f"decoding {len(sources)} {corpus} test sentences with {what}: fp32 weights against a bf16 copy, "
          f"{args.rounds} rounds, {torch.get_num_threads()} threads")
    print(f"{'search':7s} {'weights':7s} {'sent/s':>8s} {'BLEU':>6s} {'bf16/fp32 sent/s':>17s} {'same output':>12s}")
    for name, beam in SEARCHES.items():
        settings = decode_settings(beam)
        seconds, outputs = {"fp32": 0.0, "bf16": 0.0}, {}
        for round_ in range(args.rounds):
            for precision in ("fp32", "bf16") if round_ % 2 == 0 else ("bf16", "fp32"):
                taken, outputs[precision] = time_ours(models[precision], tokenizer, sources, settings)
                seconds[precision] += taken
        rate = {p: len(sources) * args.rounds / seconds[p] for p in seconds}
        same = sum(a == b for a, b in zip(outputs["fp32"], outputs["bf16"])) / len(sources)
        for precision in ("fp32", "bf16"):
            bleu = BLEU().corpus_score(tokenizer.decode(outputs[precision]), [references]).score
            ratio = f"{rate['bf16'] / rate['fp32']:16.2f}x {same:11.1%}" if precision == "bf16" else ""
            print(f"{name:7s} {precision:7s} {rate[precision]:8.1f} {bleu:6.2f} {ratio}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", help="a trained checkpoint (default: train briefly, see --train-steps)")
    parser.add_argument("--model", default="tiny", help="model size to train briefly (conf/model)")
    parser.add_argument("--train-steps", type=int, default=300, help="0: random weights")
    parser.add_argument("--train-tokens", type=int, default=2000, help="train.max_tokens of the brief training")
    parser.add_argument("--limit", type=int, default=None, help="first N test sentences of each corpus")
    parser.add_argument("--corpora", nargs="+", default=["tatoeba", "multi30k"])
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--against-eole", action="store_true",
                        help="ours vs Eole 0.6.4 on the same sentences (first of --corpora), the same weights "
                        "(ours trained briefly, see --train-steps, converted for Eole)")
    parser.add_argument("--eole-python", default=None, help="a Python with eole installed (default: $EOLE_PYTHON, "
                        "else /work/eole-venv/bin/python)")
    parser.add_argument("--eole-dir", default=str(ROOT / "data" / "cache" / "eole_peer"),
                        help="Eole's data and model, and our brief training's weights, kept for reruns")
    parser.add_argument("--rounds", type=int, default=3, help="--against-eole: rounds of ours-then-Eole per search; "
                        "--against-fp32-weights: rounds of each precision")
    parser.add_argument("--against-fp32-weights", action="store_true",
                        help="a --checkpoint decoded with its fp32 weights and with a bf16 copy (module docstring)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, load average before "
          f"{os.getloadavg()[0]:.2f} (other processes share these cores: read the ratios)")
    if args.against_fp32_weights:
        against_fp32_weights(args)
        print(f"load average after {os.getloadavg()[0]:.2f}")
        return
    if args.against_eole:
        against_eole(args)
        print(f"load average after {os.getloadavg()[0]:.2f}")
        return
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
