"""The transform registry: built-ins, entry-point plugins and ``--plugin`` modules.

A :class:`..registry.Registry` (as the judges' is): other installed packages extend it
through the entry-point group ``abstain_build.transforms`` (pointing at a ``Transform``
subclass or at a module whose import registers some), and a run can import extra modules
with ``--plugin some.module``.
"""

from __future__ import annotations

from ..registry import Registry, RegistryError
from .base import Transform

ENTRY_POINT_GROUP = "abstain_build.transforms"


class InvalidTransformError(RegistryError, TypeError):
    """A transform class whose declaration (name, family, axis, target, params) is invalid."""


def _validate(cls: type[Transform]) -> None:
    cls.validate_class()


class TransformRegistry(Registry[Transform]):
    """The transforms: :class:`..registry.Registry` with what a build asks of it."""

    def __init__(self, group: str = ENTRY_POINT_GROUP) -> None:
        super().__init__(Transform, group, "transform", _validate, InvalidTransformError)

    def default_names(self) -> list[str]:
        """What a build applies when no transform is named: all but the terminal fallbacks."""
        return [name for name in self.names() if not self._classes[name].terminal_fallback]


transforms = TransformRegistry()
register_transform = transforms.register


def get_registry(plugins: list[str] | tuple[str, ...] = ()) -> TransformRegistry:
    """The shared registry with built-ins, installed entry points and ``plugins`` loaded."""
    from . import builtin  # noqa: F401  (registers the built-in transforms)

    transforms.load_entry_points()
    for module in plugins:
        transforms.load_plugin(module)
    return transforms
