"""``abstain-build replay``: re-apply each item's recorded plan and compare the bytes."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

import json
from pathlib import Path
from typing import Annotated

import typer

from .app import app, err, fail, load_registry, mapped_failures, out, setup_logging


@app.command()
def replay(
    out_dir: Annotated[Path, typer.Argument(help="A dataset folder built by `transform`.")],
    ids: Annotated[
        list[str] | None,
        typer.Option("--id", help="Only this item (an id or a group id; repeatable)."),
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(help="The source dataset, when it moved since the build."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    """Re-apply every item's recorded plan to its source and check the bytes it ships.

    Exit 0 when every question, image and PDF is the same; 1 with the ids that differ.
    """
    from ..pipeline.replay import build_settings, replay_build

    setup_logging(debug)
    with mapped_failures(debug):
        settings = build_settings(out_dir)
        load_registry(settings.get("plugins") or None)
        results = list(replay_build(out_dir, ids or (), source))
    if ids and not results:
        raise fail(f"no item of {out_dir} has the id {', '.join(ids)}")
    bad = [r for r in results if not r.same]
    if as_json:
        rows = [
            {"id": r.id, "same": r.same, "differs": r.differs, "error": r.error}
            | ({"version": r.version_note} if r.version_note else {})
            for r in results
        ]
        out.print_json(json.dumps({"items": len(results), "differ": len(bad), "results": rows}))
    else:
        for result in bad:
            why = result.error or "differs: " + ", ".join(result.differs)
            note = f" ({result.version_note})" if result.version_note else ""
            err.print(f"{result.id}: {why}{note}", highlight=False, markup=False)
        out.print(
            f"replayed {len(results)} item(s) of {out_dir}: "
            + (f"{len(bad)} differ" if bad else "every one the same"),
            highlight=False,
            soft_wrap=True,
        )
    if bad:
        raise typer.Exit(1)
