"""One builder per component a config names by `_target_` (the corpus, the encoding and its ablation, the model),
used alike by start-up validation and by the run, so the same checks and the same wording answer a bad setting:
the class must be importable, a setting must have the type of its constructor default, and the constructor's own
checks speak through a ConfigError naming the key."""
from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass
from typing import Any, Optional

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from translate.config.errors import ConfigError, from_omegaconf, not_allowed
from translate.config.fields import finite
from translate.encodings.base import PositionalEncoding
from translate.model.config import ModelConfig
from translate.model.transformer import Transformer


def is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_types_against_defaults(cls: type, settings: dict, prefix: str) -> None:
    """A setting whose constructor default is a bool / int / float / str must have that type (ints pass as floats)."""
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return
    expected = {bool: (lambda v: isinstance(v, bool), "true or false"), int: (is_int, "an integer"),
                float: (finite, "a finite number"), str: (lambda v: isinstance(v, str), "a string")}
    for name, value in settings.items():
        param = parameters.get(name)
        if param is None or param.default is inspect.Parameter.empty or param.default is None or value is None:
            continue
        check = expected.get(type(param.default))
        if check and not check[0](value):
            raise ConfigError(f"{prefix}.{name}={value!r} is not allowed: expected {check[1]} "
                              f"(like the default, {param.default!r})")


def settings_of(node: DictConfig, key: str) -> dict:
    """The node as plain data, resolved."""
    try:
        return OmegaConf.to_container(node, resolve=True)
    except OmegaConfBaseException as error:  # a ${...} that does not resolve: name the key that holds it
        raise from_omegaconf(error, key) from None


ENCODINGS_PACKAGE = "translate.encodings."   # the only classes a finished run's config may name to encoding_class


def encoding_class(target: object) -> Optional[type]:
    """The encoding class a finished run's `encoding._target_` names, for runs whose metrics.json predates
    `encoding_kind`; None for anything outside translate.encodings (a config someone sent imports nothing else)."""
    if not isinstance(target, str) or not target.startswith(ENCODINGS_PACKAGE):
        return None
    from hydra.utils import get_class
    found = get_class(target)
    return found if isinstance(found, type) and issubclass(found, PositionalEncoding) else None


def locate_target(settings: dict, key: str) -> type:
    from hydra.utils import get_class

    hydra_log = logging.getLogger("hydra.utils")  # it logs the failure too; ours says it once, with the key
    level = hydra_log.level
    hydra_log.setLevel(logging.CRITICAL)
    try:
        return get_class(settings["_target_"])
    except Exception as error:  # ImportError, AttributeError, ValueError: all mean "no such class"
        raise ConfigError(f"{key}._target_={settings['_target_']!r} is not allowed: expected an importable class "
                          f"({' '.join(str(error).split())})") from None
    finally:
        hydra_log.setLevel(level)


@dataclass(frozen=True)
class Component:
    """A component a config names by `_target_` (an encoding, an ablation, a corpus), read once from its node.
    key: where it sits in the config (`encoding`, `data.corpus`); settings: the node resolved, `_target_` included."""

    key: str
    settings: dict

    @classmethod
    def of(cls, node: Any, key: str) -> "Component":
        settings = settings_of(node, key) if isinstance(node, DictConfig) else {}
        value = settings.get("_target_")
        if not (isinstance(value, str) and "." in value):
            raise not_allowed(f"{key}._target_", value, "a dotted path to a class")
        return cls(key, settings)

    @property
    def target(self) -> str:
        return self.settings["_target_"]

    @property
    def name(self) -> Optional[str]:
        return self.settings.get("name")

    def without_name(self) -> "Component":
        """An encoding's `name` labels its runs; its constructor does not take it."""
        return Component(self.key, {k: v for k, v in self.settings.items() if k != "name"})

    def build(self, **extra) -> Any:
        """The object this component names, any error turned into a ConfigError naming the key and its settings."""
        from hydra.utils import instantiate

        settings, key = self.settings, self.key
        cls = locate_target(settings, key)
        check_types_against_defaults(cls, {k: v for k, v in settings.items() if k not in ("_target_", "name")}, key)
        try:
            return instantiate(settings, **extra)
        except Exception as error:  # Hydra wraps constructor errors; report the constructor's own message
            cause = error.__cause__ or error
            shown = ", ".join(f"{key}.{k}={v!r}" for k, v in settings.items() if k != "_target_")
            raise ConfigError(f"{key} ({settings['_target_']}) cannot be built from {shown or 'no settings'}: "
                              f"{cause}") from None


def check_corpus(data: DictConfig) -> None:
    """The corpus class is built (its constructor does no I/O and checks its own settings)."""
    corpus = data.get("corpus")
    if not isinstance(corpus, DictConfig):
        raise not_allowed("data.corpus", corpus, "a config section naming a corpus class with _target_")
    Component.of(corpus, "data.corpus").build()


def build_encoding(encoding: Component, ablation: Component, d_model: int, n_heads: int) -> PositionalEncoding:
    """The encoding with its ablation applied: the one builder, used by start-up validation (on the CPU, before any
    data is read: tables and biases of a few MB at most) and by the model."""
    built = encoding.without_name().build(d_model=d_model, n_heads=n_heads)
    if not isinstance(built, PositionalEncoding):
        raise ConfigError(f"encoding._target_={encoding.target} builds a {type(built).__name__}; "
                          f"expected a subclass of translate.encodings.base.PositionalEncoding")
    wrapper = ablation.build()
    try:
        return wrapper.apply(built, d_model)
    except Exception as error:
        # an ablation names its own settings `ablation.X`; one given elsewhere (eval.at_test[i]) is set there
        elsewhere = (f" (its settings are under {ablation.key}: read ablation.X below as {ablation.key}.X)"
                     if ablation.key != "ablation" else "")
        raise ConfigError(f"{ablation.key} ({ablation.target}) cannot be applied to encoding {encoding.target} with "
                          f"model.d_model={d_model}{elsewhere}: {error}") from None


def build_model(shape: ModelConfig, encoding: Component, ablation: Component, vocab_size: int,
                pad_id: int) -> Transformer:
    """The Transformer of this shape around the encoding (and ablation)."""
    return Transformer(vocab_size, pad_id, build_encoding(encoding, ablation, shape.d_model, shape.n_heads), shape)
