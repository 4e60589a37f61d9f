"""Files written atomically: a temporary file beside the target, fsync, rename. A reader (or a process killed at any
moment) sees the old file or the new one, never half of either. Checkpoints, metrics, reports and sweep tables all
go through here."""
from __future__ import annotations

import errno
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable

log = logging.getLogger(__name__)

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




class WriteError(RuntimeError):
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


def remove_partial_writes(folder: Path) -> list[Path]:
    """Delete temporary files left by a process killed inside `atomic_write`; returns them."""
    leftovers = sorted(Path(folder).glob(f".*{TMP_SUFFIX}")) if Path(folder).is_dir() else []
    for path in leftovers:
        path.unlink(missing_ok=True)
    if leftovers:
        log.info("removed %d half-written file(s) left by an interrupted write: %s", len(leftovers),
                 ", ".join(p.name for p in leftovers))
    return leftovers


def write_folder_whole(target: Path, fill: Callable[[Path], None]) -> None:
    """Make `target` whole or not at all: `fill` writes a staging folder beside it, which then takes its place (a copy
    interrupted half-way leaves the staging folder, never a half-written target)."""
    staging = target.with_name(target.name + ".staging")
    shutil.rmtree(staging, ignore_errors=True)
    fill(staging)
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
