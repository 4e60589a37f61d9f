"""Typed settings with their allowed values declared beside them.

A settings dataclass (`Checked`) types every key for OmegaConf (which refuses a wrong type or an unknown key) and
gives each field a `Rule` for the values its type cannot express (ranges, choices). `__post_init__` checks them, so
an object that exists holds allowed values; `check()` holds the cross-field checks of the section.
"""
from __future__ import annotations

import math
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Callable, ClassVar, Optional

from translate.config.errors import ConfigError, not_allowed


@dataclass(frozen=True)
class Rule:
    ok: Callable[[Any], bool]
    allowed: str                 # completes "expected ..."


# A setting's role beyond what it is, declared on its field (setting(role=...)), or on its section's class (ROLE) for
# every field of the section; read by the sweep report.
TRAIN_ONLY = "train only"   # changes the training pairs, never the test sets
HOW_IT_RAN = "how it ran"   # where or how a job ran or was reported (device, threads, paths, logging), not what it
                            # trained: jobs that differ only there are one setting


def setting(rule: Rule | None = None, default: Any = MISSING, optional: bool = False, factory: Any = MISSING,
            role: str | None = None):
    """A field; optional: None is allowed too (and skips the rule); role: see TRAIN_ONLY and HOW_IT_RAN."""
    metadata = {"rule": rule, "optional": optional, "role": role}
    if factory is not MISSING:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def with_role(cls: type, role: str) -> list[str]:
    """The names of the fields of dataclass `cls` with `role`: declared on the field, or on the class (ROLE)."""
    return [f.name for f in fields(cls) if (f.metadata.get("role") or getattr(cls, "ROLE", None)) == role]


def keys_with_role(sections: dict[str, type], role: str) -> list[str]:
    """The dotted keys ("train.device") of the sections' fields with `role`, sections given as {key: dataclass}. A
    section whose class has that ROLE gives "report.": any key under it, the keys of older runs included."""
    keys: list[str] = []
    for section, cls in sections.items():
        if getattr(cls, "ROLE", None) == role:
            keys.append(f"{section}.")
        else:
            keys += [f"{section}.{name}" for name in with_role(cls, role)]
    return keys


def finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def at_least(low: int) -> Rule:
    return Rule(lambda v: v >= low, f"an integer >= {low}")


def number_in(low: float, high: float, high_open: bool = False) -> Rule:
    return Rule(lambda v: finite(v) and low <= v and (v < high if high_open else v <= high),
                f"a number in [{low}, {high}{')' if high_open else ']'}")


def above(low: float, allowed: str) -> Rule:
    return Rule(lambda v: finite(v) and v > low, allowed)


def one_of(*choices: str) -> Rule:
    return Rule(lambda v: v in choices, f"one of {list(choices)}")


@dataclass
class Checked:
    SECTION: ClassVar[str] = ""  # the config group, for error messages: "train" -> "train.lr=..."
    ROLE: ClassVar[Optional[str]] = None  # the role of every field of the section (see HOW_IT_RAN), if any

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            rule = f.metadata.get("rule")
            if value is None and f.metadata.get("optional"):
                continue
            if rule is not None:
                try:
                    good = bool(rule.ok(value))
                except Exception:  # a value of the wrong type makes the test itself fail: that is a "no"
                    good = False
                if not good:
                    raise not_allowed(self.key(f.name), value, rule.allowed)
        self.check()

    def key(self, name: str) -> str:
        return f"{self.SECTION}.{name}" if self.SECTION else name

    def check(self) -> None:
        """Cross-field checks; raise ConfigError naming the keys."""

    def refuse(self, message: str) -> None:
        raise ConfigError(message)
