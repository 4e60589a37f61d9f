"""The one error type of bad settings, and the one way it is worded: the key, the value and what is allowed."""
from __future__ import annotations

import difflib
from typing import Any, Sequence

from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import ConfigKeyError, MissingMandatoryValue, OmegaConfBaseException, ValidationError


class ConfigError(ValueError):
    pass


def shown(value: Any) -> Any:
    """A value as the user typed it (config containers as plain lists and dicts)."""
    return OmegaConf.to_container(value) if isinstance(value, (DictConfig, ListConfig)) else value


def not_allowed(key: str, value: Any, allowed: str) -> ConfigError:
    return ConfigError(f"{key}={shown(value)!r} is not allowed: expected {allowed}")


def unknown_option(group: str, name: str, options: Sequence[str]) -> ConfigError:
    """`group=name` names no file of conf/<group>/: the closest names first, then every option."""
    hint = did_you_mean(name, options)
    return ConfigError(f"{group}={name!r} is not allowed: {hint}expected one of conf/{group}/: {', '.join(options)}")


def did_you_mean(name: str, names: Sequence[str]) -> str:
    """'did you mean a or b? ' for the names closest to a misspelt one; '' when none is close."""
    closest = difflib.get_close_matches(name, list(names), n=3, cutoff=0.5)
    return f"did you mean {' or '.join(closest)}? " if closest else ""


def closest_keys(error: OmegaConfBaseException) -> str:
    """For an unknown key: the settings beside it closest to its name ('did you mean max_steps? '), or ''."""
    parent, name = getattr(error, "parent_node", None), getattr(error, "key", None)
    if not isinstance(parent, DictConfig) or not isinstance(name, str):
        return ""
    return did_you_mean(name, [str(k) for k in parent.keys() if k != "hydra"])


TYPE_NAMES = {"Integer": "an integer", "Float": "a number", "Boolean": "true or false", "String": "a string"}


def from_omegaconf(error: OmegaConfBaseException, section: str = "") -> ConfigError:
    """OmegaConf's type, missing-value and unknown-key errors in our wording. section: the prefix OmegaConf did not
    see (we check sections one at a time)."""
    inner = str(getattr(error, "full_key", "") or "")
    key = inner if not section or inner == section or inner.startswith(section + ".") else \
        ".".join(part for part in (section, inner) if part)
    message = str(getattr(error, "msg", None) or error).splitlines()[0]
    if isinstance(error, MissingMandatoryValue):
        return ConfigError(f"{key} is not set (???); give it a value")
    if isinstance(error, ConfigKeyError) or " not in '" in message or "is not in struct" in message:
        hint = closest_keys(error)
        if "." not in key:
            return ConfigError(f"{key} is not a setting of the config: {hint}{message} (a typo? the top-level "
                               f"settings are in conf/config.yaml, for translate.evaluate in conf/evaluate.yaml)")
        group = key.rsplit(".", 1)[0]
        return ConfigError(f"{key} is not a setting of {group}: {hint}{message} (a typo? see "
                           f"conf/{group.split('.')[0]}/)")
    if isinstance(error, ValidationError) and "is not a valid bool" in message:
        return not_allowed(key, getattr(error, "value", None), "true or false")
    if isinstance(error, ValidationError) and "could not be converted to" in message:
        expected = message.rsplit("could not be converted to ", 1)[1].strip()
        return not_allowed(key, getattr(error, "value", None), TYPE_NAMES.get(expected, expected))
    if isinstance(error, ValidationError):
        return ConfigError(f"{key}={shown(getattr(error, 'value', None))!r} is not allowed: {message}")
    return ConfigError(f"{key} cannot be read: {message}")


def from_composition(error: Exception) -> ConfigError:
    """Hydra's error for a config that does not compose (its cause: OmegaConf's), in our wording."""
    cause = error.__cause__
    if isinstance(cause, OmegaConfBaseException):
        return from_omegaconf(cause)
    return ConfigError(" ".join(str(error).split()))
