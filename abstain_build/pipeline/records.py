"""The rows of data.jsonl: the answerable control and its unanswerable counterparts."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..model import Sample


@dataclass
class ControlAssets:
    """Where the original's files were written (perturbed items reuse what they leave unchanged)."""

    images: list[str]
    document: str | None


def json_text(value: Any) -> str:
    """Dicts whose keys vary from row to row are stored as JSON text, so that every row of
    data.jsonl has one Arrow schema (``datasets`` reads large files in blocks and cannot
    reconcile structs with different fields across them)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _base(sample: Sample) -> dict[str, Any]:
    return {
        "group_id": sample.id,
        "axis": sample.axis,
        "options": list(sample.options),
        "original_answer": sample.answer,
        "answer_format": sample.answer_format,
        "evidence_pages": list(sample.evidence_pages),
    }


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


def control_record(sample: Sample, assets: ControlAssets) -> dict[str, Any]:
    base = _base(sample)
    return {
        "id": f"{sample.id}/original",
        "group_id": base["group_id"],
        "answerable": True,
        "axis": base["axis"],
        "question": sample.question,
        "options": base["options"],
        "answer": sample.answer,
        "original_answer": base["original_answer"],
        "answer_format": base["answer_format"],
        "images": assets.images,
        "document": assets.document,
        "evidence_pages": base["evidence_pages"],
        "transform": None,
        "routing": None,
        "qc": {"status": "control", "preliminary": None, "judges": []},
        "source": _source(sample),
        "metadata": json_text(sample.metadata),
    }


def perturbed_record(
    sample: Sample,
    question: str,
    images: list[str],
    document: str | None,
    transform: dict[str, Any],
    routing: dict[str, Any],
    preliminary: dict[str, Any],
) -> dict[str, Any]:
    base = _base(sample)
    return {
        "id": f"{sample.id}/{transform['name']}",
        "group_id": base["group_id"],
        "answerable": False,
        "axis": base["axis"],
        "question": question,
        "options": base["options"],
        "answer": None,
        "original_answer": base["original_answer"],
        "answer_format": base["answer_format"],
        "images": images,
        "document": document,
        "evidence_pages": base["evidence_pages"],
        "transform": dict(transform, params=json_text(transform["params"])),
        "routing": routing,
        # Dual-judge QC is not configured: the item passed the structural checks only.
        "qc": {"status": "unverified", "preliminary": preliminary, "judges": []},
        "source": _source(sample),
        "metadata": json_text(sample.metadata),
    }
