"""Compose a config as the command line would, in-process: the one way scripts and tests get one."""
from __future__ import annotations

from omegaconf import DictConfig

from translate.assembly.schemas import register
from translate.config.paths import CONF_DIR


def compose(*overrides: str, config_name: str = "config", return_hydra_config: bool = False) -> DictConfig:
    """conf/<config_name>.yaml with Hydra overrides, e.g. compose("+debug=tiny", "encoding=rope").
    return_hydra_config: keep the `hydra` node, as a launcher composes a job."""
    from hydra import compose as hydra_compose, initialize_config_dir

    register()  # the YAML groups name their schema
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        return hydra_compose(config_name=config_name, overrides=list(overrides),
                             return_hydra_config=return_hydra_config)
