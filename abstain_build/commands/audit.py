"""``abstain-build audit``: leak audits, blind reading kits, ingesting and carrying readings."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ..errors import ConfigError
from .app import (
    TransformsOption,
    app,
    err,
    fail,
    out,
    setup_logging,
    split_names,
)


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
    setup_logging(debug)
    paths = paths or []
    if sum((kits is not None, ingest_key is not None, carry)) > 1:
        raise fail("--kits, --ingest and --carry are separate steps: give one")
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
        raise fail("--key goes with --kits")
    if len(paths) != 1:
        raise fail("give one dataset folder (several only with --kits)")
    _leak_audit(Path(paths[0]), report_path, as_json)


def _leak_audit(out_dir: Path, report_path: Path | None, as_json: bool) -> None:
    from ..errors import InputError
    from ..evidence.audit import audit_dataset, print_report, write_report
    from ..progress import PhaseProgress
    from ..textregions.ocr import configure_ocr_cache

    if not (out_dir / "data.jsonl").is_file():
        raise fail(f"{out_dir}: no data.jsonl (not a dataset folder)")
    configure_ocr_cache(out_dir / "state" / "ocr")
    target = report_path or out_dir / "audit.json"
    try:
        with PhaseProgress(err, quiet=as_json) as progress:
            report = audit_dataset(out_dir, lambda done, total: progress(done, total, "audit"))
    except InputError as exc:
        raise fail(str(exc)) from None
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
    transforms: list[str] | None,
    ledgers: list[Path],
    key: Path | None = None,
) -> None:
    from ..validity.kits import left_out_by_readings, parse_build, write_kits
    from ..validity.ledger import read_ledgers

    if not paths:
        raise fail("--kits: give the dataset folder(s) to sample from")
    if n < 1 or per_reader < 1:
        raise fail("--n and --per-reader must be at least 1")
    try:
        builds = [parse_build(p) for p in paths]
        batch = write_kits(
            builds,
            target,
            n=n,
            seed=seed,
            per_reader=per_reader,
            statuses=split_names(status) or [],
            transforms=split_names(transforms) or [],
            read=read_ledgers(ledgers),
            key=key,
        )
    except ConfigError as exc:
        raise fail(str(exc)) from None
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
        raise fail(f"{step} appends to one --ledger")
    return ledgers[0] if ledgers else Path("validity-ledger.jsonl")


def _carry(paths: list[str], ledgers: list[Path]) -> None:
    from ..validity.carry import carried_readings
    from ..validity.kits import parse_build
    from ..validity.ledger import PACKAGE_LEDGER, append_readings, read_ledger, read_ledgers

    if not paths:
        raise fail("--carry: give the dataset folder(s) built at the new versions")
    target = _one_ledger(ledgers, "--carry")
    try:
        builds = [parse_build(p) for p in paths]
        own = target.resolve() == PACKAGE_LEDGER.resolve()
        existing = read_ledgers([]) + ([] if own or not target.exists() else read_ledger(target))
        carried = carried_readings(builds, existing)
    except ConfigError as exc:
        raise fail(str(exc)) from None
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
    from ..validity.ingest import ingest
    from ..validity.ledger import append_readings, read_ledger

    if not answers:
        raise fail("--ingest KEY: give the readers' answers files")
    target = _one_ledger(ledgers, "--ingest")
    try:
        existing = read_ledger(target) if target.exists() else []
        result = ingest(key, answers, existing=existing)
    except ConfigError as exc:
        raise fail(str(exc)) from None
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
