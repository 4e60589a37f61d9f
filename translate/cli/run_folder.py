"""The folders a run's command made: Hydra makes the run folder (runs/<date>/<time>) and every missing folder above it
before `main` runs. A run that fails before it saved anything takes them back (translate.cli.train.take_back), and
only them: a folder that was there before, or that holds anything else, stays."""
from __future__ import annotations

from pathlib import Path

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

made: list[Path] = []   # the folders above the run folder that did not exist when the command started, deepest first


def missing_above(run_dir: Path) -> list[Path]:
    """The folders above `run_dir` that do not exist (yet), deepest first."""
    return [folder for folder in run_dir.absolute().parents if not folder.exists()]


def record_missing(run_dir: Path) -> None:
    """Add the folders above `run_dir` that do not exist yet to those the command will have made."""
    made[:] = sorted(set(made) | set(missing_above(run_dir)), key=lambda folder: -len(folder.parts))


class RecordNewFolders(Callback):
    """Hydra calls it with the composed config before it makes the run folder (conf/config.yaml, hydra.callbacks)."""

    def on_run_start(self, config: DictConfig, **kwargs) -> None:
        record_missing(Path(str(config.hydra.run.dir)))


def remove_made_folders() -> None:
    """Remove the folders the command made above its run folder, where they are empty (rmdir never deletes more)."""
    for folder in made:
        if not folder.exists():  # the run folder itself, already taken back
            continue
        try:
            folder.rmdir()
        except OSError:  # not empty (another run's folder is in it) or gone: keep it
            return
