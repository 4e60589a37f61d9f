"""Checkpoints that survive a kill at any moment.

Every file is written atomically (temporary file beside it, fsync, rename), so a reader sees the old file or the new
one, never half of either. A run keeps `best.pt` and `last.pt` (older runs also kept `last.prev.pt`, the `last.pt`
before it, which the next save removes); a checkpoint that still turns out unreadable (copied half, bit rot) is
detected by the zip CRCs and `newest_valid_checkpoint` falls back to the next.

A checkpoint holds tensors and plain data only (dicts, lists, tuples, str, bytes, int, float, bool, None): the
config as a plain dict, the SentencePiece model as bytes, the RNG states as tensors and tuples of ints. It is read
with `torch.load(weights_only=True)`, so a file that holds any other pickled object (a function, a class) is refused
without running anything, and a record it lacks is named.
"""
from __future__ import annotations

import hashlib
import logging
import pickle
import re
import zipfile
from pathlib import Path
from typing import Any, Optional

import torch

from translate.io import atomic_write

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
# Config sections that must match for a checkpoint's weights to fit the model being built.
ARCHITECTURE_SECTIONS = ("model", "encoding", "ablation")
# Files a run folder may hold that `train.resume=auto` can continue from, the preferred first on equal steps.
RESUMABLE = ("last.pt", "last.prev.pt", "best.pt")
# The records of a checkpoint and their types (see Trainer.state).
RECORDS = {"config": dict, "tokenizer": bytes, "model": dict, "optimizer": dict, "scheduler": dict, "progress": dict,
           "rng": dict}
MODEL_RECORDS = ("config", "tokenizer", "model", "progress")   # what evaluating and translating read
RESUME_RECORDS = tuple(RECORDS)                                 # what continuing training reads


class CheckpointError(RuntimeError):
    pass


def weights_digest(weights: dict[str, torch.Tensor]) -> str:
    """SHA-256 of a model's weights (names, dtypes, shapes and bytes, in name order): two runs with equal digests
    hold the same model bit for bit, which a metrics.json can then show without shipping the checkpoint."""
    digest = hashlib.sha256()
    for name in sorted(weights):
        tensor = weights[name].detach().to("cpu").contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        # reshape(-1): a 0-dim tensor (a learned scalar, e.g. fire's c) cannot be viewed as bytes
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b"")
    return digest.hexdigest()


def save_checkpoint(path: Path, state: dict[str, Any], keep_previous: bool = False) -> None:
    atomic_write(path, lambda f: torch.save({"format": FORMAT_VERSION, **state}, f), keep_previous)


def load_checkpoint(path: Path, records: tuple[str, ...] = ("model", "progress")) -> dict[str, Any]:
    """The checkpoint's state dict; CheckpointError if it is missing, truncated, corrupt, not ours, holds anything
    but tensors and plain data (nothing in it is run), or lacks one of `records` (see RECORDS)."""
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"checkpoint {path} does not exist")
    if path.is_dir():
        raise CheckpointError(f"checkpoint {path} is a folder; expected a best.pt or last.pt file")
    with open(path, "rb") as f:
        head = f.read(4)
    if head and head != ZIP_MAGIC:   # torch.save writes a zip archive; a damaged one still starts like one
        kind = "a text file" if is_text(head) else "a file of another kind (not the zip archive torch.save writes)"
        raise CheckpointError(f"checkpoint {path} is {kind}, not a checkpoint: expected a best.pt or last.pt "
                              f"written by translate.train")
    try:
        with zipfile.ZipFile(path) as archive:  # torch.save writes a zip; its CRCs catch silent corruption
            damaged = archive.testzip()
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise CheckpointError(f"checkpoint {path} is unreadable (truncated or corrupt: {error})") from None
    if damaged is not None:
        raise CheckpointError(f"checkpoint {path} is corrupt: record {damaged} fails its CRC check")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:  # the weights-only unpickler met something else: nothing was run
        raise CheckpointError(refusal(path, error)) from None
    except Exception as error:  # missing records, a damaged pickle, ...: all mean "unusable"
        raise CheckpointError(f"checkpoint {path} is unreadable (truncated or corrupt: {one_line(error)})") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT_VERSION or "model" not in state:
        raise CheckpointError(f"checkpoint {path} is not a translate checkpoint of format {FORMAT_VERSION}")
    check_records(state, records, path)
    return state


ZIP_MAGIC = b"PK\x03\x04"


def is_text(head: bytes) -> bool:
    """Whether a file's first bytes read as UTF-8 text (printable characters and whitespace)."""
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(c.isprintable() or c.isspace() for c in text)


def one_line(error: Exception) -> str:
    return " ".join(str(error).split())


def refusal(path: Path, error: Exception) -> str:
    """Why a file that needs more than tensors and plain data is refused, in one line."""
    reason = unpickler_reason(error)
    found = re.search(r"GLOBAL ([\w.]+)", reason)  # the function or class the unpickler would have imported
    what = f"the Python object {found[1]}" if found else f"data other than tensors and plain values ({reason})"
    return (f"checkpoint {path} is refused: it holds {what}, which loading would run; nothing in it was run. "
            f"A translate checkpoint holds tensors and plain data only, so this file was not written by translate "
            f"or was altered")


def unpickler_reason(error: Exception) -> str:
    """The paragraph of torch's weights-only error that says what it met, without its general advice."""
    parts = [" ".join(p.split()) for p in str(error).split("\n\n") if p.strip()]
    general = ("Weights only load failed", "Check the documentation")
    return next((p for p in parts if not p.startswith(general)), parts[0] if parts else type(error).__name__)


def check_records(state: dict, records: tuple[str, ...], path: Path) -> None:
    """CheckpointError naming the first of `records` that `state` lacks or holds with the wrong type."""
    for name in records:
        expected = RECORDS.get(name, dict)
        if name not in state:
            raise CheckpointError(f"checkpoint {path} lacks the record {name!r}; a translate checkpoint holds "
                                  f"{', '.join(RECORDS)}")
        if not isinstance(state[name], expected):
            raise CheckpointError(f"checkpoint {path}: record {name!r} is a {type(state[name]).__name__}; expected "
                                  f"a {expected.__name__}")
    if "progress" in records and not isinstance(state["progress"].get("step"), int):
        raise CheckpointError(f"checkpoint {path}: record 'progress' has no integer 'step'")


def newest_valid_checkpoint(folder: Path) -> Optional[tuple[Path, dict[str, Any]]]:
    """(path, state) of the checkpoint with the most steps among RESUMABLE in `folder`, skipping unreadable ones.

    None when the folder holds none of them; CheckpointError when it holds some but every one is unusable.
    """
    found, problems = None, []
    for name in RESUMABLE:
        path = Path(folder) / name
        if not path.exists():
            continue
        try:
            state = load_checkpoint(path)
        except CheckpointError as error:
            log.warning("%s; trying the previous checkpoint", error)
            problems.append(str(error))
            continue
        if found is None or state["progress"]["step"] > found[1]["progress"]["step"]:
            found = (path, state)
    if found is None and problems:
        raise CheckpointError(f"no usable checkpoint in {folder}: " + "; ".join(problems) +
                              ". Start over in a new run folder, or pass train.resume=null to overwrite this one.")
    if found is not None and problems:
        log.warning("resuming from %s (step %d) instead", found[0], found[1]["progress"]["step"])
    return found


def mismatched_keys(saved: dict, current: dict, prefix: str = "") -> list[str]:
    """Dotted keys whose values differ between two nested config dicts."""
    keys = []
    for key in sorted(set(saved) | set(current)):
        a, b = saved.get(key), current.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            keys += mismatched_keys(a, b, f"{prefix}{key}.")
        elif a != b:
            keys.append(f"{prefix}{key} (checkpoint: {a!r}, now: {b!r})")
    return keys


def check_compatible(saved_config: dict, current_config: dict, path: Path) -> None:
    """Refuse to load weights built for another architecture, naming every mismatched key."""
    saved = {s: saved_config.get(s, {}) for s in ARCHITECTURE_SECTIONS}
    current = {s: current_config.get(s, {}) for s in ARCHITECTURE_SECTIONS}
    saved["model"] = {k: v for k, v in saved["model"].items() if k not in ("dropout", "attention_dropout")}
    current["model"] = {k: v for k, v in current["model"].items() if k not in ("dropout", "attention_dropout")}
    diff = mismatched_keys(saved, current)
    if diff:
        raise CheckpointError(f"checkpoint {path} was trained with another configuration: " + "; ".join(diff))
