"""Bad input is answered before any work, with a message and never a traceback: corpora, the translation
command, the run folder, a full disk during training."""
from __future__ import annotations

import errno
import gzip
import io
import logging
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from translate.assembly.settings import validate_config
from conftest import TINY_RUN, make_config, untrained_checkpoint
from translate.cli import translate as cli
from translate.data.cleaning import Pair
from translate.data.corpora import CorpusError, Multi30k, Tatoeba
from translate.training import checkpoint as ckpt
from translate.training.checkpoint import load_checkpoint
from translate.io import WriteError
from translate.assembly.trainer import build_trainer

REPO = Path(__file__).resolve().parents[1]


# -- corpora --------------------------------------------------------------------------------------------------------

def tatoeba_zip(path: Path, lines: list[bytes], member: str = "fra.txt") -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(member, b"".join(line + b"\n" for line in lines))
    return path


GOOD = [f"Sentence {i}.\tPhrase {i}.".encode() for i in range(12)]


def test_tatoeba_bad_lines_are_skipped_and_counted(tmp_path, caplog):
    bad = [b"no tab at all", b"a\tb\tc\td", b"\tempty english", b"Empty French.\t", b"Bad.\t\xff\xfe"]
    path = tatoeba_zip(tmp_path / "fra-eng.zip", GOOD + bad)
    with caplog.at_level(logging.INFO):
        splits = Tatoeba(valid_size=2, test_size=2).load(str(path))
    assert len(splits.train) + len(splits.valid) + len(splits.test) == 12
    assert Pair("Phrase 3.", "Sentence 3.") in splits.train + splits.valid + splits.test
    assert "dropped {'not 2 or 3 tab-separated columns': 2, 'empty side': 2, 'bad UTF-8': 1}" in caplog.text
    assert splits.dropped == {"not 2 or 3 tab-separated columns": 2, "empty side": 2, "bad UTF-8": 1}  # metrics.json


def test_a_runs_dropped_pairs_are_typed_in_metrics_and_older_runs_still_load():
    from translate.analysis.run.metrics_json import RunMetrics

    assert RunMetrics.read({"corpus_dropped": {"bad UTF-8": 3}}).corpus_dropped == {"bad UTF-8": 3}
    assert RunMetrics.read({"bleu": 20.0, "steps": 10}).corpus_dropped == {}


@pytest.mark.parametrize("content,message", [
    (b"", "is not a readable zip file"),
    (b"English\tFrench\n", "is not a readable zip file"),
])
def test_tatoeba_file_that_is_not_a_zip(tmp_path, content, message):
    (tmp_path / "fra-eng.zip").write_bytes(content)
    with pytest.raises(CorpusError, match=message):
        Tatoeba(valid_size=2, test_size=2).load(str(tmp_path / "fra-eng.zip"))


def test_tatoeba_zip_without_fra_txt(tmp_path):
    path = tatoeba_zip(tmp_path / "fra-eng.zip", GOOD, member="deu.txt")
    with pytest.raises(CorpusError, match=r"holds \['deu.txt'\], but no fra.txt"):
        Tatoeba(valid_size=2, test_size=2).load(str(path))


def test_tatoeba_damaged_member_is_a_clear_error(tmp_path):
    path = tatoeba_zip(tmp_path / "fra-eng.zip", GOOD * 50)
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0xFF  # inside the compressed fra.txt
    path.write_bytes(bytes(data))
    with pytest.raises(CorpusError, match="fra.txt is damaged .*download the zip again"):
        Tatoeba(valid_size=2, test_size=2).load(str(path))


def test_tatoeba_with_only_bad_lines_is_an_error_naming_the_drops(tmp_path):
    path = tatoeba_zip(tmp_path / "fra-eng.zip", [b"no tab", b"\t"])
    with pytest.raises(CorpusError, match="empty after filtering .*not 2 or 3 tab-separated columns"):
        Tatoeba(valid_size=2, test_size=2).load(str(path))


def multi30k_folder(folder: Path, fr: bytes, en: bytes, gz: bool = False) -> Path:
    folder.mkdir(exist_ok=True)
    for split in ("train", "val", "test_2016_flickr"):
        for lang, data in (("fr", fr), ("en", en)):
            name = folder / f"{split}.{lang}{'.gz' if gz else ''}"
            name.write_bytes(gzip.compress(data) if gz else data)
    return folder


def test_multi30k_bad_utf8_line_is_dropped_keeping_alignment(tmp_path, caplog):
    fr = b"un chien\nun \xe9chat\ntrois oiseaux\n"     # latin-1 byte on line 2
    en = b"a dog\na cat\nthree birds\n"
    folder = multi30k_folder(tmp_path / "m", fr, en, gz=True)
    with caplog.at_level(logging.INFO):
        splits = Multi30k().load(str(folder))
    assert splits.train == [Pair("un chien", "a dog"), Pair("trois oiseaux", "three birds")]
    assert "'bad UTF-8': 3" in caplog.text  # one per split
    assert splits.dropped == {"bad UTF-8": 3}


def test_multi30k_line_separator_inside_a_line_keeps_alignment(tmp_path):
    fr = "un\u2028chien\ndeux chats\n".encode()
    en = b"a dog\ntwo cats\n"
    splits = Multi30k().load(str(multi30k_folder(tmp_path / "m", fr, en)))
    assert splits.train[1] == Pair("deux chats", "two cats")


def test_multi30k_misaligned_files(tmp_path):
    folder = multi30k_folder(tmp_path / "m", b"un\ndeux\n", b"one\n")
    with pytest.raises(CorpusError, match="train.fr has 2 lines but .*train.en has 1; the files must be line-aligned"):
        Multi30k().load(str(folder))


def test_multi30k_damaged_gzip_and_missing_file(tmp_path):
    folder = multi30k_folder(tmp_path / "m", b"un\n", b"one\n", gz=True)
    (folder / "val.en.gz").write_bytes(b"not gzip at all")
    with pytest.raises(CorpusError, match=r"val.en.gz cannot be read \(Not a gzipped file"):
        Multi30k().load(str(folder))
    (folder / "val.en.gz").unlink()
    with pytest.raises(CorpusError, match="has no val.en or val.en.gz"):
        Multi30k().load(str(folder))


# -- the translation command ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory, tiny_data):
    """An untrained tiny model with a learned table of 40 positions: the command must respect it."""
    cache = tmp_path_factory.getbasetemp()
    cfg = make_config(*TINY_RUN, f"data.cache_dir={cache}", "encoding=learned", "encoding.max_positions=40")
    return untrained_checkpoint(cfg, tiny_data, tmp_path_factory.mktemp("ckpt") / "best.pt")


def run_cli(monkeypatch, capsys, args: list[str], stdin: bytes = b"") -> tuple[int, list[str], str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = cli.main(args)
    out, err = capsys.readouterr()
    return code, out.split("\n")[:-1], err


def test_blank_lines_give_blank_lines_and_order_is_kept(checkpoint, monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, ["--checkpoint", str(checkpoint)],
                             b"Bonjour.\n\n   \t \nMerci beaucoup.\n")
    assert code == 0 and len(out) == 4 and out[1] == "" and out[2] == "" and err == ""


def test_no_input_at_all_is_a_warning(checkpoint, monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, ["--checkpoint", str(checkpoint)], b"")
    assert code == 0 and out == []
    assert err == "warning: no input; give French sentences as arguments or one per line on stdin\n"


def test_non_utf8_bytes_on_stdin_and_in_arguments(checkpoint, monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, ["--checkpoint", str(checkpoint)], b"caf\xe9 cr\xe8me\nbon\n")
    assert code == 0 and len(out) == 2
    assert err == "warning: input line 1 is not valid UTF-8; undecodable bytes were replaced by U+FFFD\n"
    # how Python hands over an argument holding the byte 0xE9
    code, out, err = run_cli(monkeypatch, capsys, ["--checkpoint", str(checkpoint), "ok", "caf\udce9"])
    assert code == 0 and len(out) == 2 and "input line 2 is not valid UTF-8" in err


def test_other_scripts_emoji_and_control_characters(checkpoint, monkeypatch, capsys):
    lines = ["日本語の文です。", "مرحبا بالعالم", "Привет", "🙂🙂🙂", "a\x00b\x07c", "\u200b", "\ufeffBonjour"]
    code, out, err = run_cli(monkeypatch, capsys, ["--checkpoint", str(checkpoint)],
                             "\n".join(lines).encode() + b"\n")
    assert code == 0 and len(out) == len(lines) and err == ""


def test_very_long_input_is_truncated_with_a_warning(checkpoint, monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, ["--checkpoint", str(checkpoint)],
                             b"court\n" + ("mot " * 5000).encode() + b"\n")
    assert code == 0 and len(out) == 2
    # 40 positions: a source of n tokens + eos may give 1.5 * (n + 1) + 10 output tokens, so n <= 19
    assert "warning: input line 2 has" in err and "more than the 19 this model translates" in err
    assert "(--max-tokens=1000, encoding max_positions=40)" in err


def test_max_tokens_option_caps_unbounded_input(checkpoint, monkeypatch, capsys):
    code, out, err = run_cli(monkeypatch, capsys, ["--checkpoint", str(checkpoint), "--max-tokens", "3"],
                             b"un deux trois quatre cinq six\n")
    assert code == 0 and "more than the 3 this model translates" in err


@pytest.mark.parametrize("args,message", [
    (["--beam", "0"], "--beam=0 is not allowed: expected an integer >= 1"),
    (["--length-penalty", "nan"], "--length-penalty=nan is not allowed: expected a number in [0, 10]"),
    (["--max-tokens", "0"], "--max-tokens=0 is not allowed: expected an integer >= 1"),
    (["--beam", "two"], "argument --beam: invalid int value: 'two'"),
])
def test_bad_options(checkpoint, capsys, args, message):
    with pytest.raises(SystemExit) as caught:
        cli.parse_args(["--checkpoint", str(checkpoint), *args])
    assert caught.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("name,content,message", [
    ("missing.pt", None, "does not exist"),
    ("", None, "is a folder; expected a best.pt or last.pt file"),
    ("empty.pt", b"", "is unreadable (truncated or corrupt"),
    ("text.pt", b"hello", "is a text file, not a checkpoint: expected a best.pt or last.pt"),
    ("binary.pt", b"\x00\x01\x02\x03junk", "is a file of another kind (not the zip archive torch.save writes), not a "
                                            "checkpoint"),
])
def test_bad_checkpoints(tmp_path, monkeypatch, capsys, name, content, message):
    if content is not None:
        (tmp_path / name).write_bytes(content)
    code, out, err = run_cli(monkeypatch, capsys, ["--checkpoint", str(tmp_path / name), "Bonjour."])
    assert code == 2 and out == [] and err.startswith("error: checkpoint ") and message in err


def test_command_end_to_end_never_prints_a_traceback(checkpoint):
    result = subprocess.run([sys.executable, "-m", "translate.translate", "--checkpoint", str(checkpoint)],
                            input=b"\xff\xfe\x00\n" + "日本語\n".encode() + b"x " * 3000 + b"\n", cwd=REPO,
                            capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr and len(result.stdout.splitlines()) == 3


# -- run folder and disk --------------------------------------------------------------------------------------------

def test_run_folder_that_cannot_be_created_fails_before_any_work(tiny_config, tmp_path, monkeypatch):
    from translate.cli import train

    monkeypatch.setattr(train, "prepare_data", lambda cfg: pytest.fail("data was prepared"))
    (tmp_path / "a_file").write_text("")
    with pytest.raises(WriteError, match=r"could not write .*a_file/run/config.yaml: Not a directory \(ENOTDIR\); "
                                         r"nothing was written"):
        train.run(tiny_config(), tmp_path / "a_file" / "run")


def test_train_command_checks_the_run_folder_before_hydra(tmp_path):
    (tmp_path / "a_file").write_text("")
    result = subprocess.run([sys.executable, "-m", "translate.train", f"hydra.run.dir={tmp_path}/a_file/run"],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr == (f"error: hydra.run.dir={tmp_path}/a_file/run: cannot write there: Not a directory "
                             f"(ENOTDIR). Fix: choose another hydra.run.dir.\n")


def test_disk_full_during_training_keeps_the_previous_checkpoint(tiny_config, tiny_data, tmp_path, monkeypatch):
    from translate.training.device import make_runtime
    from translate.assembly.trainer import build_trainer

    cfg = tiny_config("train.max_steps=6", "train.save_every=2", "train.valid_every=1000", "train.max_tokens=600")
    trainer = build_trainer(validate_config(cfg), tiny_data, make_runtime("cpu", "fp32"), tmp_path)
    real_save, calls = torch.save, {"n": 0}

    def fill_disk_on_second_save(obj, f, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            f.write(b"\0" * 4096)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_save(obj, f, *args, **kwargs)
    monkeypatch.setattr(ckpt.torch, "save", fill_disk_on_second_save)
    with pytest.raises(WriteError, match=r"last.pt: No space left on device \(ENOSPC\); the existing last.pt is "
                                         r"intact. Fix: free some disk space."):
        trainer.train()
    assert load_checkpoint(tmp_path / "last.pt")["progress"]["step"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.pt", "tb"]
