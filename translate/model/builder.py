"""Builds the Transformer from the `model`, `encoding` and `ablation` configs."""
from __future__ import annotations

from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from translate.encodings.base import PositionalEncoding
from translate.model.transformer import Transformer

MODEL_KEYS = ("d_model", "n_heads", "n_encoder_layers", "n_decoder_layers", "d_ff", "dropout", "attention_dropout",
              "norm_position", "tie_embeddings")


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


def build_model(cfg: DictConfig, vocab_size: int, pad_id: int) -> Transformer:
    """cfg: the whole run config (uses cfg.model, cfg.encoding, cfg.ablation)."""
    m = cfg.model
    encoding = build_encoding(cfg.encoding, cfg.ablation, m.d_model, m.n_heads)
    return Transformer(vocab_size, pad_id, encoding, **{k: m[k] for k in MODEL_KEYS})
