"""Test-time controls of a run (`eval.at_test`): its trained model scored again, at the end of the run, with an
ablation applied at test time only, so that a control never waits on a checkpoint kept for later.

    eval:
      at_test:
        - {ablation: zero_dims}                                    # dims >= 400 zeroed in the trained model
        - {ablation: zero_dims, name: zero_dims_mean, fill: mean}  # ... set to their mean over positions instead

Each entry names a conf/ablation option and any of that option's settings; `name` (default: the option) labels
the evaluation, written into a folder beside the run named as the run with `<name>_at_test` in place of its own
ablation (control_folder), where a sweep's report pairs it with the model it came from. A control is of a model
trained without an ablation: a run trained with one (a sweep's zero_dims arm) scores none.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf

from translate.config.errors import ConfigError, not_allowed
from translate.config.paths import CONF_DIR

LABEL = re.compile(r"[A-Za-z0-9_]+")


@dataclass(frozen=True)
class ControlAtTest:
    """One control: `label` names its evaluation (<label>_at_test); `ablation` is the conf/ablation node to apply,
    its settings given, `name` = label (the key, e.g. eval.at_test[1], names it in errors)."""

    key: str
    label: str
    ablation: dict


def ablation_options() -> list[str]:
    return sorted(p.stem for p in (Path(CONF_DIR) / "ablation").glob("*.yaml") if p.stem != "none")


def control_of(entry: Any, key: str) -> ControlAtTest:
    if isinstance(entry, (DictConfig, ListConfig)):
        entry = OmegaConf.to_container(entry, resolve=True)
    if not isinstance(entry, dict) or "ablation" not in entry:
        raise not_allowed(key, entry, "a mapping {ablation: OPTION, name: LABEL, SETTING: VALUE ...}, e.g. "
                                      "{ablation: zero_dims, name: zero_dims_mean, fill: mean}")
    option = entry["ablation"]
    if option not in ablation_options():
        raise not_allowed(f"{key}.ablation", option, f"a conf/ablation option: {', '.join(ablation_options())}")
    node = OmegaConf.to_container(OmegaConf.load(Path(CONF_DIR) / "ablation" / f"{option}.yaml"))
    label = entry.get("name", option)
    if not (isinstance(label, str) and LABEL.fullmatch(label)):
        raise not_allowed(f"{key}.name", label, "letters, digits and _ (it names a folder)")
    settings = {k: v for k, v in entry.items() if k not in ("ablation", "name")}
    for setting in settings:
        if setting not in node or setting == "_target_":
            allowed = [k for k in node if k not in ("_target_", "name")]
            raise ConfigError(f"{key}.{setting} is not a setting of ablation {option}: allowed: ablation, name"
                              f"{''.join(', ' + k for k in allowed)}")
    return ControlAtTest(key, label, {**node, **settings, "name": label})


def controls_at_test(entries: list, key: str = "eval.at_test") -> list[ControlAtTest]:
    """The run's controls, each entry checked (the option exists, its settings are the option's); labels distinct."""
    controls = [control_of(entry, f"{key}[{i}]") for i, entry in enumerate(entries or [])]
    labels = [control.label for control in controls]
    for control in controls:
        if labels.count(control.label) > 1:
            raise ConfigError(f"{control.key}.name={control.label!r} is given twice in {key}: each control needs a "
                              f"name of its own (it names the evaluation's folder)")
    return controls


def control_folder(run_dir: Path, trained_ablation: str, label: str) -> Path:
    """sinusoidal_none_words1-9_seed1 -> sinusoidal_zero_dims_at_test_words1-9_seed1, beside the run (a name without
    the run's ablation in it gets _<label>_at_test appended)."""
    trained = f"_{trained_ablation}_"
    name = run_dir.name
    name = name.replace(trained, f"_{label}_at_test_", 1) if trained in name else f"{name}_{label}_at_test"
    return run_dir.parent / name
