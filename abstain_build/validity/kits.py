"""Blind reading kits: what a record ships, one folder per item, the key kept apart.

``abstain-build audit DIR... --kits OUT --n N --seed S`` samples counterparts (stratified
by transform), deals them to readers (never two items of one source or one document to
the same reader: who saw one edit of a source knows where its answer is) and writes, per
reader, a folder per item with the question and options as shown, every image the record
ships and, when it ships a document, the PDF and its text layer page by page. No gold, no
original, no transform name: those go to the key (``OUT.key.jsonl``, beside OUT, not in
it), which :mod:`.ingest` grades the readers' answers with.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import shutil
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..questions.kinds import answer_kind, control_kind, shown_status
from ..schema import COUNTERPART, EVIDENCE_SET, record_kind
from .ledger import Reading, fingerprint
from .shipped import shipped_digest

#: Items per reader (AUDIT.md: a reader gets 6-8).
DEFAULT_PER_READER = 8
#: The statuses sampled by default: accepted counterparts, and those only the validity
#: policy held back (their judges accepted them).
DEFAULT_STATUSES = ("accepted", "held")
ANSWERS_FILE = "answers.jsonl"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class Build:
    """A built folder and the name its readings are filed under in the ledger."""

    root: Path
    dataset: str


@dataclass
class Candidate:
    """A counterpart that may go into a kit."""

    build: Build
    record: dict[str, Any]
    key: dict[str, Any]

    @property
    def source(self) -> str:
        return str(self.key["source"])

    @property
    def document(self) -> str | None:
        return self.key.get("doc_id")

    @property
    def lenders(self) -> frozenset[str]:
        """The samples whose images this item shows as distractors (image evidence sets)."""
        chosen = self.record.get("evidence_set") or {}
        return frozenset(d["sample"] for d in chosen.get("distractors") or [] if d.get("sample"))

    def conflicts(self, other: Candidate) -> bool:
        """Whether one reader may not read both: one source, one document, or one shows
        the other's own image (who saw it as a distractor has seen that question's
        evidence)."""
        return (
            self.source == other.source
            or (self.document is not None and self.document == other.document)
            or self.source in other.lenders
            or other.source in self.lenders
        )


@dataclass
class KitBatch:
    """What :func:`write_kits` wrote."""

    out: Path
    key_path: Path
    readers: dict[str, list[Candidate]] = field(default_factory=dict)
    available: dict[str, int] = field(default_factory=dict)

    @property
    def items(self) -> int:
        return sum(len(v) for v in self.readers.values())


def parse_build(argument: str) -> Build:
    """``DIR`` or ``NAME=DIR``; without a name, the source's dataset and folder name."""
    name, sep, path = argument.partition("=")
    root = Path(path if sep else argument)
    if not (root / "data.jsonl").is_file():
        raise ConfigError(f"{root}: no data.jsonl (not a dataset folder)")
    if sep and name:
        return Build(root, name)
    manifest_path = root / "manifest.json"
    if manifest_path.is_file():
        source = json.loads(manifest_path.read_text(encoding="utf-8")).get("source", {})
        folder = Path(source.get("path", "")).name
        return Build(root, f"{source.get('dataset', 'dataset')}:{folder}")
    return Build(root, root.name)


def left_out_by_readings(build: Build) -> int:
    """How many of the build's sources the blind check from readings kept from evidence
    edits (recalled or contested questions), when the build let it decide. Readings of
    such a build measure the transforms on the other questions only: a new dataset, which
    no reading has flagged yet, holds questions like the ones left out."""
    manifest_path = build.root / "manifest.json"
    if not manifest_path.is_file():
        return 0
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    if manifest.get("config", {}).get("blind_policy") == "record":
        return 0
    readings = manifest.get("counts", {}).get("blind", {}).get("by_method", {}).get("readings")
    return sum((readings or {}).get(verdict, 0) for verdict in ("knowledge", "contested"))


def candidates(
    builds: Sequence[Build], statuses: Sequence[str], sets: Sequence[str] = ()
) -> list[Candidate]:
    """The counterparts of ``builds`` whose QC status is one of ``statuses``, and the
    unanswerable items of the evidence sets named in ``sets`` ("distractors", "none")."""
    from ..scoring.items import data_records

    found = []
    for build in builds:
        records = list(data_records(build.root))
        controls = {r["group_id"]: r for r in records if record_kind(r) == "original"}
        for record in records:
            if record_kind(record) == EVIDENCE_SET:
                if record["answerable"] or record["evidence_set"]["name"] not in sets:
                    continue
                record = as_reading_item(record)
            elif record_kind(record) != COUNTERPART or shown_status(record) not in statuses:
                continue
            control = controls.get(record["group_id"])
            if control is None:
                continue
            found.append(Candidate(build, record, _key(build, record, control)))
    return found


#: What an evidence set's readings are filed under: a transform named ``evidence_set:NAME``
#: (the validity table counts it like one), at this version.
SET_PREFIX = "evidence_set:"
SET_VERSION = 1


def as_reading_item(record: dict[str, Any]) -> dict[str, Any]:
    """An unanswerable evidence-set item, described as the key describes a counterpart:
    its set as the transform, its pages (or, for an image sample, its images) as the
    parameters."""
    chosen = record["evidence_set"]
    params: dict[str, Any] = {"pages": chosen["pages"]}
    if chosen.get("images"):
        params["images"] = chosen["images"]
    transform = {
        "name": SET_PREFIX + chosen["name"],
        "version": SET_VERSION,
        "mode": "rule",
        "params": json.dumps(params),
    }
    return dict(record, transform=transform)


def _key(build: Build, record: dict[str, Any], control: dict[str, Any]) -> dict[str, Any]:
    transform = record["transform"]
    options = list(record.get("options") or [])
    return {
        "record": record["id"],
        "item": fingerprint(record["group_id"], transform["name"], transform["params"]),
        "source": record["group_id"],
        "doc_id": (record.get("source") or {}).get("doc_id"),
        "dataset": build.dataset,
        "build": str(build.root.resolve()),
        "transform": transform["name"],
        "version": int(transform.get("version") or 1),
        "mode": transform.get("mode") or "rule",
        "kind": control_kind(control),
        "answer_format": answer_kind(record.get("answer_format"), options),
        "gold": str(record.get("original_answer") or control.get("answer") or ""),
        "grading_format": record.get("answer_format"),
        "options": options,
        "question": record["question"],
        "status": shown_status(record),
        "shipped": shipped_digest(build.root, record),
    }


def _stratified(pool: list[Candidate], n: int, rng: random.Random) -> list[Candidate]:
    """Up to ``n`` items, as even over transforms as the counts allow, in an order that
    takes turns between transforms (so a short batch is still spread); inside a transform,
    turns are taken between documents (or sources), so that readers, who may see one item
    of a document each, are not all needed for one document."""
    by_transform: dict[str, list[Candidate]] = defaultdict(list)
    for item in pool:
        by_transform[item.key["transform"]].append(item)
    queues = {name: _spread(items, rng) for name, items in by_transform.items()}
    chosen: list[Candidate] = []
    names = sorted(queues)
    while len(chosen) < n and any(queues[name] for name in names):
        for name in names:
            if queues[name] and len(chosen) < n:
                chosen.append(queues[name].pop())
    return chosen


def _spread(items: list[Candidate], rng: random.Random) -> list[Candidate]:
    """``items`` shuffled, then dealt one document (or source) at a time; popped from the
    end, so the last element is taken first."""
    groups: dict[str, list[Candidate]] = defaultdict(list)
    for item in items:
        groups[item.document or item.source].append(item)
    order = sorted(groups)
    rng.shuffle(order)
    for name in order:
        rng.shuffle(groups[name])
    dealt: list[Candidate] = []
    while any(groups[name] for name in order):
        for name in order:
            if groups[name]:
                dealt.append(groups[name].pop())
    dealt.reverse()
    return dealt


def deal(items: list[Candidate], per_reader: int) -> list[list[Candidate]]:
    """Readers' hands: at most ``per_reader`` each, never two items of one source or of
    one document in a hand, nor an item beside one that shows its images as distractors
    (:meth:`Candidate.conflicts`); as few readers as that allows, hands as even as
    possible."""
    hands: list[list[Candidate]] = [[] for _ in range(max(1, math.ceil(len(items) / per_reader)))]
    for item in items:
        fits = [
            hand
            for hand in hands
            if len(hand) < per_reader and not any(item.conflicts(other) for other in hand)
        ]
        if not fits:
            hands.append([])
            fits = [hands[-1]]
        min(fits, key=len).append(item)
    return [hand for hand in hands if hand]


def write_kits(
    builds: Sequence[Build],
    out: Path,
    *,
    n: int,
    seed: int = 0,
    per_reader: int = DEFAULT_PER_READER,
    statuses: Sequence[str] = DEFAULT_STATUSES,
    transforms: Sequence[str] = (),
    read: Sequence[Reading] = (),
    key: Path | None = None,
) -> KitBatch:
    """Sample ``n`` counterparts of ``builds`` and write their kits to ``out``; items read
    already (their fingerprint and version in ``read``) are left out. The key goes to
    ``key`` (default ``OUT.key.jsonl`` beside OUT), never inside OUT: readers are handed
    OUT, and a key listed beside a kit is a key in sight (keep it in a folder they are not
    shown)."""
    if out.exists() and any(out.iterdir()):
        raise ConfigError(f"{out} exists and is not empty: kits go to a new folder")
    key_path = key if key is not None else out.parent / f"{out.name}.key.jsonl"
    if key_path.resolve().is_relative_to(out.resolve()):
        raise ConfigError(f"the key {key_path} would sit inside the kits ({out}): readers get OUT")
    if key_path.exists():
        raise ConfigError(f"{key_path} exists: a key is never overwritten")
    seen = {(r.item, r.version) for r in read}
    sets = [t[len(SET_PREFIX) :] for t in transforms if t.startswith(SET_PREFIX)]
    pool = [
        c
        for c in candidates(builds, statuses, sets)
        if (c.key["item"], c.key["version"]) not in seen
        and (not transforms or c.key["transform"] in transforms)
    ]
    rng = random.Random(seed)
    available: dict[str, int] = defaultdict(int)
    for item in pool:
        available[item.key["transform"]] += 1
    chosen = _stratified(pool, n, rng)
    batch_id = hashlib.sha256(f"{out.resolve()}|{seed}".encode()).hexdigest()[:6]
    batch = KitBatch(out, key_path, available=dict(sorted(available.items())))
    out.mkdir(parents=True, exist_ok=True)
    (out / "README.md").write_text(READER_GUIDE, encoding="utf-8")
    key_lines = []
    for index, hand in enumerate(deal(chosen, per_reader), start=1):
        reader = f"r{index:02d}"
        batch.readers[reader] = hand
        template = []
        for position, item in enumerate(hand, start=1):
            kit = f"{position:02d}"
            _write_kit(item, out / reader / kit)
            template.append(
                {
                    "reader": reader,
                    "kit": kit,
                    "answer": "",
                    "confidence": "",
                    "where": "",
                    "basis": "",
                    "conflict": "",
                    "damage": "",
                    "fluent": "",
                }
            )
            key_lines.append(
                dict(item.key, reader=reader, kit=kit, reader_id=f"{batch_id}-{reader}")
            )
        (out / reader / ANSWERS_FILE).write_text(
            "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in template),
            encoding="utf-8",
        )
    key_path.parent.mkdir(parents=True, exist_ok=True)
    key_path.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in key_lines),
        encoding="utf-8",
    )
    return batch


def _write_kit(item: Candidate, folder: Path) -> None:
    """One item's folder: question.md, its images, its document and the text layer."""
    record = item.record
    root = item.build.root
    folder.mkdir(parents=True)
    shipped: list[str] = []
    pages = list(record.get("evidence_pages") or [])
    if record.get("evidence_set"):  # its images are its PDF's pages, in order
        pages = list(range(1, len(record["evidence_set"]["pages"]) + 1))
    document = record.get("document")
    for index, relative in enumerate(record.get("images") or []):
        suffix = Path(relative).suffix or ".png"
        if document is not None and index < len(pages):
            name = f"page-{pages[index]:04d}{suffix}"
            shipped.append(f"`{name}`: page {pages[index]} of the document, as rendered")
        else:
            name = f"image-{index + 1}{suffix}"
            shipped.append(f"`{name}`: image {index + 1} of the question (`<image {index + 1}>`)")
        shutil.copyfile(root / relative, folder / name)
    if document is not None and record.get("context") == "document":
        shutil.copyfile(root / document, folder / "document.pdf")
        count = _text_layer(folder / "document.pdf", folder / "text")
        shipped.append(
            f"`document.pdf`: the whole document ({count} pages); its text layer page by"
            " page in `text/page-NNN.txt` (empty for pages that have none)"
        )
    (folder / "question.md").write_text(_question_text(record, shipped), encoding="utf-8")


def _text_layer(pdf: Path, folder: Path) -> int:
    import pymupdf

    folder.mkdir()
    with pymupdf.open(pdf) as doc:
        for number, page in enumerate(doc, start=1):
            (folder / f"page-{number:03d}.txt").write_text(page.get_text(), encoding="utf-8")
        return doc.page_count


def _question_text(record: dict[str, Any], shipped: list[str]) -> str:
    lines = ["# Question", "", str(record["question"]).strip(), ""]
    options = list(record.get("options") or [])
    if options:
        lines += ["## Options", ""]
        lines += [f"{LETTERS[i]}. {option}" for i, option in enumerate(options[:26])]
        lines.append("")
    answer_format = record.get("answer_format")
    if answer_format and not options:
        lines += [f"Answer format: {answer_format}", ""]
    lines += ["## What you are given", ""]
    lines += [f"- {line}" for line in shipped]
    lines.append("")
    return "\n".join(lines)


READER_GUIDE = """\
# Reading kits

Each folder `rNN/` is one reader's. Open only your own. Inside, each numbered folder is
one question with what comes with it (`question.md` says what you are given).

Answer every question as a determined test-taker would: read values, count, compute
totals from parts and ratios from statement lines, search every page of the document
(the `text/` files make that quick), eliminate options, and use the general knowledge
the question invites. If you cannot reach an answer, say so; do not invent one.

Write your answers into `rNN/answers.jsonl`, one line per item (the lines are there,
in the order of the numbered folders; `reader` and `kit` say which folder a line is
for: leave those two as they are and fill in the rest):

- `answer`: your answer, or "" when you cannot answer;
- `confidence`: `high`, `medium`, `low`, `guess` or `none` (no answer);
- `where`: where you found it (page, image, table, sentence, the options...);
- `basis`: what your answer rests on: `shipped` (read or worked out from what is in the
  folder, the options included), `memory` (you remember this document or its figures),
  `knowledge` (general knowledge the question invites, not this document), `guess`; ""
  when you give no answer;
- `conflict`: when what you are given states two different values for the asked thing
  and nothing says which is true, write both values here; else leave it "";
- `damage`: anything visibly edited (masks, blur, cut pages), briefly;
- `fluent`: for the question itself: "yes" if it reads as a question a person would
  write and still makes sense with its options, "no" (and why, in `damage`) if not.

Do not look for the questions elsewhere (on disk or in memory of other datasets' files);
answer from what is in your folder and what you know. Keep anything you make while
reading (enhanced images, notes, scripts) inside your own folder, say `rNN/scratch/`,
never in a shared place such as `/tmp`: another reader's files there are not yours to see.
"""
