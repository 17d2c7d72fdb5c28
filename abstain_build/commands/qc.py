"""``abstain-build qc``: verify a built dataset again."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

import json
from pathlib import Path
from typing import Annotated

import typer

from .app import (
    LedgerOption,
    MaxUnusableOption,
    MinValidityOption,
    PluginOption,
    app,
    err,
    fail,
    load_registry,
    mapped_failures,
    plugin_modules,
    setup_logging,
    unusable_limit,
)


@app.command()
def qc(
    out_dir: Annotated[Path, typer.Argument(help="A dataset folder built by `transform`.")],
    judge: Annotated[
        list[str] | None,
        typer.Option(
            "--judge",
            help="A judge (give two; default: offline:leak and offline:retention).",
            metavar="SPEC",
        ),
    ] = None,
    concurrency: Annotated[
        int, typer.Option(help="Model calls in flight at once, over both judges.")
    ] = 4,
    model_timeout: Annotated[float, typer.Option(help="Seconds per model call attempt.")] = 120.0,
    max_unusable_replies: MaxUnusableOption = None,
    redo: Annotated[
        bool, typer.Option("--redo", help="Judge every item again (the reply cache still holds).")
    ] = False,
    min_validity: MinValidityOption = None,
    ledger: LedgerOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    plugin: PluginOption = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    """Verify a built dataset with two judges; resumable, without rebuilding anything."""
    from ..models import ClientOptions
    from ..pipeline.output_lock import locked_output
    from ..pipeline.rerun import built_blind_policy, rerun_qc
    from ..progress import PhaseProgress
    from ..qc.verify import OFFLINE_JUDGES, QcSpec, Verifier
    from ..validity import run_policy

    setup_logging(debug)
    names = tuple(judge or OFFLINE_JUDGES)
    if len(names) < 2:
        raise fail("give two judges: --judge A --judge B")
    options = ClientOptions(
        cache_path=out_dir / "state" / "models.sqlite",
        concurrency=max(1, concurrency // len(names)),  # each judge its share
        timeout=model_timeout,
        max_unusable_replies=unusable_limit(max_unusable_replies),
    )
    with mapped_failures(debug):
        load_registry(plugin_modules(plugin))  # a plugin may register judges
        policy = run_policy(
            ledger or [],
            min_validity,
            offline=sorted(names) == sorted(OFFLINE_JUDGES),
            plugins=plugin_modules(plugin) or [],
            blind_policy=built_blind_policy(out_dir),
        )
        verifier = Verifier(QcSpec(judges=names, model_options=options, validity=policy))
    try:
        with (
            mapped_failures(debug, resumable=True),
            locked_output(out_dir, "qc"),
            PhaseProgress(err, quiet=as_json) as report,
        ):
            result = rerun_qc(
                out_dir,
                verifier,
                concurrency=concurrency,
                redo=redo,
                progress=lambda done, total: report(done, total, "qc"),
            )
    finally:
        verifier.close()
    if as_json:
        print(json.dumps({"judged": result.judged, "resumed": result.resumed, **result.rates}))
        return
    overall = result.rates["overall"]
    err.print(
        f"[bold green]qc[/] {overall['judged']} items ({result.judged} judged now,"
        f" {result.resumed} from an earlier run): "
        + ", ".join(f"{k} {v}" for k, v in overall["counts"].items()),
        highlight=False,
    )
    for family, block in result.rates["by_family"].items():
        err.print(
            f"  {family}: " + ", ".join(f"{k} {v}" for k, v in block["counts"].items()),
            highlight=False,
        )
    err.print(f"  data: {out_dir / 'data.jsonl'} (qc.status per item)")
