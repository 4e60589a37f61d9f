"""Checkpoints that survive a kill at any moment.

Every file is written atomically (temporary file beside it, fsync, rename), so a reader sees the old file or the new
one, never half of either. `last.pt` keeps its predecessor as `last.prev.pt`; a checkpoint that still turns out
unreadable (copied half, bit rot) is detected by the zip CRCs and `newest_valid_checkpoint` falls back to the next.
"""
from __future__ import annotations

import logging
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import torch
from omegaconf import DictConfig, OmegaConf

from translate.data.tokenizer import Tokenizer
from translate.io import atomic_write, previous_path
from translate.model.builder import build_model, model_config_of
from translate.model.transformer import Transformer

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
# Config sections that must match for a checkpoint's weights to fit the model being built.
ARCHITECTURE_SECTIONS = ("model", "encoding", "ablation")
# Files a run folder may hold that `train.resume=auto` can continue from, the preferred first on equal steps.
RESUMABLE = ("last.pt", "last.prev.pt", "best.pt")


class CheckpointError(RuntimeError):
    pass


def save_checkpoint(path: Path, state: dict[str, Any], keep_previous: bool = False) -> None:
    atomic_write(path, lambda f: torch.save({"format": FORMAT_VERSION, **state}, f), keep_previous)


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


# -- a trained model, for evaluation and translation ------------------------------------------------------------------

@dataclass
class LoadedModel:
    model: Transformer
    tokenizer: Tokenizer
    config: DictConfig
    step: int


def load_model(path: str | Path, device: str | torch.device = "cpu") -> LoadedModel:
    state = load_checkpoint(Path(path))
    config = OmegaConf.create(state["config"])
    tokenizer = Tokenizer(state["tokenizer"])
    model = build_model(model_config_of(state["config"]["model"]), config.encoding, config.ablation, len(tokenizer),
                        tokenizer.pad_id)
    model.load_state_dict(state["model"])
    model.to(device).eval()
    return LoadedModel(model, tokenizer, config, state["progress"]["step"])
