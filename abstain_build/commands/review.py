"""``abstain-build review``: the human review server and its outcome."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

import json
from pathlib import Path
from typing import Annotated

import typer

from ..errors import ConfigError
from .app import (
    app,
    err,
    fail,
    out,
)


@app.command()
def review(
    dataset: Annotated[Path, typer.Argument(help="A built dataset folder (with data.jsonl).")],
    annotator: Annotated[
        list[str] | None,
        typer.Option(
            "--annotator",
            "-a",
            help="An annotator's name (repeatable): each gets a link of their own, with a"
            " token their votes need; votes go to DIR/review/votes-NAME.jsonl.",
        ),
    ] = None,
    audit: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Also review N unflagged unanswerable items, spread evenly over transform"
            " families (fixed when the queue is first created).",
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed of the audit sample and the queue order (default 0).")
    ] = None,
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port on 127.0.0.1 (0: any free port).")
    ] = 8765,
    finalize: Annotated[
        bool,
        typer.Option(
            "--finalize",
            help="Apply the annotators' majority to data.jsonl and write review/summary.json.",
        ),
    ] = False,
    min_annotators: Annotated[
        int, typer.Option(min=1, help="With --finalize: votes (not skips) an item needs.")
    ] = 3,
    as_json: Annotated[
        bool, typer.Option("--json", help="With --finalize: print the summary as JSON.")
    ] = False,
) -> None:
    """Humans vote on flagged items (and an audit sample) in a local page; --finalize
    applies the majority and reports agreement."""
    from ..review import AnnotatorError, ReviewError
    from ..review import finalize as run_finalize
    from ..review.queue import flagged_outside, read_records
    from ..review.report import print_summary
    from ..review.server import open_server, serve
    from ..review.votes import REVIEW_DIR, check_annotator

    if finalize:
        from ..pipeline.output_lock import locked_output

        try:
            with locked_output(dataset, "review --finalize"):
                summary = run_finalize(dataset, min_annotators=min_annotators)
        except (ReviewError, ConfigError) as exc:
            raise fail(str(exc)) from None
        if as_json:
            print(json.dumps(summary, ensure_ascii=False, indent=1))
        else:
            print_summary(summary, out)
            out.print(f"labels written to {dataset / 'data.jsonl'}", highlight=False)
            out.print(f"summary: {dataset / REVIEW_DIR / 'summary.json'}", highlight=False)
        return
    if as_json:
        raise fail("--json goes with --finalize")
    names = list(dict.fromkeys(annotator or []))
    if not names:
        raise fail(
            "name the annotators: --annotator NAME (repeatable); each gets a link with a"
            " token of their own, and only those links can vote"
        )
    try:
        server = open_server(dataset, port, names[0], audit, seed)
        for name in names[1:]:
            check_annotator(name)
    except (ReviewError, AnnotatorError) as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(
            f"cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}); pass another --port"
        ) from None
    queue = server.session.queue
    if not queue.items:
        server.server_close()
        err.print(
            f"nothing to review in {dataset}: no flagged items"
            + ("" if audit else " (add --audit N to check a sample of the others)"),
            highlight=False,
        )
        raise typer.Exit(0)
    left_out = flagged_outside(queue, read_records(dataset))
    err.print(
        f"[bold]review[/]: {len(queue.items)} items ({queue.count('flagged')} flagged,"
        f" {queue.count('audit')} audit) from {dataset}",
        highlight=False,
    )
    if left_out:
        err.print(
            f"  [yellow]note[/]: {left_out} flagged item(s) are not in the queue fixed in"
            f" {dataset / REVIEW_DIR / 'queue.json'}",
            highlight=False,
        )
    for name in names:
        err.print(f"  {name}: open {server.url(name)}", highlight=False)
    err.print(
        f"  votes: {dataset / REVIEW_DIR}/votes-NAME.jsonl; each link is that annotator's"
        " alone (its token is keyed by review/secret)",
        highlight=False,
    )
    err.print("  each vote is saved as it is cast; Ctrl-C to stop", highlight=False)
    serve(server)
    err.print(f"stopped; votes are in {dataset / REVIEW_DIR}", highlight=False)
