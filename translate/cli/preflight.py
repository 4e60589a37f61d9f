"""Checks a command makes before handing over to Hydra, which would answer them with its own text or a traceback."""
from __future__ import annotations

import sys
from pathlib import Path

from hydra import compose, initialize_config_dir
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import ConfigCompositionException
from omegaconf.errors import OmegaConfBaseException

from translate.cli.piece import parse_piece
from translate.cli.run_folder import record_missing
from translate.config.errors import ConfigError, from_composition, unknown_option
from translate.io import WriteError, check_writable

CONFIG_FLAGS = ("-cd", "--config-dir", "-cp", "--config-path", "-cn", "--config-name")  # another conf/ then


def check_options(config_dir: str, overrides: list[str]) -> None:
    """Every option chosen for a config group (`encoding=rope`, a sweep's `encoding=rope,alibi`, `+sweep/pe=...`)
    names a file of conf/<group>/; ConfigError naming the closest ones otherwise."""
    parser = OverridesParser.create()
    for text in overrides:
        try:
            override = parser.parse_override(text)
        except Exception:  # noqa: BLE001  a bad override's syntax, a flag's value: Hydra answers it itself
            continue
        group = override.key_or_group
        folder = Path(config_dir) / group
        if override.is_delete() or not folder.is_dir():
            continue  # a setting (train.lr=...), not a group
        value = override.value()
        chosen = (list(override.sweep_string_iterator()) if override.is_sweep_override() else
                  [str(v) for v in value] if isinstance(value, list) else  # a list of options: +sweep=[a,b]
                  [override.get_value_element_as_str()])
        options = sorted(p.stem for p in folder.glob("*.yaml"))
        for name in chosen:
            if name not in options and name != "null":  # group=null takes the group out
                raise unknown_option(group, name, options)


def check_overrides(config_dir: str, config_name: str, argv: list[str]) -> None:
    """Compose the config once: an unknown option of a config group, a wrong type or an unknown key (the schemas
    refuse them) exits with our error."""
    overrides = [a for a in argv if not a.startswith(("-", "hydra.", "hydra/", "+hydra", "~hydra"))]
    try:
        if not any(a.split("=", 1)[0] in CONFIG_FLAGS for a in argv):
            check_options(config_dir, overrides)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    if any(a.startswith("-") for a in argv):
        return  # a sweep (-m) or a Hydra flag (--help, --cfg): Hydra's own path
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
    record_missing(Path(folder) / "run")  # check_writable makes it: a run that fails at start-up takes it back
    try:
        check_writable(Path(folder), "hydra.run.dir")
    except WriteError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
