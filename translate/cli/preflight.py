"""Checks a command makes before handing over to Hydra, which would answer them with its own text or a traceback."""
from __future__ import annotations

import sys
from pathlib import Path

from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf.errors import OmegaConfBaseException

from translate.cli.piece import parse_piece
from translate.config.errors import ConfigError, from_composition
from translate.io import WriteError, check_writable


def check_overrides(config_dir: str, config_name: str, argv: list[str]) -> None:
    """Compose the config once: a wrong type or an unknown key (the schemas refuse them) exits with our error."""
    if any(a.startswith("-") for a in argv):
        return  # a sweep (-m) or a Hydra flag (--help, --cfg): Hydra's own path
    overrides = [a for a in argv if not a.startswith(("hydra.", "hydra/", "+hydra", "~hydra"))]
    try:
        with initialize_config_dir(config_dir=config_dir, version_base="1.3"):
            cfg = compose(config_name=config_name, overrides=overrides)
        parse_piece(cfg.get("piece"))
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    except ConfigCompositionException as error:
        if not isinstance(error.__cause__, OmegaConfBaseException):
            return  # not a typing error (a sweep's value list, a missing option): Hydra answers it itself
        print(f"error: {from_composition(error)}", file=sys.stderr)
        sys.exit(2)
    except Exception:  # noqa: BLE001  anything else (a bad override's syntax): Hydra answers it itself
        return


def check_run_dir(argv: list[str]) -> None:
    """Hydra creates the run folder before `main` runs and answers a failure with a traceback: check it first."""
    given = [a.split("=", 1)[1] for a in argv if a.startswith("hydra.run.dir=")]
    folder = given[-1] if given else "runs"  # the default, runs/<date>/<time>, lies under runs/
    if "${" in folder or any(a.startswith("-") for a in argv):
        return  # interpolated, a sweep (-m) or a Hydra flag (--help, --cfg): Hydra resolves it or writes nothing
    try:
        check_writable(Path(folder), "hydra.run.dir")
    except WriteError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
