"""The lower layers of the package import nothing above them (README, *Architecture*).

Read from the source (every ``from ... import`` of the package, inside functions too;
those under ``if TYPE_CHECKING:`` are for type checkers only and do not count): a page
analysis that imports a transform, or a reader of words that imports the evidence map,
puts the layers back in one circle, where none can be read, tested or replaced alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "abstain_build"

#: Bottom up: the top-level modules and folders of each layer (README, *Architecture*).
LAYERS = (
    {"model", "schema", "errors", "seeding", "numbers", "lazy_exports", "registry"},
    {"media", "loaders", "fixturegen", "text"},
    {"textregions", "models", "scoring"},
    {"content", "questions"},
    {"blind", "evidence"},
    {"rewrites"},
    {"qc", "routing"},
    {"transforms"},
    {"validity"},
    {"config", "pipeline", "progress"},
    {"export", "review", "preview", "predict", "__init__"},
    {"commands", "cli", "__main__"},
)


def _part(path: Path) -> str:
    """The top-level module or folder a file of the package belongs to."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def imported_parts(path: Path, source: str | None = None) -> set[str]:
    """The package's top-level modules and folders ``path`` (or ``source``, read as if
    it were that file) imports at run time."""
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    package = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = package if package[-1] == "__init__" else package[:-1]
    package = [p for p in package if p != "__init__"]
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only or not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = package[: len(package) - (node.level - 1)]
            target = [*base, *(node.module.split(".") if node.module else [])]
        else:
            target = (node.module or "").split(".")
        if target[0] != "abstain_build":
            continue
        if len(target) > 1:
            found.add(target[1])
        else:  # ``from .. import x``: a module or folder, or a name of the package's
            # own ``__init__``, which every module imports first anyway
            found |= {
                alias.name
                for alias in node.names
                if (PACKAGE / alias.name).is_dir() or (PACKAGE / f"{alias.name}.py").exists()
            }
    return found


def _files_of(layer: set[str]) -> list[Path]:
    files = []
    for name in sorted(layer):
        module = PACKAGE / f"{name}.py"
        files += [module] if module.exists() else sorted((PACKAGE / name).rglob("*.py"))
    return files


@pytest.mark.parametrize("level", range(len(LAYERS)))
def test_a_layer_imports_only_what_lies_below_it(level: int) -> None:
    allowed = set().union(*LAYERS[: level + 1])
    upward = {
        f"{path.relative_to(PACKAGE)} imports {sorted(imported_parts(path) - allowed)}"
        for path in _files_of(LAYERS[level])
        if imported_parts(path) - allowed
    }
    assert not upward


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {_part(path) for path in PACKAGE.rglob("*.py")}
    assert parts <= set().union(*LAYERS)


def test_no_two_folders_import_each_other_through_any_path() -> None:
    """No circle of folders at all, whatever the layers say: a newcomer can read them
    in one order."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        here = _part(path)
        graph.setdefault(here, set()).update(imported_parts(path) - {here})

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    circles = sorted(
        {tuple(sorted((a, b))) for a, targets in graph.items() for b in targets if reaches(b, a)}
    )
    assert not circles


def test_the_reader_sees_an_upward_import() -> None:
    """The check can fail: a page analysis importing a transform inside a function is
    caught, one importing it for type checkers only is not."""
    page_content = PACKAGE / "content" / "page_content.py"
    source = page_content.read_text(encoding="utf-8")
    assert "transforms" not in imported_parts(page_content)
    late = source + "\n\ndef _late():\n    from ..transforms.base import Transform\n"
    assert "transforms" in imported_parts(page_content, late)
    typed = source + "\n\nif TYPE_CHECKING:\n    from ..transforms.base import Transform\n"
    assert "transforms" not in imported_parts(page_content, typed)
