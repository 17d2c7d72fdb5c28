"""Names a package exports, imported on first use (PEP 562).

``import abstain_build`` and ``import abstain_build.loaders`` stay light (the command
line's ``--help`` imports them), while ``from abstain_build import build`` still works.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(
    package: str, exports: dict[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: each name of ``exports`` comes from
    its module (relative to ``package``) the first time it is asked for, then stays in
    ``namespace`` (the package's globals) so later look-ups cost nothing."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
