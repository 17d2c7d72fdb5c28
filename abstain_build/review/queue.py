"""The review queue: which items humans see, in which order, fixed in ``review/queue.json``.

The queue holds every unanswerable item QC flagged (its judges disagreed) and, with
``audit=N``, N more unanswerable items drawn evenly across transform families, so that
QC's own accept/reject decisions are checked too. It is shuffled once (flagged and audit
items mixed, so their position tells nothing) and written on first use; afterwards it is
only read, so every annotator sees the same items in the same order.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..media.files import atomic_write
from .auth import item_key, review_secret
from .votes import REVIEW_DIR

QUEUE_FILE = f"{REVIEW_DIR}/queue.json"
DATA_FILE = "data.jsonl"
FLAGGED = "flagged"
AUDIT = "audit"
QUEUE_VERSION = 1


class ReviewError(Exception):
    """The review cannot start or finish; the message says why."""


@dataclass(frozen=True)
class QueueItem:
    key: str  # opaque: what the page and the votes API see
    id: str
    reason: str  # flagged | audit
    family: str | None


@dataclass
class Queue:
    items: list[QueueItem]
    seed: int
    audit_requested: int
    created: str
    by_key: dict[str, QueueItem] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.by_key = {item.key: item for item in self.items}

    def count(self, reason: str) -> int:
        return sum(1 for item in self.items if item.reason == reason)

    def to_json(self) -> dict[str, Any]:
        families: dict[str, int] = {}
        for item in self.items:
            if item.reason == AUDIT:
                families[item.family or ""] = families.get(item.family or "", 0) + 1
        return {
            "version": QUEUE_VERSION,
            "created": self.created,
            "seed": self.seed,
            "flagged": self.count(FLAGGED),
            "audit": {
                "requested": self.audit_requested,
                "selected": self.count(AUDIT),
                "by_family": dict(sorted(families.items())),
            },
            "items": [
                {"key": i.key, "id": i.id, "reason": i.reason, "family": i.family}
                for i in self.items
            ],
        }


def read_records(root: Path) -> list[dict[str, Any]]:
    path = root / DATA_FILE
    if not path.is_file():
        raise ReviewError(f"{path} does not exist: is {root} an abstain-build output folder?")
    records = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except ValueError as exc:
                raise ReviewError(f"{path}:{number}: not JSON ({exc})") from None
    return records


def qc_status(record: dict[str, Any]) -> str | None:
    """The QC status before any human review. Finalize keeps it in ``qc.human``; when the
    status is no longer the one finalize set (QC ran again since), the new one counts."""
    qc = record.get("qc") or {}
    status = qc.get("status")
    human = qc.get("human") or {}
    before = human.get("status_before")
    if before is None:
        return status
    ours = {"UNANSWERABLE": "accepted", "ANSWERABLE": "rejected"}.get(human.get("label"), before)
    return before if status == ours else status


def family_of(record: dict[str, Any]) -> str | None:
    return (record.get("transform") or {}).get("family")


def stratified_sample(
    candidates: Sequence[dict[str, Any]], size: int, rng: random.Random
) -> list[dict[str, Any]]:
    """``size`` records spread evenly over transform families: one per family in turn (in a
    seeded family order), each family's records in a seeded order. A family that runs out
    leaves its turns to the others."""
    by_family: dict[str, list[dict[str, Any]]] = {}
    for record in sorted(candidates, key=lambda r: r["id"]):
        by_family.setdefault(family_of(record) or "", []).append(record)
    order = sorted(by_family)
    rng.shuffle(order)
    for name in order:
        rng.shuffle(by_family[name])
    chosen: list[dict[str, Any]] = []
    while len(chosen) < size and any(by_family[name] for name in order):
        for name in order:
            if by_family[name] and len(chosen) < size:
                chosen.append(by_family[name].pop(0))
    return chosen


def build_queue(
    records: Sequence[dict[str, Any]], audit: int, seed: int, *, secret: bytes
) -> Queue:
    """Flagged unanswerable items, plus ``audit`` others stratified by family, shuffled;
    each item's key is keyed by the review's ``secret``."""
    if audit < 0:
        raise ReviewError("--audit must be 0 or more")
    rng = random.Random(f"abstain-build-review:{seed}")
    unanswerable = [r for r in records if r.get("answerable") is False]
    flagged = [r for r in unanswerable if qc_status(r) == FLAGGED]
    others = [r for r in unanswerable if qc_status(r) != FLAGGED]
    items = [QueueItem(item_key(r["id"], secret), r["id"], FLAGGED, family_of(r)) for r in flagged]
    items += [
        QueueItem(item_key(r["id"], secret), r["id"], AUDIT, family_of(r))
        for r in stratified_sample(others, audit, rng)
    ]
    rng.shuffle(items)
    created = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return Queue(items, seed, audit, created)


def load_queue(root: Path) -> Queue | None:
    path = root / QUEUE_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        items = [
            QueueItem(row["key"], row["id"], row["reason"], row.get("family"))
            for row in data["items"]
        ]
        return Queue(items, int(data["seed"]), int(data["audit"]["requested"]), data["created"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ReviewError(f"{path} is not a review queue ({exc})") from None


def open_queue(root: Path, audit: int | None = None, seed: int | None = None) -> Queue:
    """The folder's queue, created from ``data.jsonl`` on first use. Asking for a different
    audit size or seed than the fixed queue has is an error, not a silent change."""
    existing = load_queue(root)
    if existing is not None:
        if audit is not None and audit != existing.audit_requested:
            raise ReviewError(
                f"{root / QUEUE_FILE} was created with --audit {existing.audit_requested}; the"
                " queue is fixed so every annotator sees the same items (omit --audit, or"
                " delete review/ to start a new review)"
            )
        if seed is not None and seed != existing.seed:
            raise ReviewError(
                f"{root / QUEUE_FILE} was created with --seed {existing.seed}; omit --seed,"
                " or delete review/ to start a new review"
            )
        return existing
    queue = build_queue(read_records(root), audit or 0, seed or 0, secret=review_secret(root))
    if not queue.items:
        return queue  # nothing to fix yet: QC may flag items later
    payload = json.dumps(queue.to_json(), indent=1, ensure_ascii=False) + "\n"
    atomic_write(root / QUEUE_FILE, payload.encode("utf-8"))
    return queue


def flagged_outside(queue: Queue, records: Sequence[dict[str, Any]]) -> int:
    """Flagged items the fixed queue does not hold (QC ran again after it was created)."""
    queued = {item.id for item in queue.items}
    return sum(
        1
        for r in records
        if r.get("answerable") is False and qc_status(r) == FLAGGED and r["id"] not in queued
    )
