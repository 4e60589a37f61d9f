"""Checkpoints that survive a kill at any moment.

Every file is written atomically (temporary file beside it, fsync, rename), so a reader sees the old file or the new
one, never half of either. `last.pt` keeps its predecessor as `last.prev.pt`; a checkpoint that still turns out
unreadable (copied half, bit rot) is detected by the zip CRCs and `newest_valid_checkpoint` falls back to the next.
"""
from __future__ import annotations

import errno
import logging
import os
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any, Callable, Optional

import torch

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
# Config sections that must match for a checkpoint's weights to fit the model being built.
ARCHITECTURE_SECTIONS = ("model", "encoding", "ablation")
# Files a run folder may hold that `train.resume=auto` can continue from, the preferred first on equal steps.
RESUMABLE = ("last.pt", "last.prev.pt", "best.pt")
# Seconds to pause half-way through every atomic write; lets tests kill a process inside a checkpoint write.
WRITE_PAUSE_ENV = "TRANSLATE_TEST_WRITE_PAUSE"
TMP_SUFFIX = ".tmp"
# What to do about the usual reasons a write fails.
WRITE_ADVICE = {
    errno.ENOSPC: "free some disk space",
    errno.EDQUOT: "free some space under your disk quota",
    errno.EACCES: "make the folder writable or choose another hydra.run.dir",
    errno.EPERM: "make the folder writable or choose another hydra.run.dir",
    errno.EROFS: "the file system is read-only; choose another hydra.run.dir",
}


class CheckpointError(RuntimeError):
    pass


class WriteError(CheckpointError):
    """A file could not be written; the file it would have replaced is intact."""


def _file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


FILE_MODE = _file_mode()  # mkstemp makes 0600 files; results should be as readable as any other file


def previous_path(path: Path) -> Path:
    """last.pt -> last.prev.pt"""
    return path.with_name(f"{path.stem}.prev{path.suffix}")


class _PauseHalfway:
    """A file wrapper that sleeps once after the first write, so the temporary file is half written."""

    def __init__(self, f, seconds: float) -> None:
        self.f, self.seconds, self.paused = f, seconds, False

    def write(self, data) -> int:
        n = self.f.write(data)
        if not self.paused:
            self.f.flush()
            self.paused = True
            time.sleep(self.seconds)
        return n

    def __getattr__(self, name):
        return getattr(self.f, name)


def write_error(path: Path, error: OSError, keep_previous: bool = False) -> WriteError:
    reason = error.strerror or str(error)
    code = errno.errorcode.get(error.errno, "")
    state = f"the existing {path.name} is intact" if path.exists() else "nothing was written"
    if keep_previous and not path.exists() and previous_path(path).exists():
        state = f"the previous checkpoint {previous_path(path).name} is intact"
    advice = WRITE_ADVICE.get(error.errno, "check the folder and the disk")
    return WriteError(f"could not write {path}: {reason}{f' ({code})' if code else ''}; {state}. Fix: {advice}.")


def atomic_write(path: Path, write: Callable, keep_previous: bool = False) -> None:
    """Call write(file_object) on a temporary file beside `path`, fsync it, then rename it over `path`.

    keep_previous: first rename the existing `path` to `previous_path(path)`. A kill between the two renames
    leaves the previous file in place, so some complete version always exists.
    """
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TMP_SUFFIX)
        with os.fdopen(fd, "wb") as f:
            pause = float(os.environ.get(WRITE_PAUSE_ENV) or 0)
            write(_PauseHalfway(f, pause) if pause > 0 else f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, FILE_MODE)
        if keep_previous and path.exists():
            os.replace(path, previous_path(path))
        os.replace(tmp, path)
        tmp = None
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as error:
        raise write_error(path, error, keep_previous) from error
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def check_writable(folder: Path, key: str) -> None:
    """Create `folder` and a file in it, or raise a WriteError naming the setting `key` that chose it."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        code = errno.errorcode.get(error.errno, "")
        advice = WRITE_ADVICE.get(error.errno, f"choose another {key}")
        raise WriteError(f"{key}={folder}: cannot write there: {error.strerror or error}"
                         f"{f' ({code})' if code else ''}. Fix: {advice}.") from None


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda f: f.write(text.encode("utf-8")))


def save_checkpoint(path: Path, state: dict[str, Any], keep_previous: bool = False) -> None:
    atomic_write(path, lambda f: torch.save({"format": FORMAT_VERSION, **state}, f), keep_previous)


def remove_partial_writes(folder: Path) -> list[Path]:
    """Delete temporary files left by a process killed inside `atomic_write`; returns them."""
    leftovers = sorted(Path(folder).glob(f".*{TMP_SUFFIX}")) if Path(folder).is_dir() else []
    for path in leftovers:
        path.unlink(missing_ok=True)
    if leftovers:
        log.info("removed %d half-written file(s) left by an interrupted write: %s", len(leftovers),
                 ", ".join(p.name for p in leftovers))
    return leftovers


def load_checkpoint(path: Path) -> dict[str, Any]:
    """The checkpoint's state dict; CheckpointError if it is missing, truncated, corrupt or not ours."""
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"checkpoint {path} does not exist")
    if path.is_dir():
        raise CheckpointError(f"checkpoint {path} is a folder; expected a best.pt or last.pt file")
    try:
        with zipfile.ZipFile(path) as archive:  # torch.save writes a zip; its CRCs catch silent corruption
            damaged = archive.testzip()
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise CheckpointError(f"checkpoint {path} is unreadable (truncated or corrupt: {error})") from None
    if damaged is not None:
        raise CheckpointError(f"checkpoint {path} is corrupt: record {damaged} fails its CRC check")
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as error:  # bad pickle, missing records, ...: all mean "unusable"
        raise CheckpointError(f"checkpoint {path} is unreadable (truncated or corrupt: {error})") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT_VERSION or "model" not in state:
        raise CheckpointError(f"checkpoint {path} is not a translate checkpoint of format {FORMAT_VERSION}")
    return state


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
