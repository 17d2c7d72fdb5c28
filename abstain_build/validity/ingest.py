"""Grading a reader's answers against a kit key and filing them in a ledger.

The grading follows ``AUDIT.md`` with ``eval``'s own graders (so "$34.7 million" is 34.7
and "(B)" is B, and a wrong answer is never a hit):

* no answer, an abstention, or a guess (right or wrong): **unanswerable**;
* two values stated for the asked thing (``conflict``): **conflicting**, unless the
  reader still settled on the gold with high or medium confidence (the note or the
  corruption was overruled): then **answerable**;
* the gold with high or medium confidence: **answerable**;
* anything else a reader would have answered with (the gold at low confidence, another
  value at high or medium), or a rewritten question a reader calls not fluent:
  **doubtful**; a wrong answer at low confidence is **unanswerable**.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..model import document_name
from ..scoring.abstention import default_matcher
from .cues import question_cues
from .ledger import (
    ANSWERABLE,
    BASES,
    CONFIDENCES,
    CONFLICTING,
    DOUBTFUL,
    GOLD_AT_LOW_CONFIDENCE,
    UNANSWERABLE,
    Reading,
)

_CONFIDENCE_WORDS = {
    "n/a": "none",
    "no answer": "none",
    "very high": "high",
    "certain": "high",
    "moderate": "medium",
    "med": "medium",
}


@dataclass(frozen=True)
class Graded:
    verdict: str
    rule: str
    note: str


def _confidence(value: Any) -> str:
    text = str(value or "").strip().lower()
    text = _CONFIDENCE_WORDS.get(text, text)
    if text not in CONFIDENCES:
        raise ConfigError(f"confidence {value!r} is not one of {', '.join(CONFIDENCES)}")
    return text


_BASIS_WORDS = {
    "document": "shipped",
    "kit": "shipped",
    "options": "shipped",
    "recall": "memory",
    "recollection": "memory",
    "general knowledge": "knowledge",
    "world knowledge": "knowledge",
}


def _basis(value: Any) -> str:
    """What the answer rests on, one of :data:`.ledger.BASES` ("" when not given)."""
    text = str(value or "").strip().lower()
    if text in ("", "none", "n/a"):
        return ""
    text = _BASIS_WORDS.get(text, text)
    if text not in BASES:
        raise ConfigError(f"basis {value!r} is not one of {', '.join(BASES)}")
    return text


def _said(value: Any) -> str:
    """A free-text field as written ("" for null, false or "no")."""
    if value is None or value is False:
        return ""
    text = str(value).strip()
    return "" if text.lower() in ("", "no", "none", "false", "n/a") else text


def grade_reading(key: dict[str, Any], answer: dict[str, Any]) -> Graded:
    """The verdict on one reading (see the module docstring)."""
    verdict, rule, notes = _verdict(key, answer)
    fluent = _said(answer.get("fluent")).lower()
    if key.get("mode") in ("template", "llm") and fluent.startswith("no"):
        if verdict in (UNANSWERABLE, CONFLICTING):
            verdict = DOUBTFUL
        notes.append("the rewritten question does not read as a real question")
    damage = _said(answer.get("damage"))
    if damage:
        notes.append(f"damage: {damage}")
    return Graded(verdict, rule, "; ".join(notes))


def _verdict(key: dict[str, Any], answer: dict[str, Any]) -> tuple[str, str, list[str]]:
    """(verdict, grading rule, notes) from the answer alone, before fluency."""
    from ..scoring.answers import grade

    confidence = _confidence(answer.get("confidence"))
    text = str(answer.get("answer") or "").strip()
    conflict = _said(answer.get("conflict"))
    options = list(key.get("options") or [])
    gold = str(key["gold"])
    notes = [f"conflict: {conflict}"] if conflict else []
    abstained = not text or confidence == "none"
    if not abstained:
        abstained = default_matcher().match(text, [*options, gold]).abstained
    if abstained or confidence == "guess":
        return (CONFLICTING if conflict else UNANSWERABLE), "", notes
    result = grade(text, gold, answer_format=key.get("grading_format"), options=options)
    sure = confidence in ("high", "medium")
    if conflict:
        return (ANSWERABLE if result.correct and sure else CONFLICTING), result.rule, notes
    if result.correct:
        if sure:
            return ANSWERABLE, result.rule, notes
        return DOUBTFUL, result.rule, [*notes, GOLD_AT_LOW_CONFIDENCE]
    if sure:
        return DOUBTFUL, result.rule, [*notes, f"settled on another answer ({confidence})"]
    return UNANSWERABLE, result.rule, notes


@dataclass
class IngestResult:
    readings: list[Reading] = field(default_factory=list)
    #: Answers of items already in the ledger for the same reader: not filed again.
    duplicates: int = 0

    def by_transform(self) -> dict[str, Counter[str]]:
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        for reading in self.readings:
            counts[reading.transform][reading.verdict] += 1
        return dict(sorted(counts.items()))


def _jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise ConfigError(f"{path}, line {number}: not JSON ({exc})") from None
        if not isinstance(value, dict):
            raise ConfigError(f"{path}, line {number}: expected an object")
        out.append(value)
    return out


def ingest(
    key_path: Path,
    answer_paths: Sequence[Path],
    *,
    existing: Sequence[Reading] = (),
    today: str | None = None,
) -> IngestResult:
    """Grade every answer of ``answer_paths`` against the key; readings already in
    ``existing`` (same item, version and reader) are not made twice."""
    keys = {(k["reader"], k["kit"]): k for k in _jsonl(key_path)}
    done = {(r.item, r.version, r.reader) for r in existing}
    result = IngestResult()
    stamp = today or date.today().isoformat()
    for path in answer_paths:
        for number, answer in enumerate(_jsonl(path), start=1):
            where = f"{path}, answer {number}"
            reader, kit = str(answer.get("reader", "")), str(answer.get("kit", ""))
            key = keys.get((reader, kit))
            if key is None:
                raise ConfigError(f"{where}: reader {reader!r} kit {kit!r} is not in {key_path}")
            if not str(answer.get("confidence") or "").strip():
                # An unfilled line is no reading: never count it as "no answer".
                raise ConfigError(
                    f"{where}: no confidence given (write none when there is no answer)"
                )
            try:
                graded = grade_reading(key, answer)
                _basis(answer.get("basis"))
            except ConfigError as exc:
                raise ConfigError(f"{where}: {exc}") from None
            reading = Reading(
                item=key["item"],
                source=key["source"],
                document=document_name(key.get("doc_id")),
                dataset=key["dataset"],
                transform=key["transform"],
                version=int(key["version"]),
                mode=key["mode"],
                kind=key["kind"],
                answer_format=key["answer_format"],
                reader=key["reader_id"],
                answer=str(answer.get("answer") or "").strip(),
                confidence=_confidence(answer.get("confidence")),
                verdict=graded.verdict,
                rule=graded.rule,
                where=_said(answer.get("where")),
                basis=_basis(answer.get("basis")),
                note=graded.note,
                date=stamp,
                shipped=key.get("shipped") or _shipped_of(key),
                cues=_cues_of(key),
            )
            if (reading.item, reading.version, reading.reader) in done:
                result.duplicates += 1
                continue
            done.add((reading.item, reading.version, reading.reader))
            result.readings.append(reading)
    return result


def _cues_of(key: dict[str, Any]) -> tuple[str, ...]:
    """The offline blind cues on the key's question (none for a key without it)."""
    question = key.get("question")
    if not isinstance(question, str):
        return ()
    return question_cues(
        question,
        key.get("options") or [],
        str(key.get("gold") or ""),
        document=document_name(key.get("doc_id")),
    )


def _shipped_of(key: dict[str, Any]) -> str:
    """The shipped digest of a key written before kits recorded it: from its build, when
    that folder is still there ("" when not)."""
    from ..scoring.items import data_records
    from .shipped import shipped_digest

    root = Path(str(key.get("build") or ""))
    if not key.get("build") or not (root / "data.jsonl").is_file():
        return ""
    for record in data_records(root):
        if record.get("id") == key.get("record"):
            return shipped_digest(root, record)
    return ""
