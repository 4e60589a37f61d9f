"""The settings dataclasses registered in Hydra's ConfigStore as the schema of the YAML groups: each conf/<group>/*.yaml
starts with `defaults: [schema, _self_]`, so composing a config already refuses a wrong type or an unknown key.
Called where configs are composed (the command mains, translate.assembly.compose); registering twice is harmless."""
from __future__ import annotations

from hydra.core.config_store import ConfigStore

SCHEMA = "schema"


def schemas() -> dict[str, type]:
    from translate.analysis.run.settings import ReportSettings
    from translate.data.config import DataConfig
    from translate.data.eval_config import EvalConfig
    from translate.decoding.settings import DecodeSettings
    from translate.model.config import ModelConfig
    from translate.training.config import TrainConfig

    return {"data": DataConfig, "model": ModelConfig, "train": TrainConfig, "decode": DecodeSettings,
            "report": ReportSettings, "eval": EvalConfig}


def register() -> None:
    store = ConfigStore.instance()
    for group, cls in schemas().items():
        store.store(group=group, name=SCHEMA, node=cls)
