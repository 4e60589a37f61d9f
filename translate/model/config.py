"""The `model` config group (conf/model/*.yaml): the Transformer's shape."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from translate.config.fields import Checked, Rule, at_least, number_in, one_of, setting


@dataclass
class ModelConfig(Checked):
    SECTION: ClassVar[str] = "model"

    d_model: int = setting(at_least(1))
    n_heads: int = setting(at_least(1))
    n_encoder_layers: int = setting(at_least(1))
    n_decoder_layers: int = setting(at_least(1))
    d_ff: int = setting(at_least(1))
    dropout: float = setting(number_in(0, 1, high_open=True), default=0.1)
    attention_dropout: float = setting(number_in(0, 1, high_open=True), default=0.0)
    norm_position: str = setting(one_of("pre", "post"), default="pre")
    tie_embeddings: bool = setting(Rule(lambda v: isinstance(v, bool), "true or false"), default=True)
    name: str = "custom"

    def check(self) -> None:
        if self.d_model % self.n_heads:
            divisors = [n for n in range(1, min(self.d_model, 64) + 1) if self.d_model % n == 0]
            self.refuse(f"model.n_heads={self.n_heads} does not divide model.d_model={self.d_model}; allowed "
                        f"n_heads: {divisors}")


def model_config_of(saved: dict) -> ModelConfig:
    """The shape stored in a checkpoint's config (older checkpoints may lack newer keys: their defaults apply)."""
    known = ModelConfig.__dataclass_fields__
    return ModelConfig(**{k: v for k, v in saved.items() if k in known})
