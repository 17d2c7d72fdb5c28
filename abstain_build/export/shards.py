"""Parquet shards of a built dataset, with the images inside (``datasets.Image`` bytes).

One split per kind of item: ``original`` (the answerable controls), ``counterpart`` (the
unanswerable items) and, when a build has them, ``answer_changed``. The Hub viewer shows
one split at a time, and the first thing a reader of an abstention set looks at is the
counterparts apart from their controls; ``load_dataset(OUT)`` returns all of them, and
``group_id`` pairs them again.

Documents are not embedded: a 10-K of several MB would be stored once per record (its
control and every counterpart), while the pages a question needs are already in
``images``. Each document is copied once, to ``documents/``, and ``document`` holds its
path relative to the export.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..media.files import atomic_write
from ..media.pdf_sanitise import sanitise_pdf
from ..schema import record_kind

#: Splits in the order the card lists them.
SPLITS = ("original", "counterpart", "answer_changed", "evidence_set")
#: A shard is cut when its images reach this many bytes (or ``shard_size`` records).
SHARD_BYTES = 256 * 1024 * 1024
#: A row group is cut at this many rows or images of this many bytes, whichever comes first.
#: Reading one row reads its whole row group, so the Hub viewer and ``load_dataset(...,
#: streaming=True)`` want them small: ``datasets`` wrote 100 rows per group for image
#: datasets and now aims at 100 MB per group; a page-heavy record makes the byte bound bite.
ROW_GROUP_ROWS = 100
ROW_GROUP_BYTES = 100 * 1024 * 1024
DATA_DIR = "data"
DOCUMENTS_DIR = "documents"


def export_features() -> Any:
    """The record schema with ``images`` as a list of ``datasets.Image``."""
    from datasets import Image, List

    from ..schema import hf_features

    features = hf_features()
    features["images"] = List(Image())
    return features


def split_of(record: dict[str, Any]) -> str:
    kind = record_kind(record)
    return kind if kind in SPLITS else "counterpart"


@dataclass
class SplitFiles:
    """The shards written for one split."""

    name: str
    files: list[str] = field(default_factory=list)
    records: int = 0
    image_bytes: int = 0
    #: The split's size in memory (Arrow), as ``datasets`` measures it for ``num_bytes``.
    num_bytes: int = 0
    #: The parquet files' size on disk (the card's ``download_size`` sums them).
    file_bytes: int = 0


class DocumentCopies:
    """Each PDF copied once, without active content (a build made before its PDFs were
    sanitised ships clean ones too), named by its content so two builds never collide;
    with ``ship=False`` none is (the records' ``document`` is then null)."""

    def __init__(self, root: Path, out: Path, ship: bool = True) -> None:
        self.root = root
        self.out = out
        self.ship = ship
        #: Whether any record has a document (shipped or not).
        self.referenced = False
        self._copied: dict[str, str] = {}
        #: What sanitising removed from each copied document (build path -> labels).
        self.removed: dict[str, tuple[str, ...]] = {}

    @property
    def count(self) -> int:
        return len(set(self._copied.values()))

    def relative(self, document: str | None) -> str | None:
        self.referenced = self.referenced or bool(document)
        if not document or not self.ship:
            return None
        if document not in self._copied:
            clean = sanitise_pdf((self.root / document).read_bytes(), document)
            digest = hashlib.sha256(clean.data).hexdigest()[:12]
            name = f"{DOCUMENTS_DIR}/{Path(document).stem[:60]}-{digest}{Path(document).suffix}"
            target = self.out / name
            if not target.exists():
                atomic_write(target, clean.data)
            self._copied[document] = name
            self.removed[document] = clean.removed
        return self._copied[document]


def _image_size(row: dict[str, Any]) -> int:
    return sum(len(image["bytes"]) for image in row["images"])


def row_groups(
    rows: list[dict[str, Any]], max_rows: int, max_bytes: int
) -> Iterator[list[dict[str, Any]]]:
    """``rows`` in consecutive groups of at most ``max_rows`` rows whose images stay under
    ``max_bytes`` (a group always takes at least one row)."""
    group: list[dict[str, Any]] = []
    size = 0
    for row in rows:
        row_size = _image_size(row)
        if group and (len(group) >= max_rows or size + row_size > max_bytes):
            yield group
            group, size = [], 0
        group.append(row)
        size += row_size
    if group:
        yield group


def arrow_bytes(path: Path) -> int:
    """A parquet file's size once read into memory, row group by row group, which is how
    ``datasets`` loads it and measures a split's ``num_bytes`` (the table as written can be a
    few bytes smaller: Arrow adds buffers when it reads)."""
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(path)
    return sum(parquet.read_row_group(i).nbytes for i in range(parquet.num_row_groups))


def _row(record: dict[str, Any], root: Path, documents: DocumentCopies) -> dict[str, Any]:
    row = dict(record)
    row["images"] = [
        {"bytes": (root / path).read_bytes(), "path": Path(path).name}
        for path in record.get("images") or []
    ]
    row["document"] = documents.relative(record.get("document"))
    removed = documents.removed.get(record.get("document") or "")
    if removed:  # found only now: the build predates sanitising
        row["sanitised"] = [*(record.get("sanitised") or []), *removed]
    return row


def write_shards(
    records: Iterable[dict[str, Any]],
    root: Path,
    out: Path,
    shard_size: int | None = None,
    ship_documents: bool = True,
    *,
    row_group_rows: int = ROW_GROUP_ROWS,
    row_group_bytes: int = ROW_GROUP_BYTES,
) -> tuple[dict[str, SplitFiles], DocumentCopies]:
    """Write ``OUT/data/<split>-NNNNN-of-MMMMM.parquet`` (one pass, one shard per split in
    memory, row groups of ``row_group_rows`` rows or ``row_group_bytes`` of images); returns
    the splits and the documents (copied, or only referenced)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if shard_size is not None and shard_size < 1:
        raise ConfigError(f"--shard-size must be at least 1, got {shard_size}")
    features = export_features()
    schema = features.arrow_schema
    documents = DocumentCopies(root, out, ship_documents)
    (out / DATA_DIR).mkdir(parents=True, exist_ok=True)
    splits: dict[str, SplitFiles] = {}
    pending: dict[str, list[dict[str, Any]]] = {}
    pending_bytes: dict[str, int] = {}

    def flush(split: str) -> None:
        rows = pending.pop(split, [])
        pending_bytes.pop(split, None)
        if not rows:
            return
        files = splits.setdefault(split, SplitFiles(split))
        name = f"{DATA_DIR}/{split}-{len(files.files):05d}.parquet"
        with pq.ParquetWriter(out / name, schema) as writer:
            for group in row_groups(rows, row_group_rows, row_group_bytes):
                encoded = [features.encode_example(row) for row in group]
                table = pa.Table.from_pylist(encoded, schema=schema)
                writer.write_table(table, row_group_size=len(group))
        files.num_bytes += arrow_bytes(out / name)
        files.file_bytes += (out / name).stat().st_size
        files.files.append(name)

    for record in records:
        split = split_of(record)
        row = _row(record, root, documents)
        size = _image_size(row)
        files = splits.setdefault(split, SplitFiles(split))
        files.records += 1
        files.image_bytes += size
        pending.setdefault(split, []).append(row)
        pending_bytes[split] = pending_bytes.get(split, 0) + size
        full = len(pending[split]) >= shard_size if shard_size else False
        if full or (not shard_size and pending_bytes[split] >= SHARD_BYTES):
            flush(split)
    for split in list(pending):
        flush(split)
    for files in splits.values():  # the Hub's naming: <split>-00000-of-00003.parquet
        total = len(files.files)
        renamed = []
        for index, name in enumerate(files.files):
            final = f"{DATA_DIR}/{files.name}-{index:05d}-of-{total:05d}.parquet"
            (out / name).rename(out / final)
            renamed.append(final)
        files.files = renamed
    return {name: splits[name] for name in SPLITS if name in splits}, documents
