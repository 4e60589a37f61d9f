"""Try every kind of bad input and print a Markdown table of what each one gets: docs/errors.md is its output.

    python scripts/error_catalog.py > docs/errors.md      # about a minute on 2 CPU cores

Nothing here is written by hand: each row runs the real code (config validation, corpus readers, checkpoint
loading and writing, the trainer, the translation command; three rows launch `python -m translate.train`) and
records the exact message. Temporary paths are shown as <tmp>.
"""
from __future__ import annotations

import contextlib
import errno
import gzip
import io
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch
from hydra.errors import ConfigCompositionException
from omegaconf import OmegaConf, open_dict

from translate import io as atomic_io
from translate.assembly.settings import data_settings
from translate.assembly.compose import compose
from translate.cli import translate as translate_cli
from translate.cli.train import resume_from
from translate.assembly.settings import validate_config
from translate.assembly.trained import load_model
from translate.config.errors import from_composition
from translate.data.cleaning import DropCounts, clean_pairs
from translate.data.corpora import Multi30k, Tatoeba
from translate.data.pipeline import prepare_data
from translate.data.test_sets import parse_test_sets, read_file_pair
from translate.training import checkpoint as ckpt
from translate.training.device import make_runtime
from translate.assembly.trainer import build_trainer, model_from_config

ROOT = Path(__file__).resolve().parents[1]

SHARED_ZIP = ROOT.parent / "shared" / "data" / "tatoeba" / "fra-eng.zip"
TMP = Path(tempfile.mkdtemp(prefix="error-catalog-"))


@dataclass
class Row:
    area: str
    tried: str
    outcome: str
    message: str


def outcome_of(action: Callable[[], object]) -> tuple[str, str]:
    """Run `action`; return (what happened, the message), capturing warnings logged on the way."""
    records = io.StringIO()
    handler = logging.StreamHandler(records)
    handler.setLevel(logging.WARNING)
    logging.getLogger().addHandler(handler)
    try:
        result = action()
    except SystemExit as stop:
        return f"exit {stop.code}", records.getvalue().strip()
    except Exception as error:  # the point: record whatever comes out, with its type
        return type(error).__name__, str(error)
    finally:
        logging.getLogger().removeHandler(handler)
    if isinstance(result, tuple):  # (outcome, message) computed by the action itself
        return result
    return "accepted (warning)" if records.getvalue() else "accepted", records.getvalue().strip() or str(result or "")


# -- config ---------------------------------------------------------------------------------------------------------

CONFIG_OVERRIDES = [
    "train.max_steps=ten", "train.max_steps=2.5", "train.lr=0", "train.lr=nan", "train.betas=[0.9]",
    "train.max_bad_steps=0", "train.precision=fp16", "train.device=tpu", "train.compile=maybe", "train.resume=''",
    "model.n_heads=3", "model.d_model=0", "model.dropout=1", "model.norm_position=middle", "decode.beam_size=0",
    "decode.length_penalty=inf", "data.tokenizer.vocab_size=8", "data.tokenizer.model_type=word",
    "data.train_min_words=9 data.train_max_words=3", "data.corpus.valid_size=0",
    "data.corpus._target_=nowhere.Corpus", "encoding.base=abc", "encoding.merge=sum", "+encoding.extra=1",
    "encoding._target_=translate.encodings.Nope", "encoding=learned encoding.max_positions=0",
    "ablation=zero_dims ablation.from=999", "model=small ablation=zero_dims",
    "eval.at_test=[{ablation:zero_dimz}]", "eval.at_test=[{ablation:zero_dims,fro:3}]", "eval.at_test=[{ablation:zero_dims}]",
]


def composed(*overrides: str):
    """The config as the command line composes it; a type error or unknown key is refused there (the schemas)."""
    try:
        return compose(*overrides)
    except ConfigCompositionException as error:
        raise from_composition(error) from None


def validated(cfg) -> str:
    validate_config(cfg)
    return ""


def config_rows() -> list[Row]:
    rows = []
    for overrides in CONFIG_OVERRIDES:
        outcome, message = outcome_of(lambda: validated(composed("model=tiny", *overrides.split())))
        rows.append(Row("config", f"`{overrides}`", outcome, message))
    for key, value in (("train.lr", "${nowhere}"), ("decode.beam_size", "???")):
        cfg = compose("model=tiny")
        with open_dict(cfg):
            OmegaConf.update(cfg, key, value, merge=False)
        outcome, message = outcome_of(lambda: validated(cfg))
        rows.append(Row("config", f"`{key}={value}` (in a config file)", outcome, message))
    return rows


def cli(args: list[str], stdin: bytes = b"", timeout: float = 300) -> tuple[str, str]:
    result = subprocess.run([sys.executable, *args], cwd=ROOT, input=stdin, capture_output=True, timeout=timeout)
    return f"exit {result.returncode}", result.stderr.decode("utf-8", "replace").strip()


def hydra_rows() -> list[Row]:
    (TMP / "a_file").write_text("")
    cases = [("`train.max_step=3` (misspelt key)", ["train.max_step=3"]),
             ("`model=huge` (no such option)", ["model=huge"]),
             ("`encoding=ropee` (misspelt option)", ["encoding=ropee"]),
             ("`hydra.run.dir=<tmp>/a_file/run` (a file in the way)", [f"hydra.run.dir={TMP}/a_file/run"])]
    rows = []
    for tried, args in cases:
        outcome, message = cli(["-m", "translate.train", *args])
        rows.append(Row("command line", tried, outcome, message.split("\nSet the environment variable")[0]))
    return rows


# -- corpora --------------------------------------------------------------------------------------------------------

def tatoeba_zip(name: str, lines: list[bytes], member: str = "fra.txt") -> Path:
    path = TMP / name
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(member, b"".join(line + b"\n" for line in lines))
    return path


def drops_of(lines: list[bytes]) -> tuple[str, str]:
    drops = DropCounts()
    pairs = clean_pairs(Tatoeba.read_lines(tatoeba_zip("lines.zip", lines), drops), drops)
    return "skipped, counted", f"kept {len(pairs)}; dropped {dict(drops.reasons)} (logged at load)"


def multi30k_folder(name: str, fr: bytes, en: bytes, gz: bool = True) -> Path:
    folder = TMP / name
    folder.mkdir()
    for split in ("train", "val", "test_2016_flickr"):
        for lang, data in (("fr", fr), ("en", en)):
            (folder / f"{split}.{lang}{'.gz' if gz else ''}").write_bytes(gzip.compress(data) if gz else data)
    return folder


def multi30k_drops() -> tuple[str, str]:
    drops = DropCounts()
    folder = multi30k_folder("m_utf8", b"un chien\nun \xe9chat\n", b"a dog\na cat\n")
    pairs = Multi30k().read_split(folder, "train", drops)
    return "skipped, counted", f"kept {len(pairs)}; dropped {dict(drops.reasons)} (logged at load)"


def corpus_rows() -> list[Row]:
    good = [f"Sentence {i}.\tPhrase {i}.".encode() for i in range(40)]
    damaged = tatoeba_zip("damaged.zip", good * 20)
    data = bytearray(damaged.read_bytes())
    data[len(data) // 3] ^= 0xFF
    damaged.write_bytes(bytes(data))
    (TMP / "empty.zip").write_bytes(b"")
    no_gzip = multi30k_folder("m_badgz", b"un\n", b"one\n")
    (no_gzip / "val.en.gz").write_bytes(b"plain text")
    missing = multi30k_folder("m_missing", b"un\n", b"one\n")
    (missing / "test_2016_flickr.fr.gz").unlink()
    tatoeba = Tatoeba(valid_size=2, test_size=2)
    cases = [
        ("Tatoeba line without a tab", lambda: drops_of([b"Go.\tVa !", b"no tab here"])),
        ("Tatoeba line with 4 columns", lambda: drops_of([b"Go.\tVa !", b"a\tb\tc\td"])),
        ("Tatoeba line with an empty side", lambda: drops_of([b"Go.\tVa !", b"\tVa !", b"Go.\t  "])),
        ("Tatoeba line that is not UTF-8", lambda: drops_of([b"Go.\tVa !", b"Caf\xe9.\tCaf\xe9."])),
        ("Tatoeba file of 0 bytes", lambda: tatoeba.load(str(TMP / "empty.zip"))),
        ("Tatoeba zip without fra.txt", lambda: tatoeba.load(str(tatoeba_zip("deu.zip", good, "deu.txt")))),
        ("Tatoeba zip whose fra.txt is damaged", lambda: tatoeba.load(str(damaged))),
        ("Tatoeba zip with only bad lines", lambda: tatoeba.load(str(tatoeba_zip("bad.zip", [b"x", b"\t"])))),
        ("data.path that does not exist", lambda: tatoeba.load(str(TMP / "nowhere"))),
        ("Multi30k line that is not UTF-8", multi30k_drops),
        ("Multi30k .fr/.en with 2 and 1 lines", lambda: Multi30k().load(str(multi30k_folder(
            "m_misaligned", b"un\ndeux\n", b"one\n")))),
        ("Multi30k .gz that is not gzip", lambda: Multi30k().load(str(no_gzip))),
        ("Multi30k split file missing", lambda: Multi30k().load(str(missing))),
    ]
    return [Row("corpus", tried, *outcome_of(action)) for tried, action in cases]


# -- your own files, scored by translate.evaluate ---------------------------------------------------------------------

def file_pair(name: str, fr: bytes, en: bytes) -> tuple[str, str]:
    """Reads a pair of line-aligned files as `eval.test_sets=[{name, src, ref}]` does: which lines are scored."""
    (TMP / f"{name}.fr").write_bytes(fr)
    (TMP / f"{name}.en").write_bytes(en)
    spec, = parse_test_sets([{"name": name, "src": str(TMP / f"{name}.fr"), "ref": str(TMP / f"{name}.en")}])
    pairs, lines = read_file_pair(spec)
    return (f"{len(pairs)} of {lines.lines} lines scored; hypotheses keep every line",
            "; ".join(f"{s.file} line {s.line}: {s.why}" for s in lines.skipped))


def own_file_rows() -> list[Row]:
    cases = [
        ("a source line that is not UTF-8", lambda: file_pair("latin1", b"Je suis all\xe9.\nBonjour.\n",
                                                             b"I went.\nHello.\n")),
        ("an empty source line", lambda: file_pair("gap", b"Bonjour.\n\nMerci.\n", b"Hello.\nHi.\nThanks.\n")),
        ("a file that is not text (NUL bytes)", lambda: file_pair("binary", b"PK\x03\x04\x00\x00\n", b"x\n")),
        ("files of 2 and 1 lines", lambda: file_pair("uneven", b"un\ndeux\n", b"one\n")),
    ]
    return [Row("own files (evaluate)", tried, *outcome_of(action)) for tried, action in cases]


# -- checkpoints and disk -------------------------------------------------------------------------------------------

def state(step: int) -> dict:
    return {"model": {"w": torch.full((64, 64), float(step))}, "progress": {"step": step}}


class RunsACommand:
    """What a hostile checkpoint carries: unpickling it would call os.system."""

    def __reduce__(self):
        return os.system, ("echo this never runs",)


def checkpoint_rows() -> list[Row]:
    run = TMP / "run"
    ckpt.save_checkpoint(run / "best.pt", state(10))
    ckpt.save_checkpoint(run / "last.pt", state(20))
    data = (run / "last.pt").read_bytes()
    (run / "last.pt").write_bytes(data[: len(data) // 2])

    def fallback():
        path, found = ckpt.newest_valid_checkpoint(run)
        return "another one used", f"resumes from {path.name} (step {found['progress']['step']})"

    flipped = TMP / "flipped.pt"
    ckpt.save_checkpoint(flipped, state(3))
    with zipfile.ZipFile(flipped) as archive:
        record = max((i for i in archive.infolist() if "/data/" in i.filename), key=lambda i: i.file_size)
    raw = bytearray(flipped.read_bytes())
    header = record.header_offset
    offset = header + 30 + int.from_bytes(raw[header + 26: header + 28], "little") + \
        int.from_bytes(raw[header + 28: header + 30], "little") + record.file_size // 2
    raw[offset] ^= 0xFF
    flipped.write_bytes(bytes(raw))
    (TMP / "broken").mkdir()
    (TMP / "broken" / "last.pt").write_bytes(b"junk")
    hostile = TMP / "hostile.pt"
    torch.save({"format": 1, "config": RunsACommand(), "model": {}, "progress": {"step": 1}}, hostile)
    no_config = TMP / "no_config.pt"
    ckpt.save_checkpoint(no_config, state(4))

    def disk_full():
        target = TMP / "full" / "last.pt"
        ckpt.save_checkpoint(target, state(5), keep_previous=True)
        real = torch.save

        def fill(obj, f, *args, **kwargs):
            f.write(b"\0" * 1000)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        ckpt.torch.save = fill
        try:
            ckpt.save_checkpoint(target, state(6), keep_previous=True)
        finally:
            ckpt.torch.save = real

    def refused():
        real = atomic_io.tempfile.mkstemp
        atomic_io.tempfile.mkstemp = lambda *a, **k: (_ for _ in ()).throw(PermissionError(errno.EACCES, "Permission "
                                                                                                     "denied"))
        try:
            atomic_io.atomic_write_text(TMP / "readonly" / "config.yaml", "x")
        finally:
            atomic_io.tempfile.mkstemp = real

    cases = [
        ("`train.resume=auto`, last.pt truncated, best.pt good", fallback),
        ("checkpoint with one flipped byte inside a tensor", lambda: ckpt.load_checkpoint(flipped)),
        ("checkpoint carrying a pickled callable (os.system)", lambda: ckpt.load_checkpoint(hostile)),
        ("checkpoint without its config record, to evaluate or translate", lambda: load_model(no_config)),
        ("`train.resume=auto`, every checkpoint unreadable", lambda: ckpt.newest_valid_checkpoint(TMP / "broken")),
        ("disk full (ENOSPC) while writing last.pt", disk_full),
        ("`train.resume=<tmp>/no/such.pt`", lambda: resume_from(str(TMP / "no" / "such.pt"), TMP)),
        ("run folder not writable (EACCES)", refused),
    ]
    return [Row("checkpoint", tried, *outcome_of(action)) for tried, action in cases]


# -- training faults ------------------------------------------------------------------------------------------------

def small_corpus() -> Path:
    pairs = clean_pairs(Tatoeba.read_lines(SHARED_ZIP, DropCounts()), DropCounts())[::40]
    path = TMP / "small" / "fra-eng.zip"
    path.parent.mkdir()
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("fra.txt", "".join(f"{p.en}\t{p.fr}\n" for p in pairs))
    return path


TRAIN = ["model=tiny", "data.corpus.valid_size=40", "data.corpus.test_size=40", "data.valid_limit=20",
         "data.test_limit=8", "data.tokenizer.vocab_size=500", "train.max_tokens=500", "train.warmup_steps=10",
         "train.valid_every=1000", "train.valid_bleu_limit=4", "train.max_minutes=null", "train.num_threads=1",
         "report.images=[]", "report.bootstrap_samples=0"]


def training_rows(corpus: Path) -> list[Row]:
    cfg = compose(*TRAIN, f"data.path={corpus}", f"data.cache_dir={TMP / 'cache'}", "train.max_bad_steps=3")
    data = prepare_data(data_settings(cfg))

    def nan_from_step_3():
        trainer = build_trainer(validate_config(cfg), data, make_runtime("cpu", "fp32"), TMP / "nan")
        calls = {"n": 0}

        def hook(module, inputs, output):
            calls["n"] += module.training
            return output * float("nan") if module.training and calls["n"] >= 3 else output
        trainer.model.decoder_norm.register_forward_hook(hook)
        trainer.train()

    def learned_too_short():
        build_trainer(validate_config(compose(*TRAIN, f"data.path={corpus}", "encoding=learned",
                                              "encoding.max_positions=12")), data, make_runtime("cpu", "fp32"),
                      TMP / "short")

    def ctrl_c():
        run_dir = TMP / "interrupted"
        args = [sys.executable, "-m", "translate.train", *TRAIN, f"data.path={corpus}",
                f"data.cache_dir={TMP / 'cache'}", "train.max_steps=500", f"hydra.run.dir={run_dir}"]
        process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        log = run_dir / "train.log"
        while process.poll() is None and not (log.exists() and "target padding" in log.read_text()):
            time.sleep(0.05)
        time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=300)
        return f"exit {process.returncode}", "\n".join(line for line in err.splitlines() if "[" not in line[:1])

    cases = [
        ("non-finite loss from the 3rd step on (`train.max_bad_steps=3`)", nan_from_step_3),
        ("learned table of 12 positions, longer sentences in the data", learned_too_short),
        ("Ctrl-C (SIGINT) during training; SIGTERM is the same", ctrl_c),
    ]
    return [Row("training", tried, *outcome_of(action)) for tried, action in cases]


# -- the translation command ----------------------------------------------------------------------------------------

def translation_rows(corpus: Path) -> list[Row]:
    cfg = compose(*TRAIN, f"data.path={corpus}", f"data.cache_dir={TMP / 'cache'}", "encoding=learned",
                      "encoding.max_positions=40")
    tokenizer = prepare_data(data_settings(cfg)).tokenizer
    torch.manual_seed(0)
    model = model_from_config(cfg, len(tokenizer), tokenizer.pad_id)
    checkpoint = TMP / "best.pt"
    ckpt.save_checkpoint(checkpoint, {"config": OmegaConf.to_container(cfg, resolve=True), "model": model.state_dict(),
                                      "tokenizer": tokenizer.model_proto, "progress": {"step": 0}})
    (TMP / "junk.pt").write_bytes(b"junk")

    def run(args: list[str], stdin: bytes = b"") -> tuple[str, str]:
        err, out = io.StringIO(), io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                code = translate_cli.main(["--checkpoint", str(checkpoint), *args])
        except SystemExit as stop:
            code = stop.code
        finally:
            sys.stdin = sys.__stdin__
        out.flush()
        lines = out.buffer.getvalue().decode().count("\n")
        message = err.getvalue().strip()
        if message.startswith("usage:"):  # argparse: usage lines, then the error
            message = "(usage, then) " + message.splitlines()[-1]
        return f"exit {code}, {lines} output line(s)", message or "(nothing on stderr)"

    cases = [
        ("empty stdin", lambda: run([])),
        ("blank and whitespace-only lines", lambda: run([], b"\n   \t \n")),
        ("bytes that are not UTF-8 (`caf\\xe9`)", lambda: run([], b"caf\xe9\n")),
        ("argument with undecodable bytes", lambda: run(["caf\udce9"])),
        ("other scripts, emoji, control characters", lambda: run([], "日本語。\nمرحبا\n🙂\na\x00b\n".encode())),
        ("5,000 words, model with a 40-position learned table", lambda: run([], ("mot " * 5000).encode())),
        ("`--max-tokens 3` on a long sentence", lambda: run(["--max-tokens", "3"], b"un deux trois quatre cinq\n")),
        ("`--beam 0`", lambda: run(["--beam", "0", "x"])),
        ("`--length-penalty nan`", lambda: run(["--length-penalty", "nan", "x"])),
        ("`--checkpoint` that is not a checkpoint", lambda: run(["--checkpoint", str(TMP / "junk.pt"), "x"])),
        ("`--checkpoint` that does not exist", lambda: run(["--checkpoint", str(TMP / "nowhere.pt"), "x"])),
    ]
    return [Row("translate command", tried, *outcome_of(action)) for tried, action in cases]


def cell(text: str) -> str:
    text = text.replace(str(TMP), "<tmp>").replace(str(ROOT) + "/", "").replace(str(ROOT.parent), "..")
    return text.replace("|", "\\|").replace("\n", "<br>") or " "


def main() -> None:
    logging.basicConfig(level=logging.ERROR)
    corpus = small_corpus()
    rows = (config_rows() + hydra_rows() + corpus_rows() + own_file_rows() + checkpoint_rows() + training_rows(corpus)
            + translation_rows(corpus))
    print("# What each bad input gets\n")
    print("Generated by `python scripts/error_catalog.py > docs/errors.md`: every row ran the real code. The training "
          "command prints the config, corpus, checkpoint and training messages as `error: <message>` and exits "
          "with status 2; an interrupted run exits with 128 + the signal number. `<tmp>` is a temporary folder.\n")
    print("| area | bad input | outcome | message |")
    print("|---|---|---|---|")
    for row in rows:
        print(f"| {row.area} | {cell(row.tried)} | {cell(row.outcome)} | {cell(row.message)} |")


if __name__ == "__main__":
    main()
