"""``abstain-build validity``: the measured validity table."""

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
    PluginOption,
    app,
    fail,
    load_registry,
    out,
    plugin_modules,
)


@app.command()
def validity(
    ledgers: Annotated[
        list[Path] | None,
        typer.Argument(help="Ledgers of readings to add to the package's.", metavar="LEDGER"),
    ] = None,
    no_package: Annotated[
        bool, typer.Option("--no-package", help="Leave out the readings shipped with the tool.")
    ] = False,
    min_validity: Annotated[
        float, typer.Option(help="The policy's bar on the lower bound (default 0.85).")
    ] = 0.85,
    as_json: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False,
    blind_policy: Annotated[
        str,
        typer.Option(
            "--blind-policy",
            help="The build's blind policy: with 'record' every reading counts; otherwise"
            " evidence edits of questions the offline blind check stops are set apart.",
        ),
    ] = "rewrite",
    plugin: PluginOption = None,
) -> None:
    """Measured validity per transform (and per transform x question kind): blind readings
    at the current versions, with Wilson 95% intervals and what the policy accepts."""
    from ..validity.policy import load_policy
    from ..validity.report import print_validity

    registry = load_registry(plugin_modules(plugin))
    try:
        policy = load_policy(
            ledgers or [],
            min_validity=min_validity,
            plugins=plugin_modules(plugin) or [],
            package=not no_package,
            blind_policy=blind_policy,
        )
    except ConfigError as exc:
        raise fail(str(exc)) from None
    if as_json:
        print(json.dumps(policy.describe(), indent=2, ensure_ascii=False))
        return
    console = out if out.is_terminal else Console(width=max(out.width, 160))
    print_validity(console, policy, registry.names())
