"""``abstain-build export``: a built dataset as parquet shards or to the Hub."""

# No ``from __future__ import annotations`` here: Typer reads every command's signature
# when it builds the command line (for --help too), and string annotations would be
# evaluated again there, each ``typer.Option(...)`` in them made anew.

from pathlib import Path
from typing import Annotated

import typer

from ..errors import ConfigError
from .app import app, err, fail


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
    from ..export import export_dataset
    from ..export import push_to_hub as upload

    if format != "parquet":
        raise fail(f"--format {format!r}: only parquet is supported")
    from ..pipeline.output_lock import locked_output

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
        raise fail(str(exc)) from None
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
            raise fail(
                f"the export is in {to}, but the upload to {push_to_hub} failed:"
                f" {type(exc).__name__}: {exc}"
            ) from None
        err.print(f"uploaded: {url}", highlight=False)
