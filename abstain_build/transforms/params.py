"""Declared transform parameters: defaults and bounds, validated once at construction."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class ParamError(ValueError):
    """A parameter value outside what the transform declares."""


@dataclass(frozen=True)
class Param:
    """One tunable parameter. Its type is the type of ``default``."""

    default: Any
    help: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] | None = None
    #: Extra validation of the coerced value: raise ``ValueError`` with the reason.
    check: Callable[[Any], Any] | None = None

    @property
    def type_name(self) -> str:
        return type(self.default).__name__

    def validate(self, name: str, value: Any) -> Any:
        """Coerce ``value`` to the declared type and check its bounds."""
        kind = type(self.default)
        try:
            if kind is bool:
                if isinstance(value, str):
                    lowered = value.strip().lower()
                    if lowered not in {"true", "false", "1", "0", "yes", "no"}:
                        raise ValueError(value)
                    value = lowered in {"true", "1", "yes"}
                else:
                    value = bool(value)
            elif kind is int:
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError(value)
                value = int(value)
            elif kind is float:
                value = float(value)
            elif kind is str:
                value = str(value)
        except (TypeError, ValueError):
            raise ParamError(f"{name}: expected {kind.__name__}, got {value!r}") from None
        if self.low is not None and value < self.low:
            raise ParamError(f"{name}: {value!r} is below the minimum {self.low}")
        if self.high is not None and value > self.high:
            raise ParamError(f"{name}: {value!r} is above the maximum {self.high}")
        if self.choices is not None and value not in self.choices:
            raise ParamError(f"{name}: {value!r} is not one of {list(self.choices)}")
        if self.check is not None:
            try:
                self.check(value)
            except ValueError as exc:
                raise ParamError(f"{name}: {exc}") from None
        return value

    def describe(self) -> dict[str, Any]:
        return {
            "type": self.type_name,
            "default": self.default,
            "low": self.low,
            "high": self.high,
            "choices": list(self.choices) if self.choices is not None else None,
            "help": self.help,
        }


def resolve_params(
    transform: str, declared: dict[str, Param], overrides: dict[str, Any]
) -> dict[str, Any]:
    """Defaults overlaid with validated overrides; unknown names are refused."""
    unknown = sorted(set(overrides) - set(declared))
    if unknown:
        known = ", ".join(sorted(declared)) or "none"
        raise ParamError(f"{transform} has no parameter {', '.join(unknown)} (known: {known})")
    resolved = {name: spec.default for name, spec in declared.items()}
    for name, value in overrides.items():
        resolved[name] = declared[name].validate(f"{transform}.{name}", value)
    return resolved
