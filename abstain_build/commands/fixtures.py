"""``abstain-build fixtures``: regenerate the embedded fixtures."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

from pathlib import Path
from typing import Annotated

import typer

from .app import app, err


@app.command()
def fixtures(
    out_dir: Annotated[Path, typer.Argument(help="Where to write them.")] = Path("fixtures"),
) -> None:
    """Regenerate the shipped synthetic fixture datasets (deterministic)."""
    from ..fixturegen import generate

    written = generate(out_dir)
    err.print(f"wrote {len(written)} files under {out_dir}")
