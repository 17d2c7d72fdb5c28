"""``abstain-build samples``: the samples a source holds."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

import json
from typing import Annotated

import typer

from ..errors import ConfigError
from .app import (
    FormatOption,
    app,
    fail,
)


@app.command()
def samples(
    source: Annotated[str, typer.Argument(help="Dataset folder or file.")],
    format: FormatOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    limit: Annotated[int | None, typer.Option(help="Only the first N records.")] = None,
) -> None:
    """List the sample ids of a source (for `preview --sample`), with skips and load errors."""
    from ..loaders import open_source
    from ..model import SampleProblem

    try:
        loaded = open_source(source, format)
        rows = []
        for position, item in enumerate(loaded):
            if limit is not None and position >= limit:
                break
            if isinstance(item, SampleProblem):
                status = "skipped" if item.skip else "error"
                rows.append(
                    {"id": item.sample_id, "status": status, "question": "", "detail": item.reason}
                )
            else:
                rows.append(
                    {
                        "id": item.id,
                        "status": "ok",
                        "question": item.question,
                        "detail": f"pages {list(item.evidence_pages)}"
                        if item.document
                        else f"{len(item.images)} image(s)",
                    }
                )
    except ConfigError as exc:
        raise fail(str(exc)) from None
    if as_json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return
    width = max((len(row["id"]) for row in rows), default=2)
    detail_width = max((len(row["detail"]) for row in rows if row["status"] == "ok"), default=0)
    print(f"# {loaded.dataset} ({loaded.layout}): {len(rows)} records")
    for row in rows:
        text = row["question"] if row["status"] == "ok" else row["detail"]
        detail = row["detail"] if row["status"] == "ok" else ""
        line = f"{row['id']:<{width}}  {row['status']:<7}  {detail:<{detail_width}}  {text[:100]}"
        print(line.rstrip())
