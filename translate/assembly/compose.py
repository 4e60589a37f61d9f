"""Compose a config as the command line would, in-process: the one way scripts and tests get one."""
from __future__ import annotations

from omegaconf import DictConfig

from translate.assembly.schemas import register
from translate.config.paths import CONF_DIR


LAST_GROUPS = ("+debug=",)  # added after every other group, wherever they stand on the command line


def in_group_order(overrides: list[str]) -> list[str]:
    """The overrides with `+debug=...` moved after every other one. Hydra applies the groups added with `+` in
    command-line order, so `+debug=tiny +sweep=encodings` and `+sweep=encodings +debug=tiny` would train 600 and 20
    steps; in this order both are the debug run's budget. Settings (train.max_steps=...) still win over both."""
    last = [o for o in overrides if o.startswith(LAST_GROUPS)]
    rest = [o for o in overrides if not o.startswith(LAST_GROUPS)]
    added = [i for i, o in enumerate(rest) if o.startswith("+")]  # right after the last, so flags keep their place
    if not added:
        return list(overrides)
    return rest[:added[-1] + 1] + last + rest[added[-1] + 1:]


def compose(*overrides: str, config_name: str = "config", return_hydra_config: bool = False) -> DictConfig:
    """conf/<config_name>.yaml with Hydra overrides, e.g. compose("+debug=tiny", "encoding=rope").
    return_hydra_config: keep the `hydra` node, as a launcher composes a job. Inside a Hydra command (a run scoring
    its test-time controls) the command's own Hydra, which reads the same conf/, composes it."""
    from hydra import compose as hydra_compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    register()  # the YAML groups name their schema
    ordered = in_group_order(list(overrides))
    if GlobalHydra.instance().is_initialized():
        return hydra_compose(config_name=config_name, overrides=ordered, return_hydra_config=return_hydra_config)
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
        return hydra_compose(config_name=config_name, overrides=ordered, return_hydra_config=return_hydra_config)
