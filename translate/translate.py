"""Translate French to English with a checkpoint.

    python -m translate.translate --checkpoint runs/X/best.pt "Je pars en vacances pour quelques jours."
    echo "Je recherche un assistant." | python -m translate.translate --checkpoint runs/X/best.pt --beam 4
"""
from __future__ import annotations

import argparse
import sys

from translate.checkpoints import load_model
from translate.data.cleaning import normalise
from translate.decoding.translator import DecodeSettings, Translator
from translate.training.checkpoint import CheckpointError
from translate.training.device import pick_device


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m translate.translate", description=__doc__.splitlines()[1])
    parser.add_argument("--checkpoint", required=True, help="best.pt or last.pt of a run")
    parser.add_argument("--beam", type=int, default=1, help="beam size (1: greedy)")
    parser.add_argument("--length-penalty", type=float, default=1.0)
    parser.add_argument("--device", default="auto")
    parser.add_argument("text", nargs="*", help="French sentences; none: read one per line from stdin")
    args = parser.parse_args(argv)
    if args.beam < 1:
        parser.error(f"--beam={args.beam} is not allowed: expected an integer >= 1")
    return args


def read_inputs(args: argparse.Namespace) -> list[str]:
    if args.text:
        return list(args.text)
    data = sys.stdin.buffer.read()
    return data.decode("utf-8", errors="replace").splitlines()


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        loaded = load_model(args.checkpoint, pick_device(args.device))
    except (CheckpointError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    settings = DecodeSettings(beam_size=args.beam, length_penalty=args.length_penalty)
    translator = Translator(loaded.model, loaded.tokenizer, settings, loaded.model.output.weight.device)
    sentences = [normalise(s) for s in read_inputs(args)]
    keep = [i for i, s in enumerate(sentences) if s]
    outputs = [""] * len(sentences)  # an empty line in gives an empty line out
    limit = loaded.model.encoding.max_positions
    texts = [sentences[i] for i in keep]
    ids = loaded.tokenizer.encode(texts)
    if limit is not None:
        for n, row in enumerate(ids):
            if len(row) + 1 > limit:
                print(f"warning: input line {keep[n] + 1} has {len(row) + 1} tokens, more than the encoding's "
                      f"{limit}; truncated", file=sys.stderr)
                ids[n] = row[: limit - 1]
    for i, hyp in zip(keep, loaded.tokenizer.decode(translator.translate_ids(ids)) if ids else []):
        outputs[i] = hyp
    for line in outputs:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
