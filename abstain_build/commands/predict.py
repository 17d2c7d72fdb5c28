"""``abstain-build predict``: a model's answers to a built dataset."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

from pathlib import Path
from typing import Annotated

import typer

from .app import (
    MaxUnusableOption,
    ProgressEveryOption,
    app,
    err,
    fail,
    mapped_failures,
    setup_logging,
    unusable_limit,
)


@app.command()
def predict(
    dataset: Annotated[Path, typer.Argument(help="A dataset folder built by `transform`.")],
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", help="The predictions file (JSONL); with --grid, the six files' stem."
        ),
    ],
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            metavar="SPEC",
            help="openai:MODEL[@BASE_URL] or anthropic:MODEL[@BASE_URL] (a vision model);"
            " not needed by the always/never/random-abstain baselines.",
        ),
    ] = None,
    condition: Annotated[
        str, typer.Option("--condition", help="base, vconf (with a 1-5 confidence) or cot.")
    ] = "base",
    clause: Annotated[
        str, typer.Option("--clause", help="standard or extreme (abstain at any doubt).")
    ] = "standard",
    grid: Annotated[
        bool,
        typer.Option("--grid", help="All six condition x clause cells, one file each."),
    ] = False,
    system: Annotated[
        str,
        typer.Option(
            "--system",
            help="standalone, mas-sequential (Reasoner then Verifier) or mas-iterative (up to"
            " 3 Reasoner-Verifier rounds).",
        ),
    ] = "standalone",
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            help="always-abstain, never-abstain, random-abstain (no model calls),"
            " verbal-confidence (the vconf condition), self-consistency (10 samples at T=0.7),"
            " ptrue, cot-abstention or maxprob (needs token log-probabilities).",
        ),
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Model calls in flight.")] = 4,
    limit: Annotated[int | None, typer.Option(min=0, help="Only the first N items.")] = None,
    include_unverified: Annotated[
        bool,
        typer.Option(
            "--include-unverified",
            help="Also ask counterparts QC did not accept (human-rejected ones never).",
        ),
    ] = False,
    seed: Annotated[int, typer.Option(help="The random-abstain baseline's seed.")] = 0,
    pages: Annotated[
        str,
        typer.Option(
            "--pages",
            help="Document items: 'evidence' (the pages the record ships; default) or"
            " 'document' (the PDF's pages, up to --max-pages around the evidence).",
        ),
    ] = "evidence",
    max_pages: Annotated[
        int, typer.Option("--max-pages", min=1, help="The page cap of --pages document.")
    ] = 20,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", min=16, help="Reply tokens per call.")
    ] = 1024,
    temperature: Annotated[
        float,
        typer.Option(
            "--temperature",
            min=0,
            max=2,
            help="Of every call (default 0.1), but self-consistency's samples (0.7).",
        ),
    ] = 0.1,
    price: Annotated[
        str | None,
        typer.Option(
            "--price",
            metavar="IN,OUT",
            help="US dollars per million input and output tokens, for the cost summary.",
        ),
    ] = None,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Start OUT afresh.")] = False,
    model_timeout: Annotated[
        float, typer.Option("--model-timeout", min=1, help="Seconds per call attempt.")
    ] = 120.0,
    max_unusable_replies: MaxUnusableOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress on stderr.")] = False,
    progress_every: ProgressEveryOption = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    """Ask a model every item of a built dataset and write the predictions `eval` reads.

    Also writes OUT.replies.jsonl (every reply, tokens, calls, seconds, the multi-agent
    rounds and feedback) and OUT.summary.json (calls, tokens, cost, wall time). Resumable:
    run the same command again and only the items not yet answered are asked. Exit 1 when
    some items got no usable reply.
    """
    from ..models import ClientOptions
    from ..models.probe import probe_model
    from ..predict import ANCHORS, grid_paths
    from ..predict import predict as run_predict
    from ..progress import PhaseProgress

    setup_logging(debug)
    try:
        prices = _prices(price)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if grid and baseline:
        raise fail("--grid runs the six condition x clause cells: leave out --baseline")
    if baseline in ANCHORS:
        model = None  # the anchors make no call
    elif model is None:
        raise fail("--model is required (only the anchors' baselines run without one)")
    options = ClientOptions(
        timeout=model_timeout,
        concurrency=concurrency,
        max_unusable_replies=unusable_limit(max_unusable_replies),
    )
    if model is not None:
        problem = probe_model(model, options, "--model", images=True)
        if problem:
            raise fail(problem)
    cells = grid_paths(out) if grid else {(condition, clause): out}
    failed = 0
    for (cell_condition, cell_clause), target in cells.items():
        with (
            mapped_failures(debug, resumable=True),
            PhaseProgress(err, quiet=quiet, every=progress_every) as report,
        ):
            result = run_predict(
                dataset,
                model,
                target,
                condition=cell_condition,
                clause=cell_clause,
                system=system,
                baseline=baseline,
                concurrency=concurrency,
                limit=limit,
                include_unverified=include_unverified,
                overwrite=overwrite,
                seed=seed,
                max_tokens=max_tokens,
                temperature=temperature,
                pages=pages,
                max_pages=max_pages,
                price=prices,
                options=options,
                progress=lambda done, total, detail: report(done, total, "predict", detail),
            )
        skipped = ", ".join(f"{n} {status}" for status, n in sorted(result.skipped.items()))
        cost = result.summary.get("cost_usd")
        err.print(
            f"[bold green]predicted[/] {result.method}: {result.answered} of {result.asked}"
            f" asked ({result.resumed} already in {target}); {result.calls} calls,"
            f" {result.input_tokens} + {result.output_tokens} tokens, {result.seconds:.1f} s"
            + (f", ${cost:.4f} so far" if cost is not None else "")
            + (f"; counterparts not asked: {skipped}" if skipped else ""),
            highlight=False,
        )
        if result.failed:
            failed += result.failed
            err.print(
                f"[yellow]{result.failed} item(s) got no usable reply (see {result.replies});"
                f" run the same command again to retry them. First: {result.first_error}[/]",
                highlight=False,
            )
    if failed:
        raise typer.Exit(1)


def _prices(text: str | None) -> tuple[float, float] | None:
    """``--price IN,OUT`` as two non-negative numbers."""
    if text is None:
        return None
    parts = text.split(",")
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != 2 or any(v < 0 or v != v for v in values):
        raise ValueError(f"--price {text!r}: expected IN,OUT dollars per million tokens, e.g. 3,15")
    return values[0], values[1]
