"""``abstain-build preview``: what each transform does to one sample."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

from typing import Annotated

import typer

from .app import (
    FormatOption,
    LlmOption,
    ParamOption,
    PluginOption,
    TransformsOption,
    app,
    err,
    mapped_failures,
    parse_params,
    plugin_modules,
    setup_logging,
    split_names,
)


@app.command()
def preview(
    source: Annotated[str, typer.Argument(help="Dataset folder or file.")],
    sample: Annotated[
        str, typer.Option("--sample", "-s", help="Sample id (see `abstain-build samples`).")
    ],
    out_dir: Annotated[
        str, typer.Option("--out", "-o", help="Folder for index.html and the contact sheet.")
    ],
    transforms: TransformsOption = None,
    seed: Annotated[int, typer.Option(help="Seed, as in `transform`.")] = 0,
    format: FormatOption = None,
    param: ParamOption = None,
    plugin: PluginOption = None,
    llm: LlmOption = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    """Apply every applicable transform (or those named) to one sample and show the results."""
    from ..preview import preview as run_preview

    setup_logging(debug)
    with mapped_failures(debug):
        result = run_preview(
            source,
            sample,
            out_dir,
            transforms=split_names(transforms),
            seed=seed,
            params=parse_params(param),
            plugins=plugin_modules(plugin) or [],
            format=format,
            llm=llm,
        )
    for item in result.items:
        style = PREVIEW_STYLES[item.status]
        reason = f": {item.reason}" if item.reason else ""
        err.print(f"  [{style}]{item.transform.name:<26} {item.status}{reason}[/]", highlight=False)
    err.print(f"[bold green]preview[/] {result.index}")
    err.print(f"  contact sheet: {result.contact_sheet}")


#: How each preview status (``preview.run.STATUSES``) is printed.
PREVIEW_STYLES = {
    "ok": "green",
    "not_applicable": "dim",
    "error": "red",
    "qc_failed": "red",
    "still_stated": "red",
}
