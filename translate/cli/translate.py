"""Translate French to English with a checkpoint.

    python -m translate.translate --checkpoint runs/X/best.pt "Je pars en vacances pour quelques jours."
    echo "Je recherche un assistant." | python -m translate.translate --checkpoint runs/X/best.pt --beam 4

One output line per input line: an empty or blank line gives an empty line. Bad input never stops the command:
bytes that are not UTF-8 are replaced (U+FFFD) and a line too long for the model is truncated, each with a warning
on stderr. A bad checkpoint or option is an error (exit status 2).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass, field

from translate.assembly.trained import LoadedModel, load_model
from translate.data.cleaning import NOT_UTF8, decode_utf8, normalise
from translate.decoding.length import longest_source_fitting
from translate.decoding.translator import DecodeSettings, Translator
from translate.training.checkpoint import CheckpointError
from translate.training.device import pick_device

DEFAULT_MAX_TOKENS = 1000  # attention costs grow with the square of this; unbounded encodings still need a cap


@dataclass
class Translation:
    lines: list[str]                                     # one per input line
    warnings: list[str] = field(default_factory=list)


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m translate.translate", description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", required=True, help="best.pt or last.pt of a run")
    parser.add_argument("--beam", type=int, default=1, help="beam size (1: greedy)")
    parser.add_argument("--length-penalty", type=float, default=1.0, help="GNMT alpha in [0, 10]")
    parser.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS,
                        help="longer inputs are truncated, with a warning (also to what the encoding can represent)")
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or mps")
    parser.add_argument("text", nargs="*", help="French sentences; none: read one per line from stdin")
    args = parser.parse_args(argv)
    if args.beam < 1:
        parser.error(f"--beam={args.beam} is not allowed: expected an integer >= 1")
    if not (math.isfinite(args.length_penalty) and 0 <= args.length_penalty <= 10):
        parser.error(f"--length-penalty={args.length_penalty} is not allowed: expected a number in [0, 10]")
    if args.max_tokens < 1:
        parser.error(f"--max-tokens={args.max_tokens} is not allowed: expected an integer >= 1")
    return args


def decode_line(raw: bytes, number: int, warnings: list[str]) -> str:
    text = decode_utf8(raw)
    if text is None:  # translated all the same: a user at a terminal gets every line back
        warnings.append(f"warning: input line {number} {NOT_UTF8}; undecodable bytes were replaced by U+FFFD")
        return raw.decode("utf-8", errors="replace")
    return text


def read_inputs(args: argparse.Namespace, warnings: list[str]) -> list[str]:
    if args.text:
        # Python hands undecodable argv bytes over as lone surrogates; turn them back into bytes first.
        return [decode_line(t.encode("utf-8", "surrogateescape"), n, warnings) for n, t in enumerate(args.text, 1)]
    data = sys.stdin.buffer.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [decode_line(line.rstrip(b"\r"), n, warnings) for n, line in enumerate(lines, 1)]


def translate_lines(loaded: LoadedModel, settings: DecodeSettings, lines: list[str], device="cpu",
                    max_tokens: int = DEFAULT_MAX_TOKENS) -> Translation:
    """Input lines -> output lines; blank lines stay blank, over-long ones are truncated with a warning."""
    result = Translation([""] * len(lines))
    sentences = [normalise(s) for s in lines]
    keep = [i for i, s in enumerate(sentences) if s]
    if not keep:
        return result
    limit = longest_source_fitting(loaded.model.encoding.max_positions, settings.max_length_ratio,
                                   settings.max_length_extra, max_tokens)
    ids = loaded.tokenizer.encode([sentences[i] for i in keep])
    for n, row in enumerate(ids):
        if len(row) > limit:
            result.warnings.append(f"warning: input line {keep[n] + 1} has {len(row)} tokens, more than the "
                                   f"{limit} this model translates (--max-tokens={max_tokens}, encoding max_positions="
                                   f"{loaded.model.encoding.max_positions}); translating its first {limit}")
            ids[n] = row[:limit]
    translator = Translator(loaded.model, loaded.tokenizer, settings, device)
    for i, hyp in zip(keep, loaded.tokenizer.decode(translator.translate_ids(ids))):
        result.lines[i] = hyp
    return result


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        device = pick_device(args.device)
        loaded = load_model(args.checkpoint, device)
        warnings: list[str] = []
        lines = read_inputs(args, warnings)
        if not lines:
            print("warning: no input; give French sentences as arguments or one per line on stdin", file=sys.stderr)
            return 0
        settings = DecodeSettings(beam_size=args.beam, length_penalty=args.length_penalty)
        result = translate_lines(loaded, settings, lines, device, args.max_tokens)
    except (CheckpointError, ValueError, TypeError, RuntimeError, OSError) as error:  # RuntimeError: weights unfit
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    for warning in warnings + result.warnings:
        print(warning, file=sys.stderr)
    try:  # bytes, so the output is UTF-8 whatever the locale says
        sys.stdout.buffer.write("".join(line + "\n" for line in result.lines).encode("utf-8"))
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has gone, which is not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
