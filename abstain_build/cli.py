"""The ``abstain-build`` command: a thin layer over the Python API.

Exit codes: 0 all went through; 1 the run finished but some samples failed (see
errors.jsonl); 2 the run could not start (bad flags, config, source or output folder) or
was stopped (a model that cannot be used: a refused key, replies never in the format).
"""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from . import __version__
from .errors import ConfigError, RunStopped, environment_failure
from .loaders import FORMATS

# Each command imports what it runs on (the pipeline, PDF and image libraries, models,
# scoring) when it runs: `--help` and the light commands start without them.
if TYPE_CHECKING:
    from .config import BuildConfig

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
    str | None,
    typer.Option(
        "--transforms", "-t", help="Comma-separated transform names (default: all registered)."
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


def _fail(message: str, code: int = 2) -> typer.Exit:
    # Escaped: a message may quote a model's reply, whose "[...]" is not markup.
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    return typer.Exit(code)


def _unusable_limit(value: int | None) -> int:
    """``--max-unusable-replies``, or the model client's default."""
    from .models.unusable import DEFAULT_LIMIT

    return DEFAULT_LIMIT if value is None else value


def _split_names(value: str | None) -> list[str] | None:
    if value is None:
        return None
    names = [name.strip() for name in value.split(",") if name.strip()]
    return names or None


def _parse_params(values: list[str] | None) -> dict[str, dict[str, Any]] | None:
    if not values:
        return None
    params: dict[str, dict[str, Any]] = {}
    for value in values:
        key, sep, raw = value.partition("=")
        name, dot, field_name = key.partition(".")
        if not (sep and dot and name and field_name):
            raise _fail(
                f"--param {value!r}: expected NAME.KEY=VALUE, e.g. adaptive_darkness.divisor=12"
            )
        params.setdefault(name.strip(), {})[field_name.strip()] = _scalar(raw.strip())
    return params


def _scalar(raw: str) -> Any:
    """A flag value read as TOML would read it (12 -> int, 0.5 -> float, true -> bool)."""
    import tomllib

    try:
        return tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError:
        return raw


def _plugins(values: list[str] | None) -> list[str] | None:
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


@app.command()
def transform(
    source: Annotated[str | None, typer.Argument(help="Dataset folder or file.")] = None,
    out_dir: Annotated[str | None, typer.Option("--out", "-o", help="Output folder.")] = None,
    format: FormatOption = None,
    seed: Annotated[int | None, typer.Option(help="Run seed (default 0).")] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", "-j", help="Worker processes.")
    ] = None,
    transforms: TransformsOption = None,
    no_routing: Annotated[
        bool,
        typer.Option(
            "--no-routing", help="Apply each named transform to every sample that can take it."
        ),
    ] = False,
    param: ParamOption = None,
    plugin: PluginOption = None,
    llm: LlmOption = None,
    qc: Annotated[
        str | None,
        typer.Option(
            "--qc",
            help="Verify each item: offline (reference judges, the default), judges (the two"
            " --judge), none (structural checks only).",
        ),
    ] = None,
    judge: Annotated[
        list[str] | None,
        typer.Option(
            "--judge",
            help="A judge (give two): a model spec (openai:MODEL\\[@URL],"
            " anthropic:MODEL\\[@URL]) or a registered one (offline:leak, offline:retention).",
            metavar="SPEC",
        ),
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(help="Model calls in flight at once, over all workers (default 4)."),
    ] = None,
    model_timeout: Annotated[
        float | None, typer.Option(help="Seconds per model call attempt (default 120).")
    ] = None,
    max_unusable_replies: MaxUnusableOption = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N source records.")] = None,
    max_pixels: Annotated[
        int | None, typer.Option(help="Refuse images/pages above this many pixels (default 64M).")
    ] = None,
    dpi: Annotated[
        int | None, typer.Option(help="Render evidence pages at this dpi (default 144).")
    ] = None,
    context: Annotated[
        str | None,
        typer.Option(
            help="What a model sees of a document: 'document' (the whole PDF, as"
            " MMLongBench-Doc evaluates; default) or 'pages' (the evidence pages' images)."
            " Every page the model sees that states the answer is edited, and re-read.",
        ),
    ] = None,
    answer_changed: Annotated[
        bool | None,
        typer.Option(
            "--answer-changed/--no-answer-changed",
            help="Keep a corrupted document item whose page now prints one clean new answer"
            " as an answer-changed item (answerable, new gold; default) or drop it. Either"
            " way the sample's counterpart comes from its next transform.",
        ),
    ] = None,
    progress_every: ProgressEveryOption = None,
    blind_gate: Annotated[
        str | None,
        typer.Option(
            "--blind-gate",
            metavar="SPEC",
            help="Model for the blind check (text only: can the question be answered"
            " without its images or document?): openai:MODEL[@BASE_URL] or"
            " anthropic:MODEL[@BASE_URL]. Default: the offline cues.",
            envvar="ABSTAIN_BUILD_BLIND_GATE",
        ),
    ] = None,
    blind_policy: Annotated[
        str | None,
        typer.Option(
            "--blind-policy",
            help="What a question answerable without its evidence gets: 'rewrite' (question"
            " rewrites only, no image or page edit; default), 'skip' (not used as a source)"
            " or 'record' (the verdict is recorded, nothing changes).",
        ),
    ] = None,
    min_validity: MinValidityOption = None,
    ledger: LedgerOption = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML file, or a previous run's manifest.json.")
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Delete an existing output folder and start over.")
    ] = False,
    ocr_cache: Annotated[
        Path | None,
        typer.Option(
            "--ocr-cache",
            help="Folder of page readings and OCR results, shared by the builds given it: each"
            " page of the same documents is read once (default OUT/state/ocr).",
        ),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar or summary.")
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    """Build the dataset: originals as controls plus their unanswerable counterparts."""
    from .config import read_config_file, resolve_config
    from .pipeline.build import build
    from .progress import PhaseProgress

    _logging(debug)
    flags = {
        "source": source,
        "out": out_dir,
        "format": format,
        "seed": seed,
        "workers": workers,
        "transforms": _split_names(transforms),
        "routing": "none" if no_routing else None,
        "transform_params": _parse_params(param),
        "plugins": _plugins(plugin),
        "llm": llm,
        "qc": qc,
        "judges": judge or None,
        "model_concurrency": concurrency,
        "model_timeout": model_timeout,
        "max_unusable_replies": max_unusable_replies,
        "limit": limit,
        "max_pixels": max_pixels,
        "dpi": dpi,
        "context": context,
        "answer_changed": answer_changed,
        "blind_gate": blind_gate,
        "blind_policy": blind_policy,
        "min_validity": min_validity,
        "ledgers": [str(p) for p in ledger] if ledger else None,
        "overwrite": overwrite or None,
        "ocr_cache": str(ocr_cache) if ocr_cache else None,
    }
    try:
        settings = read_config_file(config) if config else {}
        resolved = resolve_config(settings, flags)
    except (ConfigError, TypeError) as exc:
        raise _fail(str(exc)) from None
    started = time.perf_counter()
    try:
        with PhaseProgress(err, quiet=quiet, every=progress_every) as report:
            result = build(resolved, progress=report)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except RunStopped as exc:
        raise _fail(f"stopped: {exc}") from None
    except KeyboardInterrupt:
        err.print("interrupted: re-run the same command to resume")
        raise typer.Exit(130) from None
    except Exception as exc:
        if (stopped := environment_failure(exc)) is not None:
            raise _fail(f"stopped: {stopped}") from None
        if debug:
            raise
        raise _fail(f"{type(exc).__name__}: {exc} (run with --debug for the traceback)") from None
    if not quiet:
        _summary(resolved, result, time.perf_counter() - started)
    if result.qc_failed:  # said even with --quiet: the exit code alone would not say why
        err.print(
            "error: every QC verdict was qc_error (the judges never answered): nothing was"
            " verified; fix the judges and run `abstain-build qc` on the output"
        )
    raise typer.Exit(result.exit_code)


def _summary(config: "BuildConfig", result: Any, seconds: float) -> None:
    counts = result.counts.to_json()
    items = counts["items"]
    skipped = sum(counts["skipped"].values())
    failed = result.counts.failed_samples
    err.print(
        f"[bold green]done[/] in {seconds:.1f}s: {counts['records_in']} source records ->"
        f" {items['answerable']} answerable + {items['unanswerable']} unanswerable items"
        + (f" (resumed after {result.resumed_samples})" if result.resumed_samples else ""),
        highlight=False,
    )
    if counts["by_transform"]:
        err.print(
            "  per transform: " + ", ".join(f"{k} {v}" for k, v in counts["by_transform"].items())
        )
    qc = counts["qc"]["overall"]
    if qc["judged"]:
        err.print(
            f"  qc ({', '.join(result.manifest['models']['judges'])}): "
            + ", ".join(f"{k} {v}" for k, v in qc["counts"].items()),
            highlight=False,
        )
    failed_reads = {k: v["failed"] for k, v in counts["reread"].items() if v["failed"]}
    if counts["reread"]:
        read = sum(v["passed"] + v["failed"] for v in counts["reread"].values())
        err.print(
            f"  re-read gate: {read} attempts read again, {sum(failed_reads.values())} could"
            " still be answered (the answer stated, its operand rows readable, or the pictures"
            " of a seen answer left)"
            + (
                " (" + ", ".join(f"{k} {v}" for k, v in failed_reads.items()) + "; the next"
                " transform ran)"
                if failed_reads
                else ""
            ),
            highlight=False,
        )
    if skipped:
        err.print(
            f"  skipped {skipped}: " + "; ".join(f"{v} x {k}" for k, v in counts["skipped"].items())
        )
    for line in _why_missing_lines(counts["why_missing"]):
        err.print(line, highlight=False, markup=False)
    if failed:
        err.print(
            f"  [yellow]{failed} sample(s) had errors[/]: see {result.out_dir / 'errors.jsonl'}"
        )
    err.print(f"  data: {result.out_dir / 'data.jsonl'}")
    err.print(
        f"  card: {result.out_dir / 'README.md'}   manifest: {result.out_dir / 'manifest.json'}"
    )


#: The headings of ``BuildCounts.why_missing``'s lists in the summary.
WHY_MISSING_TITLES = {
    "not_applicable": "not applicable",
    "blind": "answerable without the evidence (blind check)",
    "qc_rejected": "rejected by QC",
}


def _why_missing_lines(why: dict[str, dict[str, int]]) -> list[str]:
    """The top reasons of each kind, one indented line per reason with its count."""
    lines = []
    for kind, title in WHY_MISSING_TITLES.items():
        if why[kind]:
            lines.append(f"  {title}, top reasons:")
            lines += [f"    {count} {reason}" for reason, count in why[kind].items()]
    return lines


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
    from .preview import preview as run_preview

    _logging(debug)
    try:
        result = run_preview(
            source,
            sample,
            out_dir,
            transforms=_split_names(transforms),
            seed=seed,
            params=_parse_params(param),
            plugins=_plugins(plugin) or [],
            format=format,
            llm=llm,
        )
    except ConfigError as exc:
        raise _fail(str(exc)) from None
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
    from .models import ClientOptions
    from .pipeline.output_lock import locked_output
    from .pipeline.rerun import built_blind_policy, rerun_qc
    from .progress import PhaseProgress
    from .qc.verify import OFFLINE_JUDGES, QcSpec, Verifier
    from .validity import run_policy

    _logging(debug)
    names = tuple(judge or OFFLINE_JUDGES)
    if len(names) < 2:
        raise _fail("give two judges: --judge A --judge B")
    options = ClientOptions(
        cache_path=out_dir / "state" / "models.sqlite",
        concurrency=max(1, concurrency // len(names)),  # each judge its share
        timeout=model_timeout,
        max_unusable_replies=_unusable_limit(max_unusable_replies),
    )
    try:
        _registry(_plugins(plugin))  # a plugin may register judges
        policy = run_policy(
            ledger or [],
            min_validity,
            offline=sorted(names) == sorted(OFFLINE_JUDGES),
            plugins=_plugins(plugin) or [],
            blind_policy=built_blind_policy(out_dir),
        )
        verifier = Verifier(QcSpec(judges=names, model_options=options, validity=policy))
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    try:
        with locked_output(out_dir, "qc"), PhaseProgress(err, quiet=as_json) as report:
            result = rerun_qc(
                out_dir,
                verifier,
                concurrency=concurrency,
                redo=redo,
                progress=lambda done, total: report(done, total, "qc"),
            )
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except RunStopped as exc:
        raise _fail(f"stopped: {exc}") from None
    except OSError as exc:
        if (stopped := environment_failure(exc)) is None:
            raise
        raise _fail(f"stopped: {stopped}") from None
    except KeyboardInterrupt:
        err.print("interrupted: re-run the same command to resume")
        raise typer.Exit(130) from None
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
    from .models import ClientOptions
    from .models.probe import probe_model
    from .predict import ANCHORS, grid_paths
    from .predict import predict as run_predict
    from .progress import PhaseProgress

    _logging(debug)
    try:
        prices = _prices(price)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    if grid and baseline:
        raise _fail("--grid runs the six condition x clause cells: leave out --baseline")
    if baseline in ANCHORS:
        model = None  # the anchors make no call
    elif model is None:
        raise _fail("--model is required (only the anchors' baselines run without one)")
    options = ClientOptions(
        timeout=model_timeout,
        concurrency=concurrency,
        max_unusable_replies=_unusable_limit(max_unusable_replies),
    )
    if model is not None:
        problem = probe_model(model, options, "--model", images=True)
        if problem:
            raise _fail(problem)
    cells = grid_paths(out) if grid else {(condition, clause): out}
    failed = 0
    for (cell_condition, cell_clause), target in cells.items():
        try:
            with PhaseProgress(err, quiet=quiet, every=progress_every) as report:
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
        except ConfigError as exc:
            raise _fail(str(exc)) from None
        except RunStopped as exc:
            raise _fail(f"stopped: {exc}") from None
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


@app.command()
def export(
    out_dir: Annotated[Path, typer.Argument(help="A dataset folder built by `transform`.")],
    to: Annotated[Path, typer.Option("--to", help="The folder to write (empty or new).")],
    format: Annotated[
        str, typer.Option("--format", help="Only parquet (Hugging Face Hub layout).")
    ] = "parquet",
    shard_size: Annotated[
        int | None,
        typer.Option(
            "--shard-size",
            min=1,
            help="Records per parquet shard (default: a shard per 256 MB of images).",
        ),
    ] = None,
    license: Annotated[
        str | None,
        typer.Option(
            "--license",
            help="License id for the card (default: the source's: MMMU apache-2.0,"
            " MMLongBench-Doc cc-by-nc-4.0; else unknown).",
        ),
    ] = None,
    push_to_hub: Annotated[
        str | None,
        typer.Option(
            "--push-to-hub",
            metavar="REPO",
            help="Then upload the folder to this Hub dataset repository (token from"
            " HF_TOKEN or `hf auth login`).",
        ),
    ] = None,
    private: Annotated[bool, typer.Option("--private", help="With --push-to-hub.")] = False,
    documents: Annotated[
        str,
        typer.Option(
            "--documents",
            help="auto (default): ship each PDF once unless the build's context is the"
            " evidence pages; full: always; none: never (images hold the evidence pages).",
        ),
    ] = "auto",
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace --to.")] = False,
) -> None:
    """Write a build as Hub-ready parquet (images embedded) with a complete dataset card.

    Splits: original, counterpart (and answer_changed when present). Nothing of
    DIR/state and no absolute path is written.
    """
    from .export import export_dataset
    from .export import push_to_hub as upload

    if format != "parquet":
        raise _fail(f"--format {format!r}: only parquet is supported")
    from .pipeline.output_lock import locked_output

    try:
        with locked_output(out_dir, "export"):
            result = export_dataset(
                out_dir,
                to,
                shard_size=shard_size,
                license=license,
                documents=documents,
                overwrite=overwrite,
                repo=push_to_hub,
            )
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    parts = ", ".join(
        f"{name} {files.records} ({len(files.files)} shard(s))"
        for name, files in result.splits.items()
    )
    err.print(
        f"[bold green]exported[/] {to}: {parts}; {result.documents} document(s);"
        f" {result.bytes / 1e6:.1f} MB in {result.seconds:.1f} s",
        highlight=False,
    )
    if push_to_hub:
        try:
            url = upload(to, push_to_hub, private=private)
        except Exception as exc:  # the Hub client's errors: offline, no token, refused
            raise _fail(
                f"the export is in {to}, but the upload to {push_to_hub} failed:"
                f" {type(exc).__name__}: {exc}"
            ) from None
        err.print(f"uploaded: {url}", highlight=False)


@app.command()
def audit(
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            help="A dataset folder to read. With --kits: one or more (NAME=DIR names the"
            " dataset in the ledger). With --ingest: the readers' answers files.",
            metavar="PATHS",
        ),
    ] = None,
    report_path: Annotated[
        Path | None, typer.Option("--out", help="Where audit.json goes (default: DIR/audit.json).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    kits: Annotated[
        Path | None,
        typer.Option(
            "--kits",
            metavar="OUT",
            help="Write blind reading kits of the folders' counterparts to OUT (the key goes"
            " to OUT.key.jsonl beside it, or to --key).",
        ),
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option(
            "--key",
            help="With --kits: where the key goes (a folder the readers are not shown; never"
            " inside OUT).",
        ),
    ] = None,
    n: Annotated[int, typer.Option("--n", help="With --kits: items to sample.")] = 40,
    seed: Annotated[int, typer.Option(help="With --kits: the sample's seed.")] = 0,
    per_reader: Annotated[
        int, typer.Option(help="With --kits: items per reader (at most one per source).")
    ] = 8,
    status: Annotated[
        str,
        typer.Option(
            help="With --kits: QC statuses to sample, comma-separated (held: flagged by the"
            " validity policy only).",
        ),
    ] = "accepted,held",
    transforms: TransformsOption = None,
    ingest_key: Annotated[
        Path | None,
        typer.Option(
            "--ingest",
            metavar="KEY",
            help="Grade the readers' answers (PATHS) against this kit key and append the"
            " readings to --ledger.",
        ),
    ] = None,
    ledger: Annotated[
        list[Path] | None,
        typer.Option(
            "--ledger",
            help="With --ingest: the ledger to append to (default validity-ledger.jsonl)."
            " With --kits: ledgers whose items are not sampled again (besides the package's).",
        ),
    ] = None,
    carry: Annotated[
        bool,
        typer.Option(
            "--carry",
            help="File readings of older transform versions again at the version that built"
            " the folders' counterparts, where a counterpart ships exactly what was read;"
            " appended to --ledger.",
        ),
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    """Read every unanswerable item as a model would (the whole document, or the pages or
    images the record ships) and report the ones that still state their answer; or write
    blind reading kits (--kits), grade the readers' answers into a ledger (--ingest), or
    carry readings to a new version where the items are unchanged (--carry).

    Exit 1 when an item QC accepted still states its answer; 2 when a dataset is unreadable.
    """
    _logging(debug)
    paths = paths or []
    if sum((kits is not None, ingest_key is not None, carry)) > 1:
        raise _fail("--kits, --ingest and --carry are separate steps: give one")
    if carry:
        _carry(paths, ledger or [])
        return
    if ingest_key is not None:
        _ingest(ingest_key, [Path(p) for p in paths], ledger or [])
        return
    if kits is not None:
        _kits(paths, kits, n, seed, per_reader, status, transforms, ledger or [], key)
        return
    if key is not None:
        raise _fail("--key goes with --kits")
    if len(paths) != 1:
        raise _fail("give one dataset folder (several only with --kits)")
    _leak_audit(Path(paths[0]), report_path, as_json)


def _leak_audit(out_dir: Path, report_path: Path | None, as_json: bool) -> None:
    from .errors import InputError
    from .evidence.audit import audit_dataset, print_report, write_report
    from .progress import PhaseProgress
    from .textregions.ocr import configure_ocr_cache

    if not (out_dir / "data.jsonl").is_file():
        raise _fail(f"{out_dir}: no data.jsonl (not a dataset folder)")
    configure_ocr_cache(out_dir / "state" / "ocr")
    target = report_path or out_dir / "audit.json"
    try:
        with PhaseProgress(err, quiet=as_json) as progress:
            report = audit_dataset(out_dir, lambda done, total: progress(done, total, "audit"))
    except InputError as exc:
        raise _fail(str(exc)) from None
    data = write_report(report, target)
    if as_json:
        print(json.dumps({k: v for k, v in data.items() if k != "items"}, ensure_ascii=False))
    else:
        console = out if out.is_terminal else Console(width=max(out.width, 140))
        print_report(console, data, target)
    if report.accepted_leaks:
        raise typer.Exit(1)


def _kits(
    paths: list[str],
    target: Path,
    n: int,
    seed: int,
    per_reader: int,
    status: str,
    transforms: str | None,
    ledgers: list[Path],
    key: Path | None = None,
) -> None:
    from .validity.kits import left_out_by_readings, parse_build, write_kits
    from .validity.ledger import read_ledgers

    if not paths:
        raise _fail("--kits: give the dataset folder(s) to sample from")
    if n < 1 or per_reader < 1:
        raise _fail("--n and --per-reader must be at least 1")
    try:
        builds = [parse_build(p) for p in paths]
        batch = write_kits(
            builds,
            target,
            n=n,
            seed=seed,
            per_reader=per_reader,
            statuses=_split_names(status) or [],
            transforms=_split_names(transforms) or [],
            read=read_ledgers(ledgers),
            key=key,
        )
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    sampled = Counter(c.key["transform"] for hand in batch.readers.values() for c in hand)
    err.print(
        f"[bold green]kits[/] {batch.items} items for {len(batch.readers)} readers in"
        f" {target}/r01 ... (hand each reader only their folder)",
        highlight=False,
    )
    err.print(
        "  per transform (sampled/available): "
        + ", ".join(f"{name} {sampled.get(name, 0)}/{k}" for name, k in batch.available.items()),
        highlight=False,
    )
    err.print(f"  key: {batch.key_path} (keep it from the readers)", highlight=False)
    for build in builds:
        left_out = left_out_by_readings(build)
        if left_out:
            err.print(
                f"  [yellow]note[/] {build.dataset}: the blind check from readings kept"
                f" {left_out} recalled or contested questions from evidence edits, so these"
                " readings measure the transforms on the other questions only; build with"
                " --blind-policy record to read them on every question",
                highlight=False,
            )


def _one_ledger(ledgers: list[Path], step: str) -> Path:
    """The one ledger ``step`` appends to (default validity-ledger.jsonl)."""
    if len(ledgers) > 1:
        raise _fail(f"{step} appends to one --ledger")
    return ledgers[0] if ledgers else Path("validity-ledger.jsonl")


def _carry(paths: list[str], ledgers: list[Path]) -> None:
    from .validity.carry import carried_readings
    from .validity.kits import parse_build
    from .validity.ledger import PACKAGE_LEDGER, append_readings, read_ledger, read_ledgers

    if not paths:
        raise _fail("--carry: give the dataset folder(s) built at the new versions")
    target = _one_ledger(ledgers, "--carry")
    try:
        builds = [parse_build(p) for p in paths]
        own = target.resolve() == PACKAGE_LEDGER.resolve()
        existing = read_ledgers([]) + ([] if own or not target.exists() else read_ledger(target))
        carried = carried_readings(builds, existing)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    append_readings(target, carried)
    err.print(
        f"[bold green]carried[/] {len(carried)} readings into {target}: their items ship"
        " unchanged at the current versions",
        highlight=False,
    )
    for (name, old, new), count in sorted(
        Counter((r.transform, r.carried_from, r.version) for r in carried).items()
    ):
        err.print(f"  {name}: {count} from v{old} to v{new}", highlight=False)


def _ingest(key: Path, answers: list[Path], ledgers: list[Path]) -> None:
    from .validity.ingest import ingest
    from .validity.ledger import append_readings, read_ledger

    if not answers:
        raise _fail("--ingest KEY: give the readers' answers files")
    target = _one_ledger(ledgers, "--ingest")
    try:
        existing = read_ledger(target) if target.exists() else []
        result = ingest(key, answers, existing=existing)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    append_readings(target, result.readings)
    err.print(
        f"[bold green]ingested[/] {len(result.readings)} readings into {target}"
        + (f" ({result.duplicates} already there)" if result.duplicates else ""),
        highlight=False,
    )
    for name, counts in result.by_transform().items():
        err.print(
            f"  {name}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())),
            highlight=False,
        )
    for reading in result.readings:
        if reading.verdict in ("answerable", "doubtful"):
            err.print(
                f"  {reading.verdict}: {reading.source} ({reading.transform}): answered"
                f" {reading.answer!r} ({reading.confidence}) from {reading.where or '?'}",
                highlight=False,
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
    from .validity.policy import load_policy
    from .validity.report import print_validity

    registry = _registry(_plugins(plugin))
    try:
        policy = load_policy(
            ledgers or [],
            min_validity=min_validity,
            plugins=_plugins(plugin) or [],
            package=not no_package,
            blind_policy=blind_policy,
        )
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        print(json.dumps(policy.describe(), indent=2, ensure_ascii=False))
        return
    console = out if out.is_terminal else Console(width=max(out.width, 160))
    print_validity(console, policy, registry.names())


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
    from .scoring.abstention import build_matcher
    from .scoring.evaluate import BREAKDOWNS, evaluate
    from .scoring.items import read_items
    from .scoring.predictions import SIDECAR_SUFFIX, read_predictions
    from .scoring.report import print_report, write_outputs

    if by not in BREAKDOWNS:
        raise _fail(f"--by must be one of {', '.join(BREAKDOWNS)}, not {by!r}")
    phrase_files = list(abstain_phrases or [])
    sidecars = [path for path in predictions if path.name.endswith(SIDECAR_SUFFIX)]
    predictions = [path for path in predictions if path not in sidecars]
    if not predictions:
        raise _fail(
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
        raise _fail(str(exc)) from None
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
        from .scoring.compare import comparison_rows, comparison_table

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


@app.command()
def samples(
    source: Annotated[str, typer.Argument(help="Dataset folder or file.")],
    format: FormatOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    limit: Annotated[int | None, typer.Option(help="Only the first N records.")] = None,
) -> None:
    """List the sample ids of a source (for `preview --sample`), with skips and load errors."""
    from .loaders import open_source
    from .model import SampleProblem

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
        raise _fail(str(exc)) from None
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
    from .models import ClientOptions, ModelClient, stop_if_unusable
    from .progress import PhaseProgress
    from .questions.classify import AXIS_CLASSES, EVIDENCE, Distribution, classify_source
    from .questions.records import iter_questions

    _logging(debug)
    client = None
    try:
        if llm:
            from .models.probe import probe_model

            # The model sees a record's images when it has them: it must take images then.
            first = next(iter(iter_questions(source, format, limit=1)), None)
            shows_images = bool(first and first.images and first.axis != EVIDENCE)
            options = ClientOptions(
                cache_path=cache, max_unusable_replies=_unusable_limit(max_unusable_replies)
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
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except RunStopped as exc:
        raise _fail(f"stopped: {exc}") from None
    except Exception as exc:
        if debug:
            raise
        raise _fail(f"{type(exc).__name__}: {exc} (run with --debug for the traceback)") from None
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


@transforms_app.command("list")
def transforms_list(
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    plugin: PluginOption = None,
) -> None:
    """Name, family, axis and target of every registered transform."""
    registry = _registry(_plugins(plugin))
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
    registry = _registry(_plugins(plugin))
    from .transforms.registry import RegistryError

    try:
        cls = registry.get(name)
    except RegistryError as exc:
        raise _fail(str(exc)) from None
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
    from .review import AnnotatorError, ReviewError
    from .review import finalize as run_finalize
    from .review.queue import flagged_outside, read_records
    from .review.report import print_summary
    from .review.server import open_server, serve
    from .review.votes import REVIEW_DIR, check_annotator

    if finalize:
        from .pipeline.output_lock import locked_output

        try:
            with locked_output(dataset, "review --finalize"):
                summary = run_finalize(dataset, min_annotators=min_annotators)
        except (ReviewError, ConfigError) as exc:
            raise _fail(str(exc)) from None
        if as_json:
            print(json.dumps(summary, ensure_ascii=False, indent=1))
        else:
            print_summary(summary, out)
            out.print(f"labels written to {dataset / 'data.jsonl'}", highlight=False)
            out.print(f"summary: {dataset / REVIEW_DIR / 'summary.json'}", highlight=False)
        return
    if as_json:
        raise _fail("--json goes with --finalize")
    names = list(dict.fromkeys(annotator or []))
    if not names:
        raise _fail(
            "name the annotators: --annotator NAME (repeatable); each gets a link with a"
            " token of their own, and only those links can vote"
        )
    try:
        server = open_server(dataset, port, names[0], audit, seed)
        for name in names[1:]:
            check_annotator(name)
    except (ReviewError, AnnotatorError) as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(
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


@app.command()
def fixtures(
    out_dir: Annotated[Path, typer.Argument(help="Where to write them.")] = Path("fixtures"),
) -> None:
    """Regenerate the shipped synthetic fixture datasets (deterministic)."""
    from .fixturegen import generate

    written = generate(out_dir)
    err.print(f"wrote {len(written)} files under {out_dir}")


def _registry(plugins: list[str] | None) -> Any:
    from .transforms.registry import RegistryError, get_registry

    try:
        return get_registry(tuple(plugins or ()))
    except RegistryError as exc:
        raise _fail(str(exc)) from None


def _logging(debug: bool) -> None:
    import logging

    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING, stream=sys.stderr)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
