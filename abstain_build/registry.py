"""Registries of named classes: built-ins, entry-point plugins and ``--plugin`` modules.

Like spaCy's registries, names resolve to classes; other installed packages extend a
registry through its entry-point group (pointing at a class or at a module whose import
registers some), and a run can import extra modules with ``--plugin some.module``. Every
name remembers where it came from (``origin``), a clash is refused unless overridden, and an
unknown name is answered with the closest ones. Two registries exist: the transforms
(:mod:`.transforms.registry`) and the judges (:mod:`.qc.judges.base`).
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class RegistryError(LookupError):
    """An unknown name, a name clash, or a plugin that does not load."""


class Registry(Generic[T]):
    """Named subclasses of ``base`` (``kind`` names one in messages: "transform").

    ``check`` validates a class at registration and raises ``TypeError`` with why not;
    the registry raises ``invalid`` (a :class:`RegistryError`) with that reason."""

    def __init__(
        self,
        base: type[T],
        group: str,
        kind: str,
        check: Callable[[type[T]], None] | None = None,
        invalid: type[RegistryError] = RegistryError,
    ) -> None:
        self.base = base
        self.group = group
        self.kind = kind
        self._check = check
        self._invalid = invalid
        self._classes: dict[str, type[T]] = {}
        self._origins: dict[str, str] = {}
        self._origin_stack: list[str] = ["builtin"]
        self._entry_points_loaded = False
        self._plugins_loaded: list[str] = []

    def register(self, cls: type[T] | None = None, *, override: bool = False) -> Any:
        """Class decorator: ``@register`` or ``@register(override=True)``."""

        def decorate(klass: type[T]) -> type[T]:
            if not (isinstance(klass, type) and issubclass(klass, self.base)):
                raise RegistryError(f"{klass!r} is not a {self.base.__name__} subclass")
            if self._check is not None:
                try:
                    self._check(klass)
                except TypeError as exc:
                    raise self._invalid(
                        f"cannot register {klass.__module__}.{klass.__qualname__}: {exc}"
                    ) from None
            name: str = klass.name  # type: ignore[attr-defined]
            existing = self._classes.get(name)
            if existing is not None and existing is not klass and not override:
                raise RegistryError(
                    f"{self.kind} {name!r} is already registered by {self._origins[name]};"
                    " pass override=True to replace it"
                )
            self._classes[name] = klass
            self._origins[name] = self._origin_stack[-1]
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
                if isinstance(loaded, type) and issubclass(loaded, self.base):
                    self.register(loaded)

    def load_plugin(self, module: str) -> None:
        """Import ``module`` so that its registration decorators run; its concrete, named
        classes not registered yet are registered too."""
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
                    and issubclass(value, self.base)
                    and value.__module__ == imported.__name__
                    and getattr(value, "name", "")
                    and not getattr(value, "__abstractmethods__", None)
                    and value.name not in self._classes  # type: ignore[attr-defined]
                ):
                    self.register(value)
        self._plugins_loaded.append(module)

    def get(self, name: str) -> type[T]:
        try:
            return self._classes[name]
        except KeyError:
            close = difflib.get_close_matches(name, list(self._classes), n=3)
            if close:
                hint = f" (did you mean {', '.join(close)}?)"
            else:
                hint = f" (registered: {', '.join(self.names()) or 'none'})"
            raise RegistryError(f"unknown {self.kind} {name!r}{hint}") from None

    def origin(self, name: str) -> str:
        return self._origins[name]

    def names(self) -> list[str]:
        return sorted(self._classes)

    def __contains__(self, name: object) -> bool:
        return name in self._classes

    def __iter__(self) -> Iterator[type[T]]:
        return iter(self._classes[name] for name in self.names())

    def unregister(self, name: str) -> None:
        self._classes.pop(name, None)
        self._origins.pop(name, None)
