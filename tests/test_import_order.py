"""Every module imports on its own, first, in a fresh interpreter.

``import abstain_build`` no longer imports the pipeline (the command line starts quickly),
so nothing imported earlier hides an import circle any more: a module that only imports
when another was imported first breaks a plugin, a script or a test that starts with it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "abstain_build"

#: Modules at the ends of the circles there have been (evidence, rewrites, transforms).
ENTRY_POINTS = [
    "abstain_build.evidence.anchors",
    "abstain_build.evidence.forms",
    "abstain_build.evidence.reading",
    "abstain_build.evidence.statements",
    "abstain_build.evidence.paraphrase",
    "abstain_build.rewrites.anchored",
    "abstain_build.rewrites.offline",
    "abstain_build.rewrites.slots",
    "abstain_build.content.page_content",
]


def _imports_alone(module: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


@pytest.mark.parametrize("module", ENTRY_POINTS)
def test_a_module_at_the_end_of_a_former_circle_imports_first(module: str) -> None:
    done = _imports_alone(module)
    assert done.returncode == 0, done.stderr[-600:]


def _all_modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__main__":
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@pytest.mark.exhaustive
def test_every_module_imports_first() -> None:
    failed = {}
    for module in _all_modules():
        done = _imports_alone(module)
        if done.returncode:
            failed[module] = done.stderr.strip().splitlines()[-1]
    assert not failed, failed


def test_the_package_keeps_pymupdf_s_advertisement_off_stdout() -> None:
    """find_tables() prints a suggestion to install another package, on stdout, where it
    would split `--json` output."""
    script = (
        "import abstain_build, pymupdf\n"
        "document = pymupdf.open()\n"
        "page = document.new_page()\n"
        "page.insert_text((72, 72), 'a b c')\n"
        "page.find_tables()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr[-600:]
    assert done.stdout == ""
