"""A perturbed item as judges receive it, built from a transform's output."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..media.inputs import SampleInputs
from ..model import Sample
from .judges.base import JudgeItem, Reference

if TYPE_CHECKING:
    from ..pipeline.apply import TransformOutput


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


def output_item(
    sample: Sample, inputs: SampleInputs, transform: str, output: TransformOutput
) -> JudgeItem:
    """The item one transform's output makes of ``sample``, as a build's QC judges it."""
    return judge_item(
        sample,
        inputs,
        item_id=f"{sample.id}/{transform}",
        question=output.question,
        images=output.images,
        pdf=output.pdf,
        transform=output.record.to_json(),
    )
