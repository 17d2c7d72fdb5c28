"""Loaders for the published layouts of MMMU and MMLongBench-Doc, and a generic JSONL.

The loader classes are imported on first use (they bring pyarrow, the PDF and image
libraries): ``FORMATS`` alone, as the command's help reads it, costs nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..lazy_exports import lazy_exports

if TYPE_CHECKING:
    from .base import LoadedItem, RawRecord, Source
    from .jsonl import JsonlSource
    from .mmlongbench import MMLongBenchSource
    from .mmmu import MMMUJsonlSource, MMMUParquetSource

FORMATS = ("mmmu", "mmlongbench", "jsonl")

#: Each loader name and the module it comes from.
_EXPORTS = {
    "JsonlSource": ".jsonl",
    "LoadedItem": ".base",
    "MMLongBenchSource": ".mmlongbench",
    "MMMUJsonlSource": ".mmmu",
    "MMMUParquetSource": ".mmmu",
    "RawRecord": ".base",
    "Source": ".base",
}

__all__ = [
    "FORMATS",
    "JsonlSource",
    "LoadedItem",
    "MMLongBenchSource",
    "MMMUJsonlSource",
    "MMMUParquetSource",
    "RawRecord",
    "Source",
    "open_source",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


def _looks_like_mmmu_jsonl(file: Path) -> bool:
    """The MMMU tool layout names images ``image_1`` ...; the generic one uses ``images``."""
    with file.open("r", encoding="utf-8-sig", errors="replace") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                continue
            return isinstance(record, dict) and any(f"image_{n}" in record for n in range(1, 8))
    return False


def _pick_jsonl(folder: Path) -> Path | None:
    for name in ("samples.jsonl", "data.jsonl"):
        if (folder / name).is_file():
            return folder / name
    candidates = sorted(folder.glob("*.jsonl"))
    return candidates[0] if len(candidates) == 1 else None


def open_source(path: str | Path, format: str | None = None) -> Source:
    """Open a dataset, detecting its layout unless ``format`` forces one.

    Detection: a folder with ``samples.json`` is MMLongBench-Doc; parquet files are MMMU's
    Hugging Face layout; a JSONL whose records have ``image_1`` is MMMU's tool layout, any
    other JSONL is the generic layout.
    """
    from .jsonl import JsonlSource
    from .mmlongbench import MMLongBenchSource
    from .mmmu import MMMUJsonlSource, MMMUParquetSource

    path = Path(path).expanduser()
    if not path.exists():
        raise ConfigError(f"source {path} does not exist")
    if format is not None and format not in FORMATS:
        raise ConfigError(f"unknown format {format!r}: choose one of {', '.join(FORMATS)}")

    folder = path if path.is_dir() else None
    if format in (None, "mmlongbench") and (
        (folder and (folder / "samples.json").is_file()) or path.suffix == ".json"
    ):
        return MMLongBenchSource(path)
    if format == "mmlongbench":
        raise ConfigError(f"{path}: expected samples.json with a documents/ folder beside it")

    parquet_here = path.suffix == ".parquet" or (folder and any(folder.glob("*.parquet")))
    if format in (None, "mmmu") and parquet_here:
        return MMMUParquetSource(path)
    jsonl = path if path.suffix == ".jsonl" else (_pick_jsonl(folder) if folder else None)
    if jsonl is not None:
        if format == "mmmu" or (format is None and _looks_like_mmmu_jsonl(jsonl)):
            return MMMUJsonlSource(jsonl)
        return JsonlSource(jsonl)
    if format in (None, "mmmu") and folder and any(folder.rglob("*.parquet")):
        return MMMUParquetSource(path)
    if folder and len(list(folder.glob("*.jsonl"))) > 1:
        names = ", ".join(sorted(p.name for p in folder.glob("*.jsonl")))
        raise ConfigError(f"{path} holds several .jsonl files ({names}): pass the file itself")
    raise ConfigError(
        f"cannot tell the layout of {path}: expected samples.json + documents/ (MMLongBench-Doc),"
        " parquet files (MMMU), or a .jsonl file; pass --format to choose"
    )
