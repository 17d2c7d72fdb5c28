"""``abstain-build audit DIR``: read a built dataset as a model would, and report every
unanswerable item that still states its answer.

Works on any folder in this output layout (``data.jsonl`` with controls and counterparts,
files relative to the folder), whoever built it and whatever judges accepted it. For each
counterpart, what the record ships is read again (its ``context``: every page of the
document, or the evidence pages' images; the images of an image item) through the text
layer and OCR, and the statements of the gold answer found are held to what the
counterpart's transform promises (:mod:`.policy`). Pages that are byte-for-byte the
control's reuse the control's readings.

The result: per transform and per QC status, how many items leak and where (page, channel,
the text found), on the terminal, in ``audit.json``, and as the exit status (1 when an
accepted item leaks). Items whose answer is printed nowhere (computed, counted) but whose
operand rows (:mod:`.operands`: rows naming the question's terms with numbers) are still
readable somewhere in what they ship are counted apart ("computable"): the rows are found
by a heuristic, so a reader should check them; they do not set the exit status.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..media.images import decode_image
from ..media.pdf import DEFAULT_DPI, open_pdf
from ..schema import ANSWER_CHANGED, COUNTERPART, ORIGINAL, record_kind
from .context import IMAGES
from .gate import allowed_regions, find_leaks, read_shipped, region_kinds
from .map import EvidenceMap, build_map, page_labels
from .policy import QUESTION, policy_of
from .reading import OCR, PageReadings, Reading, read_document
from .statements import OPERAND, Mention

AUDIT_FILE = "audit.json"
#: Rendered pages larger than this are refused (as a build's default --max-pixels).
MAX_PIXELS = 64_000_000


@dataclass
class ItemAudit:
    """What audit found on one item."""

    id: str
    transform: str
    family: str
    status: str
    context: str
    policy: str
    answerable: bool
    #: "original", "counterpart" or "answer_changed" (audited like a counterpart: its
    #: page must no longer state the original's answer).
    kind: str = "original"
    leaked: bool = False
    #: The answer is printed nowhere and operand rows are still readable.
    computable: bool = False
    found: list[Mention] = field(default_factory=list)
    pages_read: int = 0
    pages_reread: list[int] = field(default_factory=list)
    #: Pages outside the evidence pages printing the operand rows of an answer printed
    #: nowhere (before the edit).
    related: list[int] = field(default_factory=list)
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "transform": self.transform,
            "family": self.family,
            "status": self.status,
            "context": self.context,
            "policy": self.policy,
            "answerable": self.answerable,
            "kind": self.kind,
            "leaked": self.leaked,
            "computable": self.computable,
            "found": [m.to_json() for m in self.found],
            "pages_read": self.pages_read,
            "pages_reread": self.pages_reread,
            "related_pages": self.related,
            "error": self.error,
        }


@dataclass
class AuditReport:
    """Every item's audit and the tallies."""

    items: list[ItemAudit] = field(default_factory=list)

    @property
    def counterparts(self) -> list[ItemAudit]:
        return [i for i in self.items if i.kind == COUNTERPART]

    @property
    def answer_changed(self) -> list[ItemAudit]:
        return [i for i in self.items if i.kind == ANSWER_CHANGED]

    @property
    def accepted_leaks(self) -> list[ItemAudit]:
        return [i for i in self.counterparts if i.leaked and i.status == "accepted"]

    def table(self, key: str) -> dict[str, dict[str, int]]:
        """Counterparts by ``key`` ("transform" or "status"): n, leaked, errors."""
        out: dict[str, Counter] = defaultdict(Counter)
        for item in self.counterparts:
            row = out[getattr(item, key)]
            row["n"] += 1
            row["leaked"] += item.leaked
            row["computable"] += item.computable and not item.leaked
            row["unread"] += bool(item.error)
        return {k: dict(v) for k, v in sorted(out.items())}

    def to_json(self) -> dict[str, Any]:
        controls = [i for i in self.items if i.kind == ORIGINAL]
        return {
            "counterparts": len(self.counterparts),
            "leaked": sum(i.leaked for i in self.counterparts),
            "accepted_leaked": len(self.accepted_leaks),
            "controls": len(controls),
            "controls_stating_the_answer": sum(bool(i.found) for i in controls),
            "answer_changed": len(self.answer_changed),
            "answer_changed_stating_the_original": sum(i.leaked for i in self.answer_changed),
            "by_transform": self.table("transform"),
            "by_status": self.table("status"),
            "items": [i.to_json() for i in self.items],
        }


# -- reading one dataset -------------------------------------------------------------------


def _rows(root: Path) -> list[dict[str, Any]]:
    path = root / "data.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the dataset ({exc.strerror or exc})") from None
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError as exc:
            raise InputError(f"{path}:{number}: not a JSON record ({exc})") from None
    return rows


class _Documents:
    """The controls' documents, read once each (their readings also stay in
    :mod:`.reading`'s per-content cache); shipped documents are read as they come."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._readings: dict[str, tuple[dict[int, PageReadings], dict[int, str]]] = {}

    def read(self, relative: str) -> bytes:
        try:
            return (self.root / relative).read_bytes()
        except OSError as exc:
            raise InputError(f"{relative}: cannot read ({exc.strerror or exc})") from None

    def readings(self, relative: str) -> tuple[dict[int, PageReadings], dict[int, str]]:
        if relative not in self._readings:
            data = self.read(relative)
            with open_pdf(data, "original document") as document:
                digest = hashlib.sha256(data).hexdigest()
                self._readings[relative] = read_document(document, digest), page_labels(document)
        return self._readings[relative]


def _control_map(control: Mapping[str, Any], docs: _Documents) -> EvidenceMap:
    readings, labels = docs.readings(control["document"])
    return build_map(
        control.get("evidence_pages") or [],
        control["question"],
        str(control.get("original_answer") or control.get("answer") or ""),
        control.get("answer_format"),
        control.get("options") or [],
        readings,
        labels,
    )


def _image_readings(root: Path, images: list[str]) -> dict[int, PageReadings]:
    from ..textregions.detect import image_words

    out = {}
    for index, relative in enumerate(images, 1):
        pixels = decode_image((root / relative).read_bytes(), relative)
        words = tuple(w for w in image_words(pixels) if w.conf >= 30)
        out[index] = PageReadings(index, [Reading(index, OCR, words)], size=pixels.shape[:2][::-1])
    return out


def audit_item(
    row: Mapping[str, Any], control: Mapping[str, Any] | None, root: Path, docs: _Documents
) -> ItemAudit:
    """One record read as a model would read it."""
    transform = row.get("transform") or {}
    qc = row.get("qc") or {}
    context = row.get("context") or ("document" if row.get("document") else IMAGES)
    kind = record_kind(row)
    policy = "control" if kind == ORIGINAL else policy_of(row)
    item = ItemAudit(
        id=str(row.get("id")),
        transform=str(transform.get("name") or "original"),
        family=str(transform.get("family") or "control"),
        status=str(qc.get("status") or ("control" if row.get("answerable") else "unknown")),
        context=context,
        policy=policy,
        answerable=bool(row.get("answerable")),
        kind=kind,
    )
    reference = control or row
    try:
        if row.get("document") and reference.get("document"):
            emap = _control_map(reference, docs)
        else:
            readings = _image_readings(root, list(reference.get("images") or []))
            emap = build_map(
                list(readings),
                str(reference.get("question") or ""),
                str(row.get("original_answer") or ""),
                row.get("answer_format"),
                row.get("options") or [],
                readings,
            )
        if kind == ORIGINAL:
            item.pages_read = len(emap.readings)
            item.found = emap.statements()
            return item
        if policy == QUESTION:
            return item  # the evidence is the control's by design; the judges decide
        if context == "document":
            item.related = sorted(emap.related)
        readings, changed = _shipped(row, reference, emap, context, root, docs)
        item.pages_read, item.pages_reread = len(readings), changed
        item.found = find_leaks(
            emap,
            readings,
            str(reference.get("question") or row.get("question") or ""),
            row.get("options") or [],
            policy,
            allowed_regions(transform),
            [p for p in readings if p not in changed],
        )
        item.leaked = any(m.status != OPERAND for m in item.found)
        item.computable = any(m.status == OPERAND for m in item.found)
    except (InputError, OSError, ValueError, RuntimeError) as exc:
        item.error = f"{type(exc).__name__}: {exc}"
    return item


def _shipped(
    row: Mapping[str, Any],
    reference: Mapping[str, Any],
    emap: EvidenceMap,
    context: str,
    root: Path,
    docs: _Documents,
) -> tuple[dict[int, PageReadings], list[int]]:
    """What a counterpart ships, read: its document's pages (all of them, or the listed
    ones) and its page images; or its images."""
    images = list(row.get("images") or [])
    if not row.get("document"):
        readings = _image_readings(root, images)
        return readings, list(readings)
    listed = list(reference.get("evidence_pages") or [])
    pages = sorted(emap.readings) if context == "document" else listed
    page_images = {}
    if len(images) == len(listed):
        page_images = {p: (root / f).read_bytes() for p, f in zip(listed, images, strict=True)}
    return read_shipped(
        docs.read(row["document"]),
        pages,
        emap.readings,
        page_images,
        region_kinds(row.get("transform") or {}),
        DEFAULT_DPI,
        MAX_PIXELS,
    )


def iter_audit(root: Path) -> Iterator[tuple[int, ItemAudit]]:
    """Audit every record of the dataset in ``root``, in file order, with its count."""
    rows = _rows(root)
    controls = {r.get("group_id"): r for r in rows if record_kind(r) == ORIGINAL}
    docs = _Documents(root)
    for row in rows:
        yield len(rows), audit_item(row, controls.get(row.get("group_id")), root, docs)


def audit_dataset(root: Path, progress: Callable[[int, int], None] | None = None) -> AuditReport:
    """The whole audit (see :func:`iter_audit`); ``audit.json`` is written in ``root``."""
    report = AuditReport()
    for done, (total, item) in enumerate(iter_audit(root), 1):
        report.items.append(item)
        if progress is not None:
            progress(done, total)
    return report


def write_report(report: AuditReport, path: Path) -> dict[str, Any]:
    """``audit.json`` at ``path``; returns what was written."""
    from ..media.files import atomic_write

    data = report.to_json()
    atomic_write(path, (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    return data


def print_report(console: Any, data: Mapping[str, Any], written: Path, limit: int = 20) -> None:
    """Tables by transform and by QC status, then the leaking items and where they leak."""
    from rich.table import Table

    for key, title in (("by_transform", "transform"), ("by_status", "QC status")):
        table = Table(title=f"Counterparts still stating the answer, by {title}")
        table.add_column(title)
        for column in ("items", "leaking", "share", "computable", "unreadable"):
            table.add_column(column, justify="right")
        for name, row in data[key].items():
            share = f"{row.get('leaked', 0) / row['n']:.0%}" if row["n"] else "-"
            table.add_row(
                name,
                str(row["n"]),
                str(row.get("leaked", 0)),
                share,
                str(row.get("computable", 0)),
                str(row.get("unread", 0)),
            )
        console.print(table)
    leaking = [i for i in data["items"] if i["leaked"] and i.get("kind") != ANSWER_CHANGED]
    leaking.sort(key=lambda i: (i["status"] != "accepted", i["id"]))
    for item in leaking[:limit]:
        places = "; ".join(
            f"page {m['page']} ({m['channel']}): {m['text']!r}" for m in item["found"][:3]
        )
        console.print(f"  [bold]{item['id']}[/] [{item['status']}] {places}", highlight=False)
    if len(leaking) > limit:
        console.print(f"  ... and {len(leaking) - limit} more (all of them in {written})")
    computable = sum(row.get("computable", 0) for row in data["by_status"].values())
    if computable:
        console.print(
            f"  {computable} counterpart(s) have an answer printed nowhere while rows naming the"
            " question's terms with numbers are still readable (items[].found, status"
            " 'operand'): check whether a reader can compute it from them",
            highlight=False,
        )
    console.print(
        f"{data['leaked']} of {data['counterparts']} counterparts still state the answer"
        f" ({data['accepted_leaked']} of them accepted by QC); the answer is stated in"
        f" {data['controls_stating_the_answer']} of {data['controls']} controls."
        + (
            f" {data['answer_changed_stating_the_original']} of {data['answer_changed']}"
            " answer-changed items still state the original's answer."
            if data.get("answer_changed")
            else ""
        )
        + f" Report: {written}",
        highlight=False,
    )
