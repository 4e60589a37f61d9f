"""PE ablations, chosen by `ablation=NAME` and composable with any encoding.

Each is a small object built from conf/ablation/NAME.yaml whose `apply(encoding, d_model)` the builder calls once,
before training: it returns the encoding to use (changed in place, wrapped, or replaced) or raises a ConfigError
naming the key, the value and what is allowed.

    none       the encoding as configured                      zero_dims  zero PE table dimensions
    remove     no positional information at all                side       PE on the encoder or the decoder only
    scale      multiply the PE (table and additive terms)      shuffle    permute source positions per sentence
    freeze     stop training the encoding's parameters
"""
from translate.encodings.base import PositionalEncoding


class NoAblation:
    """Leaves the encoding as it is."""

    def __init__(self, name: str = "none") -> None:
        self.name = name

    def apply(self, encoding: PositionalEncoding, d_model: int) -> PositionalEncoding:
        return encoding


def ablates(ablation_cfg) -> bool:
    """Whether an `ablation` config changes anything: None and `none` do not."""
    return ablation_cfg is not None and ablation_cfg.get("name", "none") != "none"


def apply_at_test_time(model, ablation_cfg) -> None:
    """Ablate a loaded model that was trained without the ablation (`python -m translate.evaluate checkpoint=...
    ablation=zero_dims`): the ablation is applied to the model's own encoding. None or `none` changes nothing."""
    from hydra.utils import instantiate

    if not ablates(ablation_cfg):
        return
    model.encoding = instantiate(ablation_cfg).apply(model.encoding, model.d_model)
