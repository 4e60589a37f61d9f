"""Atomic checkpoints: write a temporary file, fsync, rename. A reader never sees half a file."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch

FORMAT_VERSION = 1
# Config sections that must match for a checkpoint's weights to fit the model being built.
ARCHITECTURE_SECTIONS = ("model", "encoding", "ablation")


class CheckpointError(RuntimeError):
    pass


def atomic_write(path: Path, write) -> None:
    """Call write(file_object) on a temporary file beside `path`, fsync it, then rename it over `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda f: f.write(text.encode("utf-8")))


def save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    atomic_write(path, lambda f: torch.save({"format": FORMAT_VERSION, **state}, f))


def load_checkpoint(path: Path) -> dict[str, Any]:
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"checkpoint {path} does not exist")
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as error:  # truncated zip, bad pickle, ...: all mean "unusable"
        raise CheckpointError(f"checkpoint {path} is unreadable (truncated or corrupt: {error})") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT_VERSION or "model" not in state:
        raise CheckpointError(f"checkpoint {path} is not a translate checkpoint of format {FORMAT_VERSION}")
    return state


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
