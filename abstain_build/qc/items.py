"""A perturbed item as judges receive it, built from a transform's output."""

from __future__ import annotations

from ..media.inputs import SampleInputs
from ..model import Sample
from .judges.base import JudgeItem, Reference


def judge_item(
    sample: Sample,
    inputs: SampleInputs,
    *,
    item_id: str,
    question: str,
    images: list[bytes] | None,
    pdf: bytes | None,
    transform: dict,
) -> JudgeItem:
    """The perturbed item (``images``/``pdf`` None: unchanged, as for question rewrites)
    and, for reference judges, the original."""
    originals = inputs.evidence_renders() if sample.document is not None else inputs.image_bytes()
    document = inputs.document_bytes() if sample.document is not None else None
    reference = Reference(
        question=sample.question,
        answer=sample.answer,
        answer_format=sample.answer_format,
        images=tuple(originals),
        document=document,
    )
    return JudgeItem(
        id=item_id,
        axis=sample.axis,
        question=question,
        options=sample.options,
        images=tuple(images if images is not None else originals),
        document=pdf if pdf is not None else document,
        pages=tuple(sample.evidence_pages) if sample.document is not None else (),
        transform=transform,
        reference=reference,
    )
