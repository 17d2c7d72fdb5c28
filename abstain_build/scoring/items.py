"""The items of a built dataset, as the scorer needs them.

Reads ``data.jsonl`` of a folder built by ``abstain-build transform``. Answer-changed items
(an edit printed a new answer) are answerable with that new gold, and also remember the
original's, to tell a model that read the page from one that recited. Counterparts that
human review rejected (``qc.status == "rejected"``) are answerable after all and are not
scored; ``verified_only`` also leaves out every counterpart QC did not accept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..schema import ANSWER_CHANGED, record_kind

DATA_FILE = "data.jsonl"
EXCLUDED_STATUSES = frozenset({"rejected"})
VERIFIED = "accepted"
#: MMMU ids carry the subject: "validation_Clinical_Medicine_69".
MMMU_ID = re.compile(r"^(?:dev|validation|test)_(.+)_\d+$")


@dataclass(frozen=True)
class Item:
    id: str
    group_id: str
    answerable: bool
    #: The gold answer for answerable items; the original's answer for counterparts.
    gold: str | None
    answer_format: str | None
    options: tuple[str, ...]
    transform: str | None
    family: str | None
    status: str
    subset: str
    #: "original", "counterpart", "answer_changed" or "evidence_set" (``pipeline.records``).
    kind: str = "original"
    #: The original's gold, for answer-changed items (what a model that recites gives).
    original_gold: str | None = None
    #: The blind check's verdict on the item's source ("unchecked" when not recorded).
    blind: str = "unchecked"
    #: An evidence-set item's set ("gold", "gold+distractors", "distractors", "none").
    evidence_set: str | None = None

    @property
    def answer_changed(self) -> bool:
        return self.kind == "answer_changed"


@dataclass
class DatasetItems:
    items: list[Item]
    #: Counterparts left out, as {id: status}.
    excluded: dict[str, str]
    path: Path


def _subset(record: dict[str, Any]) -> str:
    """MMMU subject, MMLongBench-Doc document type, or the source dataset's name."""
    metadata = record.get("metadata") or {}
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError:
            metadata = {}
    source = record.get("source") or {}
    if metadata.get("subject"):
        return str(metadata["subject"])
    match = MMMU_ID.match(str(source.get("id") or ""))
    if match:
        return match.group(1)
    for key in ("doc_type", "subfield"):
        if metadata.get(key):
            return str(metadata[key])
    return str(source.get("dataset") or "unknown")


def _item(record: dict[str, Any]) -> Item:
    transform = record.get("transform") or {}
    answerable = bool(record["answerable"])
    gold = record.get("answer") if answerable else record.get("original_answer")
    options = record.get("options") or []
    kind = record_kind(record)
    original = record.get("original_answer") if kind == ANSWER_CHANGED else None
    return Item(
        id=str(record["id"]),
        group_id=str(record.get("group_id") or record["id"]),
        answerable=answerable,
        gold=None if gold is None else str(gold),
        answer_format=record.get("answer_format"),
        options=tuple(str(o) for o in options),
        transform=transform.get("name"),
        family=transform.get("family"),
        status=str((record.get("qc") or {}).get("status") or "unverified"),
        subset=_subset(record),
        kind=kind,
        original_gold=None if original is None else str(original),
        blind=str((record.get("blind") or {}).get("verdict") or "unchecked"),
        evidence_set=(record.get("evidence_set") or {}).get("name"),
    )


def data_path(dataset: Path | str) -> Path:
    """The ``data.jsonl`` of a built folder (or the file itself); ConfigError if absent."""
    path = Path(dataset)
    if path.is_dir():
        path = path / DATA_FILE
    if not path.is_file():
        raise ConfigError(f"{path} not found: give a folder built by `abstain-build transform`")
    return path


def data_records(dataset: Path | str) -> Iterator[dict[str, Any]]:
    """The records of a built folder's ``data.jsonl``, in order."""
    for _, record in _records(data_path(dataset)):
        yield record


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{path}:{number} is not JSON ({exc})") from None
            yield number, record


def read_items(dataset: Path, *, verified_only: bool = False) -> DatasetItems:
    """The scorable items of ``dataset`` (a built folder, or its data.jsonl)."""
    path = data_path(dataset)
    items: list[Item] = []
    excluded: dict[str, str] = {}
    for number, record in _records(path):
        try:
            item = _item(record)
        except (KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"{path}:{number} is not a dataset record ({exc!r})") from None
        # Evidence-set items are made unanswerable by what they leave out, not by an edit a
        # judge verifies: no status excludes them.
        if (
            not item.answerable
            and item.evidence_set is None
            and (item.status in EXCLUDED_STATUSES or (verified_only and item.status != VERIFIED))
        ):
            excluded[item.id] = item.status
            continue
        items.append(item)
    return DatasetItems(items, excluded, path)
