"""Turning votes into labels: the annotators' majority, written into ``data.jsonl``.

Rules (per queued item, each annotator's latest vote):

- ``SKIP`` is not a vote for either label: it neither counts towards ``min_annotators``
  nor breaks a tie.
- Fewer than ``min_annotators`` ANSWERABLE/UNANSWERABLE votes: no label
  (``too_few_votes``). Otherwise the label with more votes wins (``majority``); equal
  counts give no label (``tie``).
- A label decides the item's status, whatever QC said: UNANSWERABLE -> ``accepted``,
  ANSWERABLE -> ``rejected``. Without a label the status stays what QC made it. The
  judges' verdicts are kept, and ``qc.human.status_before`` keeps QC's status, so
  finalizing again (after more votes) starts from the same point.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..media.files import atomic_write
from ..pipeline.card import refresh_card
from ..pipeline.output import dumps, rewrite_data
from .kappa import fleiss_kappa
from .queue import AUDIT, DATA_FILE, FLAGGED, Queue, ReviewError, load_queue, qc_status
from .votes import ANSWERABLE, REVIEW_DIR, SKIP, UNANSWERABLE, annotators, latest_votes

SUMMARY_FILE = f"{REVIEW_DIR}/summary.json"
ACCEPTED = "accepted"
REJECTED = "rejected"
UNVERIFIED = "unverified"
MAJORITY, TIE, TOO_FEW = "majority", "tie", "too_few_votes"
UNDECIDED = "undecided"
STATUS_FOR = {UNANSWERABLE: ACCEPTED, ANSWERABLE: REJECTED}
#: Column order of the agreement table (and of Fleiss' kappa categories).
LABELS = (UNANSWERABLE, ANSWERABLE)


def decide(votes: dict[str, str], min_annotators: int) -> tuple[str | None, str]:
    """(label or None, outcome) for one item's votes {annotator: vote}."""
    counts = Counter(vote for vote in votes.values() if vote != SKIP)
    if counts[ANSWERABLE] + counts[UNANSWERABLE] < min_annotators:
        return None, TOO_FEW
    if counts[UNANSWERABLE] == counts[ANSWERABLE]:
        return None, TIE
    winner = UNANSWERABLE if counts[UNANSWERABLE] > counts[ANSWERABLE] else ANSWERABLE
    return winner, MAJORITY


def finalize(root: Path, min_annotators: int = 3) -> dict[str, Any]:
    """Apply the majority to ``data.jsonl`` (atomically) and write ``review/summary.json``."""
    if min_annotators < 1:
        raise ReviewError("--min-annotators must be 1 or more")
    queue = load_queue(root)
    if queue is None:
        raise ReviewError(
            f"{root / REVIEW_DIR} has no queue.json: nothing was reviewed yet"
            " (start with: abstain-build review DIR --annotator NAME)"
        )
    names = annotators(root)
    ballots = {name: latest_votes(root, name) for name in names}
    rows = []
    for item in queue.items:
        votes = {name: ballots[name][item.id] for name in names if item.id in ballots[name]}
        label, outcome = decide(votes, min_annotators)
        rows.append({"item": item, "votes": votes, "label": label, "outcome": outcome})
    by_id = {row["item"].id: row for row in rows}
    _apply(root, by_id)
    summary = _summary(queue, names, ballots, rows, min_annotators)
    payload = json.dumps(summary, indent=1, ensure_ascii=False) + "\n"
    atomic_write(root / SUMMARY_FILE, payload.encode("utf-8"))
    refresh_card(root)  # the card's Validity section gains this review's figures
    return summary


def _apply(root: Path, by_id: dict[str, dict[str, Any]]) -> None:
    """Rewrite the queued records' ``qc``; every other line is kept byte for byte."""
    path = root / DATA_FILE
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    seen = set()
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        record = json.loads(line)
        row = by_id.get(record.get("id"))
        if row is None:
            continue
        seen.add(record["id"])
        qc = record.setdefault("qc", {})
        before = qc_status(record)
        row["status_before"] = before
        row["status"] = STATUS_FOR.get(row["label"], before)
        qc["status"] = row["status"]
        qc["human"] = {
            "label": row["label"],
            "outcome": row["outcome"],
            "votes": [{"annotator": n, "vote": v} for n, v in sorted(row["votes"].items())],
            "reason": row["item"].reason,
            "status_before": before,
        }
        lines[index] = dumps(record) + "\n"
    missing = sorted(set(by_id) - seen)
    if missing:
        raise ReviewError(
            f"{len(missing)} queued item(s) are not in {path} (e.g. {missing[0]}):"
            " was the dataset rebuilt after the review started?"
        )
    rewrite_data(root, lines)


def _summary(
    queue: Queue,
    names: list[str],
    ballots: dict[str, dict[str, str]],
    rows: Sequence[dict[str, Any]],
    min_annotators: int,
) -> dict[str, Any]:
    queued = {item.id for item in queue.items}
    table = [[Counter(row["votes"].values())[label] for label in LABELS] for row in rows]
    kappa = fleiss_kappa(table)
    outcomes = {
        reason: dict(
            Counter(row["label"] or row["outcome"] for row in rows if row["item"].reason == reason)
        )
        for reason in (FLAGGED, AUDIT)
    }
    return {
        "version": 1,
        "finalized": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "min_annotators": min_annotators,
        "rules": (
            "label = the majority of ANSWERABLE/UNANSWERABLE votes (latest per annotator);"
            " SKIP is not counted; fewer than min_annotators such votes: no label"
            " (too_few_votes); equal counts: no label (tie). UNANSWERABLE -> accepted,"
            " ANSWERABLE -> rejected; no label keeps QC's status."
        ),
        "queue": {"items": len(rows), FLAGGED: queue.count(FLAGGED), AUDIT: queue.count(AUDIT)},
        "annotators": {
            name: dict(sorted(Counter(v for i, v in ballots[name].items() if i in queued).items()))
            for name in names
        },
        "labels": dict(Counter(row["label"] or UNDECIDED for row in rows)),
        "outcomes": dict(Counter(row["outcome"] for row in rows)),
        "by_reason": outcomes,
        "status_changes": dict(
            Counter(
                f"{row['status_before']} -> {row['status']}"
                for row in rows
                if row["status_before"] != row["status"]
            )
        ),
        "agreement": {"categories": list(LABELS), **kappa.to_json()},
        "confusion": _confusion(rows),
        "by_family": _by_family(rows),
        "items": [
            {
                "id": row["item"].id,
                "reason": row["item"].reason,
                "family": row["item"].family,
                "votes": dict(sorted(row["votes"].items())),
                "label": row["label"],
                "outcome": row["outcome"],
                "status_before": row["status_before"],
                "status": row["status"],
            }
            for row in rows
        ],
    }


def _confusion(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Human label against QC's status, over audited items QC had decided something on."""
    columns = (*LABELS, UNDECIDED)
    matrix: dict[str, dict[str, int]] = {}
    unverified = 0
    for row in rows:
        if row["item"].reason != AUDIT:
            continue
        before = row["status_before"]
        if before in (None, UNVERIFIED):
            unverified += 1
            continue
        cells = matrix.setdefault(before, dict.fromkeys(columns, 0))
        cells[row["label"] or UNDECIDED] += 1
    decided = [
        (status, label)
        for status, cells in matrix.items()
        if status in (ACCEPTED, REJECTED)
        for label in LABELS
        for _ in range(cells[label])
    ]
    agree = sum(1 for status, label in decided if STATUS_FOR[label] == status)
    return {
        "rows": "QC status before review",
        "columns": list(columns),
        "matrix": dict(sorted(matrix.items())),
        "qc_agreement": round(agree / len(decided), 6) if decided else None,
        "qc_agreement_items": len(decided),
        "audited_without_qc": unverified,
    }


def _by_family(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    families: dict[str, dict[str, int]] = {}
    for row in rows:
        cells = families.setdefault(
            row["item"].family or "", dict.fromkeys((*LABELS, UNDECIDED), 0)
        )
        cells[row["label"] or UNDECIDED] += 1
    return dict(sorted(families.items()))
