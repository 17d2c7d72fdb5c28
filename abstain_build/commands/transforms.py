"""``abstain-build transforms list|show``: the registered transforms, listed and shown."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from .app import (
    PluginOption,
    fail,
    load_registry,
    out,
    plugin_modules,
    transforms_app,
)


@transforms_app.command("list")
def transforms_list(
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    plugin: PluginOption = None,
) -> None:
    """Name, family, axis and target of every registered transform."""
    registry = load_registry(plugin_modules(plugin))
    rows = [dict(cls.info(), origin=registry.origin(cls.name)) for cls in registry]
    if as_json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    table = Table(title=f"{len(rows)} registered transforms")
    for column in ("name", "version", "family", "axis", "target", "origin"):
        table.add_column(column, no_wrap=column in ("name", "target"))
    for row in rows:
        table.add_row(
            row["name"],
            f"v{row['version']}",
            row["family"],
            row["axis"],
            row["target"],
            row["origin"],
        )
    # Piped output has no terminal width: do not cut names, families or origins at 80 columns.
    console = out if out.is_terminal else Console(width=max(out.width, 200))
    console.print(table)


@transforms_app.command("show")
def transforms_show(
    name: Annotated[str, typer.Argument(help="Transform name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    plugin: PluginOption = None,
) -> None:
    """Description, parameters (defaults and bounds) and intensity definition of one transform."""
    registry = load_registry(plugin_modules(plugin))
    from ..transforms.registry import RegistryError

    try:
        cls = registry.get(name)
    except RegistryError as exc:
        raise fail(str(exc)) from None
    info = dict(cls.info(), origin=registry.origin(name))
    if as_json:
        print(json.dumps(info, indent=2, ensure_ascii=False))
        return
    out.print(
        f"[bold]{info['name']}[/] v{info['version']}  ({info['family']}, {info['axis']},"
        f" target {info['target']})"
    )
    out.print(f"  {info['description']}")
    out.print(f"  intensity: {info['intensity']}")
    out.print(f"  origin: {info['origin']}")
    if info["terminal_fallback"]:
        out.print("  terminal fallback: applied only when named (--transforms)")
    rewrite = info.get("rewrite")
    if rewrite:
        out.print(f"  offline generator: {rewrite['offline']}")
        prompt = rewrite["llm_prompt"]
        if prompt:
            out.print(f"  LLM prompt (--llm): {prompt['id']}: {prompt['goal']}", highlight=False)
        else:
            out.print("  LLM prompt: none (offline only)")
    table = Table(title="parameters")
    for column in ("name", "type", "default", "bounds", "help"):
        table.add_column(column)
    for pname, spec in info["params"].items():
        if spec["choices"]:
            bounds = " | ".join(map(str, spec["choices"]))
        elif spec["low"] is None and spec["high"] is None:
            bounds = "-"
        else:
            low = "" if spec["low"] is None else spec["low"]
            high = "" if spec["high"] is None else spec["high"]
            bounds = f"[{low}, {high}]"
        table.add_row(pname, spec["type"], repr(spec["default"]), bounds, spec["help"])
    out.print(table)
