"""``abstain-build export``: a built folder to a folder a user can push to the Hub as is."""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..media.files import atomic_write
from ..pipeline.card import CHART_FILE
from ..pipeline.output import ERRORS_FILE
from ..scoring.items import data_records
from .card import export_card
from .shards import SplitFiles, write_shards


@dataclass
class ExportResult:
    out: Path
    splits: dict[str, SplitFiles]
    documents: int
    seconds: float

    @property
    def bytes(self) -> int:
        return sum(p.stat().st_size for p in self.out.rglob("*") if p.is_file())


def export_dataset(
    root: Path | str,
    out: Path | str,
    *,
    shard_size: int | None = None,
    license: str | None = None,
    documents: str = "auto",
    overwrite: bool = False,
    repo: str | None = None,
) -> ExportResult:
    """Export the build in ``root`` to ``out`` (refused if ``out`` holds anything, unless
    ``overwrite``). The output never holds ``state/`` or an absolute path. ``repo``: the Hub
    dataset it will be pushed to, which the card's loading example then names.

    ``documents``: ``full`` ships each PDF, ``none`` ships none (``images`` holds the
    evidence pages), ``auto`` ships them unless the build's context is the evidence
    pages (``--context pages``), where a model never sees the rest of the PDF."""
    started = time.perf_counter()
    root, out = Path(root), Path(out)
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        raise ConfigError(f"{root} has no manifest.json: is it an abstain-build output folder?")
    _require_datasets()
    if root.resolve() == out.resolve() or out.resolve().is_relative_to(root.resolve()):
        raise ConfigError(f"export to a folder outside {root}, not {out}")
    if out.exists() and any(out.iterdir()):
        if not overwrite:
            raise ConfigError(f"{out} is not empty (pass --overwrite to replace it)")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    if manifest.get("status") == "interrupted":
        raise ConfigError(f"{root} is an interrupted build: resume it before exporting")
    if documents not in ("auto", "full", "none"):
        raise ConfigError(f"--documents {documents!r}: expected auto, full or none")
    context = (manifest.get("config") or {}).get("context", "document")
    ship = documents == "full" or (documents == "auto" and context != "pages")
    splits, documents_written = write_shards(data_records(root), root, out, shard_size, ship)
    built_card = (
        (root / "README.md").read_text(encoding="utf-8") if (root / "README.md").is_file() else ""
    )
    copied = documents_written.count
    # The build card's "Not included" points at errors.jsonl: ship it (its reasons name
    # the source's files relative to the source's folder).
    shipped_errors = (root / ERRORS_FILE).is_file()
    if shipped_errors:
        shutil.copyfile(root / ERRORS_FILE, out / ERRORS_FILE)
    card = export_card(
        manifest,
        splits,
        built_card,
        license,
        has_documents=documents_written.referenced,
        shipped_documents=copied > 0,
        repo=repo,
        local=local_name(out),
        shipped_errors=shipped_errors,
    )
    atomic_write(out / "README.md", card.encode("utf-8"))
    if (root / CHART_FILE).is_file():
        shutil.copyfile(root / CHART_FILE, out / CHART_FILE)
    return ExportResult(out, splits, copied, time.perf_counter() - started)


#: How to get what an export needs: ``datasets`` writes the parquet and the card's info,
#: and brings ``huggingface_hub`` for ``--push-to-hub``. A build does not need them.
HUB_EXTRA = "pip install 'abstain-build[hub]'"


def _require_datasets() -> None:
    """One line instead of a traceback when ``datasets`` is not installed."""
    try:
        import datasets  # noqa: F401
    except ImportError:
        raise ConfigError(f"export needs the datasets package: {HUB_EXTRA}") from None


def local_name(out: Path) -> str:
    """``out`` as seen from the current folder, never absolute: the card names it in its
    loading example, and an absolute path would carry this machine's folders (a user name)
    onto the Hub and make two exports of one build differ."""
    try:
        return Path(os.path.relpath(out.resolve(), Path.cwd().resolve())).as_posix()
    except ValueError:  # another drive (Windows): no relative path exists
        return out.name


def load_built(root: Path | str, split: str = "train") -> Any:
    """A build folder as a ``datasets.Dataset`` whose ``images`` are images (PIL on access).

    ``load_dataset(DIR)`` reads ``data.jsonl`` with image paths as text, relative to DIR;
    this resolves them and casts the column."""
    from datasets import Image, List, load_dataset

    from ..schema import hf_features

    root = Path(root).resolve()
    data = load_dataset(
        "json", data_files=str(root / "data.jsonl"), features=hf_features(), split=split
    )
    data = data.map(
        lambda row: {"images": [str(root / path) for path in row["images"] or []]},
        desc="resolving image paths",
    )
    return data.cast_column("images", List(Image()))


def push_to_hub(out: Path | str, repo: str, *, private: bool = False) -> str:
    """Upload an export folder as a dataset repository; the token comes from where
    ``huggingface_hub`` keeps it (``HF_TOKEN``, or ``hf auth login``)."""
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(repo, repo_type="dataset", private=private, exist_ok=True)
    commit = api.upload_folder(folder_path=str(out), repo_id=repo, repo_type="dataset")
    return str(getattr(commit, "commit_url", commit))
