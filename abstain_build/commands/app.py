"""The command line's app, its shared options and the helpers every command uses."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from .. import __version__
from ..loaders import FORMATS

app = typer.Typer(
    help="Build verified unanswerable counterparts of multimodal QA datasets.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
transforms_app = typer.Typer(
    help="List and inspect the registered transforms.", no_args_is_help=True
)
app.add_typer(transforms_app, name="transforms")

err = Console(stderr=True, soft_wrap=True)
out = Console()

FormatOption = Annotated[
    str | None, typer.Option("--format", help=f"Force the source layout: {', '.join(FORMATS)}.")
]
PluginOption = Annotated[
    list[str] | None,
    typer.Option("--plugin", help="Import this module to register its transforms (repeatable)."),
]
ParamOption = Annotated[
    list[str] | None,
    typer.Option(
        "--param",
        help="Override a transform parameter: NAME.KEY=VALUE (repeatable).",
        metavar="NAME.KEY=VALUE",
    ),
]
ProgressEveryOption = Annotated[
    float | None,
    typer.Option(
        "--progress-every",
        metavar="S",
        help="When stderr is not a terminal (nohup, a batch job), print one progress line"
        " per phase every S seconds (default 30); on a terminal, a bar with the rate.",
    ),
]
LlmOption = Annotated[
    str | None,
    typer.Option(
        "--llm",
        envvar="ABSTAIN_BUILD_LLM",
        help="Model for LLM mode (question rewrites, image-dependency classifier):"
        " openai:MODEL\\[@BASE_URL] or anthropic:MODEL\\[@BASE_URL]; keys from"
        " OPENAI_API_KEY / ANTHROPIC_API_KEY. Default: offline templates and heuristics.",
        metavar="SPEC",
    ),
]
TransformsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--transforms",
        "-t",
        help="Transform names, comma-separated or the option repeated (default: all registered).",
    ),
]
MinValidityOption = Annotated[
    float | None,
    typer.Option(
        "--min-validity",
        metavar="P",
        help="Accept a counterpart only where its transform's measured validity (blind"
        " readings, Wilson 95% lower bound, n >= 20) reaches P; else it is flagged (default"
        " 0.85 with offline QC; with --qc judges only when given; 0: off).",
    ),
]
MaxUnusableOption = Annotated[
    int | None,
    typer.Option(
        "--max-unusable-replies",
        min=0,
        metavar="N",
        help="Stop (exit 2, quoting the last reply) after N model replies in a row that are"
        " not in the format asked for; what was written stays (default 5; 0: never stop).",
    ),
]
LedgerOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--ledger",
        help="A ledger of blind readings to add to the package's (repeatable).",
    ),
]


def fail(message: str, code: int = 2) -> typer.Exit:
    # Escaped: a message may quote a model's reply, whose "[...]" is not markup.
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    return typer.Exit(code)


@contextlib.contextmanager
def mapped_failures(debug: bool = False, resumable: bool = False) -> Iterator[None]:
    """The commands' one error mapping, around a command's work: a setting or input it
    cannot use exits 2 with the reason; a stop (a model unusable, a full disk, no memory)
    exits 2 with "stopped: ..."; Ctrl-C exits 130, saying to re-run when the command
    resumes (``resumable``); any other error exits 2 with its type and message, or shows
    its traceback with ``--debug``. ``typer.Exit`` passes through."""
    from ..errors import ConfigError, RunStopped, environment_failure

    try:
        yield
    except typer.Exit:
        raise
    except ConfigError as exc:
        raise fail(str(exc)) from None
    except RunStopped as exc:
        raise fail(f"stopped: {exc}") from None
    except KeyboardInterrupt:
        if not resumable:
            raise
        err.print("interrupted: re-run the same command to resume")
        raise typer.Exit(130) from None
    except Exception as exc:
        if (stopped := environment_failure(exc)) is not None:
            raise fail(f"stopped: {stopped}") from None
        if debug:
            raise
        raise fail(f"{type(exc).__name__}: {exc} (run with --debug for the traceback)") from None


def unusable_limit(value: int | None) -> int:
    """``--max-unusable-replies``, or the model client's default."""
    from ..models.unusable import DEFAULT_LIMIT

    return DEFAULT_LIMIT if value is None else value


def split_names(value: str | list[str] | None) -> list[str] | None:
    """Names given comma-separated, in one value or in a repeated option's values."""
    if value is None:
        return None
    values = [value] if isinstance(value, str) else value
    names = [name.strip() for one in values for name in one.split(",") if name.strip()]
    return names or None


def parse_params(values: list[str] | None) -> dict[str, dict[str, Any]] | None:
    if not values:
        return None
    params: dict[str, dict[str, Any]] = {}
    for value in values:
        key, sep, raw = value.partition("=")
        name, dot, field_name = key.partition(".")
        if not (sep and dot and name and field_name):
            raise fail(
                f"--param {value!r}: expected NAME.KEY=VALUE, e.g. adaptive_darkness.divisor=12"
            )
        params.setdefault(name.strip(), {})[field_name.strip()] = scalar(raw.strip())
    return params


def scalar(raw: str) -> Any:
    """A flag value read as TOML would read it (12 -> int, 0.5 -> float, true -> bool)."""
    import tomllib

    try:
        return tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError:
        return raw


def plugin_modules(values: list[str] | None) -> list[str] | None:
    """Like ``python -m``, let ``--plugin mymodule`` find mymodule.py in the current folder."""
    if values and os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    return values or None


@app.callback(invoke_without_command=True)
def _main(
    version: Annotated[bool, typer.Option("--version", help="Show the version and exit.")] = False,
) -> None:
    if version:
        out.print(f"abstain-build {__version__}")
        raise typer.Exit(0)


def load_registry(plugins: list[str] | None) -> Any:
    from ..transforms.registry import RegistryError, get_registry

    try:
        return get_registry(tuple(plugins or ()))
    except RegistryError as exc:
        raise fail(str(exc)) from None


def setup_logging(debug: bool) -> None:
    import logging

    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING, stream=sys.stderr)
