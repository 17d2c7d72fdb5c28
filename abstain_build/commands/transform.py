"""``abstain-build transform``: build a dataset's counterparts."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import ConfigError
from .app import (
    FormatOption,
    LedgerOption,
    LlmOption,
    MaxUnusableOption,
    MinValidityOption,
    ParamOption,
    PluginOption,
    ProgressEveryOption,
    TransformsOption,
    app,
    err,
    fail,
    mapped_failures,
    parse_params,
    plugin_modules,
    setup_logging,
    split_names,
)

if TYPE_CHECKING:
    from ..config import BuildConfig


@app.command()
def transform(
    source: Annotated[str | None, typer.Argument(help="Dataset folder or file.")] = None,
    out_dir: Annotated[str | None, typer.Option("--out", "-o", help="Output folder.")] = None,
    format: FormatOption = None,
    seed: Annotated[int | None, typer.Option(help="Run seed (default 0).")] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", "-j", help="Worker processes.")
    ] = None,
    executor: Annotated[
        str | None,
        typer.Option(
            "--executor",
            help="Where samples run: 'local' (--workers processes; default) or 'ray' (Ray"
            " tasks, at most --workers in flight; needs abstain-build[ray]).",
        ),
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            metavar="ADDR",
            help="The Ray cluster for --executor ray (default $RAY_ADDRESS; without either"
            " a local Ray is started on 127.0.0.1 and stopped at the end).",
        ),
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
    evidence_sets: Annotated[
        str | None,
        typer.Option(
            "--evidence-sets",
            metavar="SETS",
            help="Also ask each question with some of its evidence (comma-separated): gold"
            " (its evidence pages, or its own images), gold+distractors, distractors"
            " (unanswerable: other pages of the document, or other samples' images), none"
            " (the question alone). Default: none of them.",
        ),
    ] = None,
    distractors: Annotated[
        int | None,
        typer.Option(
            help="Distractors (pages, or other samples' images) per evidence set (default 4)."
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
    from ..config import read_config_file, resolve_config
    from ..pipeline.build import build
    from ..progress import PhaseProgress

    setup_logging(debug)
    flags = {
        "source": source,
        "out": out_dir,
        "format": format,
        "seed": seed,
        "workers": workers,
        "executor": executor,
        "ray_address": ray_address,
        "transforms": split_names(transforms),
        "routing": "none" if no_routing else None,
        "transform_params": parse_params(param),
        "plugins": plugin_modules(plugin),
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
        "evidence_sets": split_names(evidence_sets),
        "distractors": distractors,
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
        raise fail(str(exc)) from None
    started = time.perf_counter()
    with (
        mapped_failures(debug, resumable=True),
        PhaseProgress(err, quiet=quiet, every=progress_every) as report,
    ):
        result = build(resolved, progress=report)
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
