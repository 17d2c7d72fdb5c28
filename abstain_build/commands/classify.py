"""``abstain-build classify``: the question classifiers over a source."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..errors import ConfigError
from .app import (
    FormatOption,
    LlmOption,
    MaxUnusableOption,
    ProgressEveryOption,
    app,
    err,
    mapped_failures,
    out,
    setup_logging,
    unusable_limit,
)


@app.command()
def classify(
    source: Annotated[
        str, typer.Argument(help="Dataset folder or file (question-only files too).")
    ],
    format: FormatOption = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help='One JSON document on stdout: {"items": [one object per record],'
            ' "summary": the distribution}.',
        ),
    ] = False,
    limit: Annotated[
        int | None, typer.Option(min=0, help="Only the first N source records.")
    ] = None,
    llm: LlmOption = None,
    cache: Annotated[
        Path | None,
        typer.Option("--cache", help="SQLite file for the model's replies (default: none)."),
    ] = None,
    max_unusable_replies: MaxUnusableOption = None,
    progress_every: ProgressEveryOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress on stderr.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    """Classify each question for routing: image dependency or evidence type, and the mix.

    Reads question-only files too (no images or documents needed). Exit 1 when some
    records have no question (listed as unreadable), 2 when the source cannot be read or
    the model cannot be used.
    """
    from ..models import ClientOptions, ModelClient, stop_if_unusable
    from ..progress import PhaseProgress
    from ..questions.classify import AXIS_CLASSES, EVIDENCE, Distribution, classify_source
    from ..questions.records import iter_questions

    setup_logging(debug)
    client = None
    with mapped_failures(debug):
        try:
            if llm:
                from ..models.probe import probe_model

                # The model sees a record's images when it has them: it must take images then.
                first = next(iter(iter_questions(source, format, limit=1)), None)
                shows_images = bool(first and first.images and first.axis != EVIDENCE)
                options = ClientOptions(
                    cache_path=cache, max_unusable_replies=unusable_limit(max_unusable_replies)
                )
                problem = probe_model(llm, options, "--llm", images=shows_images)
                if problem:  # not a quiet fallback to the heuristic on every record
                    raise ConfigError(problem)
                client = ModelClient(llm, options)
            distribution = Distribution()
            rows = []
            with PhaseProgress(err, quiet=quiet, every=progress_every) as report:
                for done, item in enumerate(
                    classify_source(source, format, limit=limit, llm=client), start=1
                ):
                    stop_if_unusable([client])  # not a heuristic fallback on every later record
                    distribution.add(item)
                    rows.append(item)
                    report(done, limit, "classify")
        finally:
            if client is not None:
                client.close()
    summary = distribution.to_json()
    fell_back = distribution.llm_failures()
    failed = bool(distribution.errors) or (client is not None and fell_back > 0)
    if as_json:  # one document: `jq '.items[]'` and `jq .summary` need no line shapes
        items = [item.to_json() for item in rows]
        print(json.dumps({"items": items, "summary": summary}, ensure_ascii=False))
        _say_llm_failures(fell_back, distribution)
        raise typer.Exit(1 if failed else 0)
    console = out if out.is_terminal else Console(width=max(out.width, 160))
    table = Table(title=f"{len(rows)} records")
    for column in ("id", "axis", "class", "mode", "why", "question"):
        table.add_column(column, no_wrap=column in ("id", "class"), overflow="fold")
    for item in rows:
        record = item.record
        label = item.label or "[red]unreadable[/]"
        if not record.answerable:
            label += " [dim](unanswerable)[/]"
        question = record.question if len(record.question) <= 90 else record.question[:89] + "…"
        table.add_row(
            record.id,
            record.axis.split("_")[0],
            label,
            item.mode or "",
            Text(item.why()),
            Text(question),
        )
    console.print(table)
    for axis, data in summary["axes"].items():
        console.print(
            f"[bold]{axis}[/]: {data['total']} questions,"
            f" {data['unanswerable_in_source']} unanswerable in the source",
            highlight=False,
        )
        mix = Table()
        for column in ("class", "count", "share"):
            mix.add_column(column, justify="left" if column == "class" else "right")
        for name in AXIS_CLASSES.get(axis, tuple(data["counts"])):
            mix.add_row(name, str(data["counts"][name]), f"{data['shares'][name]:.1%}")
        console.print(mix)
    if distribution.errors:
        err.print(f"[yellow]{distribution.errors} record(s) without a question[/]")
    _say_llm_failures(fell_back, distribution)
    raise typer.Exit(1 if failed else 0)


def _say_llm_failures(fell_back: int, distribution: Any) -> None:
    """The model was asked for and failed: the classes shown are the heuristic's (exit 1)."""
    if fell_back:
        total = sum(sum(c.values()) for c in distribution.counts.values())
        err.print(
            f"[yellow]--llm failed on {fell_back} of {total} record(s); those are the"
            f" heuristic's classes. First failure: {distribution.first_llm_failure}[/]",
            highlight=False,
        )
