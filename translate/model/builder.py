"""Builds the Transformer from its shape (the `model` group), an encoding and an ablation (their config nodes: each
names its class with `_target_`, and the class checks its own settings)."""
from __future__ import annotations

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from translate.encodings.base import PositionalEncoding
from translate.model.config import ModelConfig
from translate.model.transformer import Transformer


def build_encoding(encoding_cfg: DictConfig, ablation_cfg: DictConfig, d_model: int, n_heads: int) -> PositionalEncoding:
    kwargs = {k: v for k, v in OmegaConf.to_container(encoding_cfg, resolve=True).items() if k != "name"}
    target = kwargs.pop("_target_")
    try:
        encoding = instantiate({"_target_": target, **kwargs}, d_model=d_model, n_heads=n_heads)
    except Exception as error:  # Hydra wraps constructor errors; keep the message, drop the noise
        cause = error.__cause__ or error
        raise ValueError(f"encoding ({target}): {cause}") from None
    if not isinstance(encoding, PositionalEncoding):
        raise TypeError(f"encoding._target_={target} builds a {type(encoding).__name__}; it must subclass "
                        f"translate.encodings.base.PositionalEncoding")
    ablation = instantiate(ablation_cfg)
    return ablation.apply(encoding, d_model)


def build_model(shape: ModelConfig, encoding_cfg: DictConfig, ablation_cfg: DictConfig, vocab_size: int,
                pad_id: int) -> Transformer:
    encoding = build_encoding(encoding_cfg, ablation_cfg, shape.d_model, shape.n_heads)
    return Transformer(vocab_size, pad_id, encoding, shape)


def model_config_of(saved: dict) -> ModelConfig:
    """The shape stored in a checkpoint's config (older checkpoints may lack newer keys: their defaults apply)."""
    known = ModelConfig.__dataclass_fields__
    return ModelConfig(**{k: v for k, v in saved.items() if k in known})
