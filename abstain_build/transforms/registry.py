"""The transform registry: built-ins, entry-point plugins and ``--plugin`` modules.

Like spaCy's registries, names resolve to classes; other installed packages extend the
registry through the entry-point group ``abstain_build.transforms`` (pointing at a
``Transform`` subclass or at a module whose import registers some), and a run can import
extra modules with ``--plugin some.module``.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
from collections.abc import Iterator
from importlib.metadata import entry_points
from typing import Any

from .base import Transform

ENTRY_POINT_GROUP = "abstain_build.transforms"


class RegistryError(LookupError):
    """An unknown name, a name clash, or a plugin that does not load."""


class InvalidTransformError(RegistryError, TypeError):
    """A transform class whose declaration (name, family, axis, target, params) is invalid."""


class TransformRegistry:
    def __init__(self, group: str = ENTRY_POINT_GROUP) -> None:
        self.group = group
        self._classes: dict[str, type[Transform]] = {}
        self._origins: dict[str, str] = {}
        self._origin_stack: list[str] = ["builtin"]
        self._entry_points_loaded = False
        self._plugins_loaded: list[str] = []

    def register(self, cls: type[Transform] | None = None, *, override: bool = False) -> Any:
        """Class decorator: ``@register_transform`` or ``@register_transform(override=True)``."""

        def decorate(klass: type[Transform]) -> type[Transform]:
            if not (isinstance(klass, type) and issubclass(klass, Transform)):
                raise RegistryError(f"{klass!r} is not a Transform subclass")
            try:
                klass.validate_class()
            except TypeError as exc:
                raise InvalidTransformError(
                    f"cannot register {klass.__module__}.{klass.__qualname__}: {exc}"
                ) from None
            existing = self._classes.get(klass.name)
            if existing is not None and existing is not klass and not override:
                raise RegistryError(
                    f"transform {klass.name!r} is already registered by"
                    f" {self._origins[klass.name]}; pass override=True to replace it"
                )
            self._classes[klass.name] = klass
            self._origins[klass.name] = self._origin_stack[-1]
            return klass

        return decorate(cls) if cls is not None else decorate

    @contextlib.contextmanager
    def _origin(self, origin: str) -> Iterator[None]:
        self._origin_stack.append(origin)
        try:
            yield
        finally:
            self._origin_stack.pop()

    def load_entry_points(self) -> None:
        """Import every installed plugin of the entry-point group (once)."""
        if self._entry_points_loaded:
            return
        self._entry_points_loaded = True
        for ep in sorted(entry_points(group=self.group), key=lambda e: e.name):
            dist = getattr(ep.dist, "name", None) or "unknown package"
            with self._origin(f"entry point {ep.name!r} of {dist}"):
                try:
                    loaded = ep.load()
                except Exception as exc:
                    raise RegistryError(
                        f"plugin entry point {ep.name!r} ({ep.value}) failed: {exc}"
                    ) from exc
                if isinstance(loaded, type) and issubclass(loaded, Transform):
                    self.register(loaded)

    def load_plugin(self, module: str) -> None:
        """Import ``module`` so that its ``@register_transform`` decorators run."""
        if module in self._plugins_loaded:
            return
        with self._origin(f"plugin module {module}"):
            try:
                imported = importlib.import_module(module)
            except Exception as exc:
                raise RegistryError(f"cannot import plugin module {module!r}: {exc}") from exc
            for value in vars(imported).values():
                if (
                    isinstance(value, type)
                    and issubclass(value, Transform)
                    and value.__module__ == imported.__name__
                    and getattr(value, "name", "")
                    and not getattr(value, "__abstractmethods__", None)
                    and value.name not in self._classes
                ):
                    self.register(value)
        self._plugins_loaded.append(module)

    def get(self, name: str) -> type[Transform]:
        try:
            return self._classes[name]
        except KeyError:
            close = difflib.get_close_matches(name, list(self._classes), n=3)
            if close:
                hint = f" (did you mean {', '.join(close)}?)"
            else:
                hint = f" (registered: {', '.join(self.names()) or 'none'})"
            raise RegistryError(f"unknown transform {name!r}{hint}") from None

    def origin(self, name: str) -> str:
        return self._origins[name]

    def names(self) -> list[str]:
        return sorted(self._classes)

    def default_names(self) -> list[str]:
        """What a build applies when no transform is named: all but the terminal fallbacks."""
        return [name for name in self.names() if not self._classes[name].terminal_fallback]

    def __contains__(self, name: object) -> bool:
        return name in self._classes

    def __iter__(self) -> Iterator[type[Transform]]:
        return iter(self._classes[name] for name in self.names())

    def unregister(self, name: str) -> None:
        self._classes.pop(name, None)
        self._origins.pop(name, None)


transforms = TransformRegistry()
register_transform = transforms.register


def get_registry(plugins: list[str] | tuple[str, ...] = ()) -> TransformRegistry:
    """The shared registry with built-ins, installed entry points and ``plugins`` loaded."""
    from . import builtin  # noqa: F401  (registers the built-in transforms)

    transforms.load_entry_points()
    for module in plugins:
        transforms.load_plugin(module)
    return transforms
