"""The validity ledger: one JSON line per blind reading of one counterpart.

A reading is what an annotator concluded from exactly what a record ships (SPEC 8,
``AUDIT.md``), graded afterwards against the gold. The package ships its own ledger
(:data:`PACKAGE_LEDGER`); users add theirs (``--ledger FILE``, ``audit --ingest``). Lines
are append-only history: a reading of an older version of a transform stays in the file
and stops counting (:mod:`.table`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError

#: The readings shipped with the package.
PACKAGE_LEDGER = Path(__file__).with_name("ledger.jsonl")

UNANSWERABLE = "unanswerable"
ANSWERABLE = "answerable"
CONFLICTING = "conflicting"
DOUBTFUL = "doubtful"
VERDICTS = (UNANSWERABLE, CONFLICTING, ANSWERABLE, DOUBTFUL)
#: Verdicts that count as a valid counterpart (SPEC 8): no answer can be settled on, or the
#: item states two values for the asked thing and nothing says which is true.
VALID = frozenset({UNANSWERABLE, CONFLICTING})
#: How a doubtful reading that gave the gold at low confidence opens its note.
GOLD_AT_LOW_CONFIDENCE = "the gold, at low confidence"
CONFIDENCES = ("high", "medium", "low", "guess", "none")

Verdict = Literal["unanswerable", "conflicting", "answerable", "doubtful"]
Confidence = Literal["high", "medium", "low", "guess", "none"]
#: What a reader's answer rests on: what the item ships (pages, images, options, read or
#: worked out), a recollection of this very document, general knowledge the question
#: invites, a guess; "" when unrecorded (readings made before kits asked) or no answer.
BASES = ("shipped", "memory", "knowledge", "guess")
Basis = Literal["shipped", "memory", "knowledge", "guess", ""]


class Reading(BaseModel):
    """One blind reading of one counterpart (a ledger line)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: :func:`fingerprint` of the item: its source, transform and parameters.
    item: str = Field(min_length=8)
    #: The source sample (the record's ``group_id``).
    source: str
    #: The file name of the document the item ships ("" for images, or where unknown):
    #: readers who remember a public document remember its other figures too
    #: (:func:`.recall.recalled_documents`).
    document: str = ""
    #: Where the item came from ("mmlongbench-doc:shared", "mmmu:fixtures", a user's name).
    dataset: str
    transform: str
    version: int = Field(ge=1)
    #: The transform's recorded mode: "rule", "template" (offline rewrites) or "llm".
    mode: str
    #: The source question's class: its evidence type (documents) or image dependency.
    kind: str
    answer_format: str
    #: An anonymous reader id; one reader never reads two items of one source.
    reader: str
    answer: str
    confidence: Confidence
    verdict: Verdict
    #: How the answer was graded (``eval``'s rule), "" when there was no answer.
    rule: str = ""
    where: str = ""
    note: str = ""
    date: str
    #: :func:`.shipped.shipped_digest` of what the reader was shown ("" when unknown).
    shipped: str = ""
    #: What the answer rests on (:data:`BASES`): an answer the edit could have taken away
    #: ("shipped") or one no edit of the pages can ("memory" of the public document).
    basis: Basis = ""
    #: The offline blind cues that fire on the item's question (:mod:`.cues`): a default
    #: build gives such a question no evidence edit, so the policy's figures leave an
    #: evidence edit's reading of it out.
    cues: tuple[str, ...] = ()
    #: The version the reading was made of, when it counts for a later version that ships
    #: the same bytes (:mod:`.carry`); None for a reading made of this version.
    carried_from: int | None = None

    @property
    def valid(self) -> bool:
        return self.verdict in VALID


def fingerprint(source: str, transform: str, params: Any) -> str:
    """A short, stable id of one counterpart: its source, its transform and the parameters
    it ran with (``params`` as recorded: a dict, or the record's JSON text)."""
    if isinstance(params, str):
        params = json.loads(params or "{}")
    text = json.dumps([source, transform, params], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def read_ledger(path: Path) -> list[Reading]:
    """Every reading of ``path``; a malformed line is refused with its number and why."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read ledger {path}: {exc.strerror or exc}") from None
    readings = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            readings.append(Reading.model_validate_json(line))
        except ValidationError as exc:
            problem = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'line'}: {e['msg']}"
                for e in exc.errors(include_url=False)
            )
            raise ConfigError(f"{path}, line {number}: not a ledger reading ({problem})") from None
    return readings


def read_ledgers(paths: Sequence[Path] = (), *, package: bool = True) -> list[Reading]:
    """The package's readings (unless ``package`` is False) and those of ``paths``."""
    files = ([PACKAGE_LEDGER] if package and PACKAGE_LEDGER.exists() else []) + [
        Path(p) for p in paths
    ]
    return [reading for path in files for reading in read_ledger(path)]


def ledger_digest(readings: Iterable[Reading]) -> str:
    """A digest of the readings (order-free): a build records which figures it applied."""
    lines = sorted(reading.model_dump_json() for reading in readings)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def append_readings(path: Path, readings: Sequence[Reading]) -> None:
    """Append ``readings`` to ``path`` (created when missing), flushed to disk."""
    import os

    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        for reading in readings:
            handle.write(reading.model_dump_json() + "\n")
        handle.flush()
        if path.is_file():  # not a pipe or /dev/null, which cannot be synced
            os.fsync(handle.fileno())
