"""Both question classifiers over a whole source, and the class distribution.

Image questions (``modality_dependency``) get the image-dependency class, document
questions (``evidence_sufficiency``) the evidence type and their time references. Records
the source already marks as unanswerable are classified and flagged; the distribution
counts them with the rest and reports how many there were.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model import EVIDENCE, MODALITY
from .dependency import DEPENDENCY_CLASSES, DependencyResult, classify_dependency
from .evidence_type import EVIDENCE_TYPES, EvidenceTypeResult, classify_evidence, time_references
from .records import QuestionRecord, iter_questions

if TYPE_CHECKING:
    from ..models import ModelClient

#: The classes of each axis, in the order they are reported.
AXIS_CLASSES: dict[str, tuple[str, ...]] = {
    MODALITY: DEPENDENCY_CLASSES,
    EVIDENCE: EVIDENCE_TYPES,
}


@dataclass(frozen=True)
class Classified:
    """One record and its class on its axis (``label`` is None when it has no question)."""

    record: QuestionRecord
    dependency: DependencyResult | None = None
    evidence: EvidenceTypeResult | None = None

    @property
    def label(self) -> str | None:
        result = self.dependency or self.evidence
        return result.label if result is not None else None

    @property
    def mode(self) -> str | None:
        result = self.dependency or self.evidence
        return result.mode if result is not None else None

    def why(self) -> str:
        """One short line saying what decided the class (for tables)."""
        if self.dependency is not None:
            scores = self.dependency.scores
            return (
                f"text {scores.get('text_sufficiency', 0):.2f}"
                f" / image {scores.get('image_dependency', 0):.2f}"
            )
        if self.evidence is not None:
            if self.evidence.defaulted:
                return "no trigger (default)"
            return ", ".join(self.evidence.matches[self.evidence.label])
        return self.record.error or ""

    def to_json(self) -> dict[str, Any]:
        record = self.record
        out: dict[str, Any] = {
            "id": record.id,
            "axis": record.axis,
            "answerable": record.answerable,
            "class": self.label,
            "mode": self.mode,
            "question": record.question,
            "n_images": record.n_images,
        }
        if self.dependency is not None:
            out["dependency"] = self.dependency.to_json()
        if self.evidence is not None:
            out["evidence_type"] = self.evidence.to_json()
            out["time_references"] = time_references(record.question)
        if record.error:
            out["error"] = record.error
        if record.note:
            out["note"] = record.note
        return out


def _image_bytes(record: QuestionRecord) -> tuple[bytes, ...]:
    """The record's readable images, for the model; unreadable ones are left out."""
    out: list[bytes] = []
    for ref in record.images:
        if ref.data is not None:
            out.append(ref.data)
        elif ref.path is not None:
            try:
                out.append(ref.path.read_bytes())
            except OSError:
                continue
    return tuple(out)


def classify_record(record: QuestionRecord, *, llm: ModelClient | None = None) -> Classified:
    """The class of one record on its own axis (the model is asked only about images)."""
    if record.error:
        return Classified(record)
    if record.axis == EVIDENCE:
        return Classified(record, evidence=classify_evidence(record.question))
    images = _image_bytes(record) if llm is not None else ()
    dependency = classify_dependency(
        record.question, record.options, record.n_images, images=images, llm=llm
    )
    return Classified(record, dependency=dependency)


def classify_source(
    path: str | Path,
    format: str | None = None,
    *,
    limit: int | None = None,
    llm: ModelClient | None = None,
) -> Iterator[Classified]:
    """Every record of a source, classified, in the source's order."""
    for record in iter_questions(path, format, limit=limit):
        yield classify_record(record, llm=llm)


def _mode_key(mode: str) -> str:
    """Fallbacks grouped: "heuristic (llm failed: timeout)" counts as "heuristic (llm failed)"."""
    head, sep, rest = mode.partition(" (")
    return f"{head} ({rest.split(':')[0].rstrip(')')})" if sep else mode


@dataclass
class Distribution:
    """Counts and shares of the classes, per axis, over the records added."""

    counts: dict[str, Counter[str]] = field(default_factory=dict)
    modes: dict[str, Counter[str]] = field(default_factory=dict)
    unanswerable: Counter[str] = field(default_factory=Counter)
    errors: int = 0
    #: Why the model failed on the first record it failed on ("" when it never did).
    first_llm_failure: str = ""

    def add(self, item: Classified) -> None:
        if item.label is None:
            self.errors += 1
            return
        mode = item.mode or ""
        if "llm failed" in mode and not self.first_llm_failure:
            self.first_llm_failure = mode.partition("llm failed: ")[2].rstrip(")") or mode
        axis = item.record.axis
        self.counts.setdefault(axis, Counter())[item.label] += 1
        self.modes.setdefault(axis, Counter())[_mode_key(item.mode or "")] += 1
        if not item.record.answerable:
            self.unanswerable[axis] += 1

    def llm_failures(self) -> int:
        """Records on which the model was asked and failed (the heuristic answered)."""
        return sum(
            count
            for modes in self.modes.values()
            for mode, count in modes.items()
            if "llm failed" in mode
        )

    def to_json(self) -> dict[str, Any]:
        axes: dict[str, Any] = {}
        for axis, counts in self.counts.items():
            total = sum(counts.values())
            classes = AXIS_CLASSES.get(axis, tuple(sorted(counts)))
            axes[axis] = {
                "total": total,
                "unanswerable_in_source": self.unanswerable[axis],
                "counts": {c: counts[c] for c in classes},
                "shares": {c: round(counts[c] / total, 4) if total else 0.0 for c in classes},
                "modes": dict(self.modes[axis]),
            }
        return {
            "records": sum(a["total"] for a in axes.values()) + self.errors,
            "errors": self.errors,
            "axes": axes,
        }
