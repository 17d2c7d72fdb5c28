"""The question's kind: the cell of the validity table a counterpart falls in.

A document question's kind is its evidence type, an image question's its image
dependency, both from the offline classifiers (never a model's), so an item's cell depends
on its source question alone: the same with or without ``--llm``, and the same at build
time, in a reading kit and in the ledger.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def question_kind(
    question: str, options: Sequence[str] = (), n_images: int = 1, *, document: bool
) -> str:
    """Evidence type (documents: "Extractive", "Counting", ...) or image dependency
    (images: "Essential", "Exclusive", ...) of the source question."""
    if document:
        from .evidence_type import classify_evidence

        return classify_evidence(question).label
    from .dependency import classify_heuristic

    return classify_heuristic(question, options, max(1, n_images)).label


def answer_kind(answer_format: str | None, options: Sequence[str] = ()) -> str:
    """The answer's format as the ledger records it: the source's format for documents
    ("Str", "Int", "Float", "List"), "multiple-choice" or "open" for image items."""
    if options:
        return "multiple-choice"
    return str(answer_format or "open")


def control_kind(control: dict[str, Any]) -> str:
    """:func:`question_kind` of a written control record (the source question)."""
    return question_kind(
        control["question"],
        control.get("options") or (),
        len(control.get("images") or ()),
        document=control.get("document") is not None,
    )


#: A counterpart the judges accepted and the validity policy flagged.
HELD = "held"


def shown_status(record: dict[str, Any]) -> str:
    """A counterpart's QC status, ``held`` for one only the validity policy flagged."""
    qc = record.get("qc") or {}
    status = str(qc.get("status") or "unverified")
    if status == "flagged" and (qc.get("validity") or {}).get("held"):
        return HELD
    return status
