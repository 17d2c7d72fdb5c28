"""The rows of data.jsonl: the answerable control, its unanswerable counterparts and, for
documents, answer-changed items (an edit that printed a new answer: answerable with it)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..evidence.context import DEFAULT_CONTEXT
from ..evidence.gate import GateResult
from ..evidence.image_gate import ImageGateResult
from ..evidence.map import EvidenceMap
from ..model import Sample
from ..schema import ANSWER_CHANGED, COUNTERPART, EVIDENCE_SET, ORIGINAL


@dataclass
class ControlAssets:
    """Where the original's files were written (perturbed items reuse what they leave unchanged)."""

    images: list[str]
    document: str | None
    #: What was removed from the source PDF before anything was made from it (documents).
    sanitised: list[str] | None = None


def json_text(value: Any) -> str:
    """Dicts whose keys vary from row to row are stored as JSON text, so that every row of
    data.jsonl has one Arrow schema (``datasets`` reads large files in blocks and cannot
    reconcile structs with different fields across them)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _source(sample: Sample) -> dict[str, Any]:
    info = sample.source
    return {
        "dataset": info.dataset,
        "layout": info.layout,
        "file": info.file,
        "index": info.index,
        "id": info.source_id,
        "doc_id": sample.document.doc_id if sample.document else None,
    }


def _record(
    sample: Sample,
    variant: str,
    question: str,
    images: list[str],
    document: str | None,
    transform: dict[str, Any] | None,
    routing: dict[str, Any] | None,
    qc: dict[str, Any],
    context: str,
    evidence: dict[str, Any] | None,
    new_answer: str | None = None,
    blind: dict[str, Any] | None = None,
    sanitised: list[str] | None = None,
    evidence_set: dict[str, Any] | None = None,
    answerable: bool = True,
    options: list[str] | None = None,
) -> dict[str, Any]:
    """One row, keys in the order of ``abstain_build.schema.RECORD``. ``new_answer``: the
    gold of an answer-changed item; ``blind``: the sample's blind-check verdict;
    ``sanitised``: what was removed from the document's PDF; ``evidence_set`` (with
    ``answerable``): the set an evidence-set item ships; ``options``: when they differ
    from the sample's (an evidence set's renumbered placeholders)."""
    if evidence_set is not None:
        kind, answer = EVIDENCE_SET, sample.answer if answerable else None
    elif transform is None:
        kind, answer = ORIGINAL, sample.answer
    elif new_answer is not None:
        kind, answer = ANSWER_CHANGED, new_answer
    else:
        kind, answer = COUNTERPART, None
    return {
        "id": f"{sample.id}/{variant}",
        "group_id": sample.id,
        "answerable": answerable if kind == EVIDENCE_SET else kind != COUNTERPART,
        "kind": kind,
        "axis": sample.axis,
        "question": question,
        "options": list(sample.options) if options is None else options,
        "answer": answer,
        "original_answer": sample.answer,
        "answer_format": sample.answer_format,
        "images": images,
        "document": document,
        "sanitised": sanitised,
        "context": context,
        "evidence_pages": list(sample.evidence_pages),
        "evidence_set": evidence_set,
        "transform": None
        if transform is None
        else dict(
            transform,
            params=json_text(transform["params"]),
            replay=json_text(transform.get("replay") or {}),
        ),
        "routing": routing,
        "blind": blind,
        "evidence": evidence,
        "qc": qc,
        "source": _source(sample),
        "metadata": json_text(sample.metadata),
    }


def _qc(status: str, preliminary: dict[str, Any] | None = None) -> dict[str, Any]:
    """A record's ``qc`` before any judge: its status and the structural checks."""
    return {
        "status": status,
        "preliminary": preliminary,
        "judges": [],
        "self_check": None,
        "rejected": [],
        "validity": None,  # the validity policy's word (verified counterparts)
        "human": None,  # set by `abstain-build review --finalize`
    }


def record_context(sample: Sample, context: str) -> str:
    """What a model is meant to see: "images" for image samples, else the run's context."""
    return "images" if sample.document is None else context


def evidence_block(
    emap: EvidenceMap | None, gate: GateResult | ImageGateResult | None = None
) -> dict[str, Any] | None:
    """The record's ``evidence``: where the answer is stated (the map, over every page of
    the document) and, for a counterpart, what the re-read gate found (image items: the
    gate only, with no map)."""
    if emap is None and gate is None:
        return None
    return {
        "map": None if emap is None else emap.to_json(),
        "reread": None if gate is None else gate.to_json(),
    }


def control_record(
    sample: Sample,
    assets: ControlAssets,
    context: str = DEFAULT_CONTEXT,
    emap: EvidenceMap | None = None,
    blind: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return _record(
        sample,
        "original",
        sample.question,
        assets.images,
        assets.document,
        None,
        None,
        _qc("control"),
        record_context(sample, context),
        evidence_block(emap),
        blind=blind,
        sanitised=assets.sanitised,
    )


def perturbed_record(
    sample: Sample,
    question: str,
    images: list[str],
    document: str | None,
    transform: dict[str, Any],
    routing: dict[str, Any],
    preliminary: dict[str, Any],
    verification: dict[str, Any] | None = None,
    context: str = DEFAULT_CONTEXT,
    evidence: dict[str, Any] | None = None,
    new_answer: str | None = None,
    blind: dict[str, Any] | None = None,
    sanitised: list[str] | None = None,
) -> dict[str, Any]:
    """``verification``: the QC result (status, judges, self-check, earlier rejections);
    None when QC is off, and the item passed the structural checks only. ``new_answer``:
    the item is answer-changed, answerable with this gold (the judges, who test
    unanswerability, do not see it; its status says what it is)."""
    qc = _qc(ANSWER_CHANGED if new_answer is not None else "unverified", preliminary)
    if verification is not None:
        qc.update(verification)
        if qc["self_check"] is not None:
            qc["self_check"] = json_text(qc["self_check"])
    return _record(
        sample,
        transform["name"],
        question,
        images,
        document,
        transform,
        routing,
        qc,
        record_context(sample, context),
        evidence,
        new_answer,
        blind,
        sanitised,
    )


def evidence_set_record(
    sample: Sample,
    name: str,
    answerable: bool,
    images: list[str],
    document: str | None,
    evidence_set: dict[str, Any],
    checks: list[dict[str, Any]],
    blind: dict[str, Any] | None,
    context: str,
    question: str | None = None,
    options: list[str] | None = None,
) -> dict[str, Any]:
    """The question with the evidence of one evidence set (``--evidence-sets``):
    answerable with the gold when the set holds its evidence (or, with none, when the
    blind check says knowledge answers it), unanswerable otherwise. No judge reads these
    items; what made them is in ``qc.preliminary`` (the distractors' check). ``question``
    and ``options``: as the set asks them (image placeholders renumbered)."""
    preliminary = {"passed": all(c["passed"] for c in checks), "checks": checks}
    qc = _qc("control" if answerable else "unverified", preliminary)
    return _record(
        sample,
        f"set-{name.replace('+', '-')}",
        sample.question if question is None else question,
        images,
        document,
        None,
        None,
        qc,
        context,
        None,
        blind=blind,
        evidence_set=evidence_set,
        answerable=answerable,
        options=options,
    )
