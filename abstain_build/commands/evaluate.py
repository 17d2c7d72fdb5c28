"""``abstain-build eval``: score predictions against a built dataset."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ..errors import ConfigError
from .app import (
    app,
    err,
    fail,
    out,
)


@app.command("eval")
def eval_command(
    dataset: Annotated[Path, typer.Argument(help="A dataset folder built by `transform`.")],
    predictions: Annotated[
        list[Path],
        typer.Argument(
            help='JSONL, one {"id", "response", optional "confidence" 1-5 or "probability"'
            " 0-1} per line; several files: scored side by side."
        ),
    ],
    by: Annotated[
        str,
        typer.Option(
            "--by",
            help="Breakdown table: family, transform, subset or blind (the blind check's"
            " verdict on the source: how much of a score is recall, not reading).",
        ),
    ] = "family",
    abstain_phrases: Annotated[
        list[Path] | None,
        typer.Option(
            "--abstain-phrases",
            help="A file of extra abstention phrases, one per line (repeatable).",
            metavar="FILE",
        ),
    ] = None,
    verified_only: Annotated[
        bool,
        typer.Option("--verified-only", help="Score only counterparts QC accepted."),
    ] = False,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Where report.json, items.jsonl and the chart go"
            " (default: DATASET/eval/<predictions name>; with several files, a folder"
            " per file under --out).",
        ),
    ] = None,
    response_key: Annotated[
        str, typer.Option("--response-key", help="The predictions' field with the model's text.")
    ] = "response",
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    strict: Annotated[
        bool,
        typer.Option("--strict", help="Exit 1 when predictions are missing, extra or malformed."),
    ] = False,
) -> None:
    """Score a model's responses: the five-way confusion matrix, AAC / UAC / AR / MCC,
    a breakdown, pair metrics and, with confidences, the threshold sweep.

    Exit 1 with --strict when any prediction is missing, extra or malformed; 2 when the
    dataset or the predictions cannot be read.
    """
    from ..scoring.abstention import build_matcher
    from ..scoring.evaluate import BREAKDOWNS, evaluate
    from ..scoring.items import read_items
    from ..scoring.predictions import SIDECAR_SUFFIX, read_predictions
    from ..scoring.report import print_report, write_outputs

    if by not in BREAKDOWNS:
        raise fail(f"--by must be one of {', '.join(BREAKDOWNS)}, not {by!r}")
    phrase_files = list(abstain_phrases or [])
    sidecars = [path for path in predictions if path.name.endswith(SIDECAR_SUFFIX)]
    predictions = [path for path in predictions if path not in sidecars]
    if not predictions:
        raise fail(
            f"{sidecars[0]} is the sidecar of raw replies `predict` writes; give the"
            f" predictions file itself ({sidecars[0].name.removesuffix(SIDECAR_SUFFIX)})"
        )
    if sidecars:
        err.print(
            f"[yellow]not scored: {len(sidecars)} sidecar file(s) of raw replies"
            f" (*{SIDECAR_SUFFIX}), e.g. {sidecars[0]}[/]",
            highlight=False,
        )
    try:
        matcher = build_matcher(phrase_files)
        items = read_items(dataset, verified_only=verified_only)
        files = [(path, read_predictions(path, response_key)) for path in predictions]
    except ConfigError as exc:
        raise fail(str(exc)) from None
    names = _distinct_stems(predictions)
    runs = []
    for (path, answers), name in zip(files, names, strict=True):
        evaluation = evaluate(
            items, answers, matcher, phrase_files=phrase_files, predictions_path=path
        )
        if len(files) == 1:
            target = out_dir or items.path.parent / "eval" / name
        else:
            target = (out_dir or items.path.parent / "eval") / name
        runs.append((name, write_outputs(evaluation, target), target))
    console = out if out.is_terminal else Console(width=max(out.width, 140))
    if len(runs) == 1:
        _, data, target = runs[0]
        if as_json:
            print(json.dumps({**data, "written": str(target)}, ensure_ascii=False))
        else:
            print_report(console, data, by, target)
    else:
        from ..scoring.compare import comparison_rows, comparison_table

        rows = comparison_rows([(name, data) for name, data, _ in runs])
        if as_json:
            payload = {
                "comparison": rows,
                "runs": [{**data, "written": str(target)} for _, data, target in runs],
            }
            print(json.dumps(payload, ensure_ascii=False))
        else:
            console.print(comparison_table(rows))
            for name, _, target in runs:
                console.print(f"{name}: {target / 'report.json'}", highlight=False)
    if strict and any(
        data["problems"][k] for _, data, _ in runs for k in ("missing", "extra", "lines")
    ):
        raise typer.Exit(1)


def _distinct_stems(paths: list[Path]) -> list[str]:
    """A name per predictions file: its stem, numbered when two files share one."""
    stems = [path.stem for path in paths]
    seen: dict[str, int] = {}
    names = []
    for stem in stems:
        seen[stem] = seen.get(stem, 0) + 1
        names.append(stem if stems.count(stem) == 1 else f"{stem}-{seen[stem]}")
    return names
