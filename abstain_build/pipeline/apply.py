"""Running one transform on one sample: plan, apply, encode, and the structural checks."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..content.page_content import (
    PageContent,
    normalised_page,
    sample_page_content,
)
from ..evidence.context import DEFAULT_CONTEXT
from ..evidence.form_search import find_in_string
from ..evidence.forms import gold_items
from ..evidence.gate import GateResult, left_whole_leaks, reread_gate
from ..evidence.image_gate import ImageGateResult, image_reread_gate
from ..evidence.map import evidence_map
from ..evidence.seen import is_seen
from ..media.images import decode_image, encode_png
from ..media.inputs import SampleInputs
from ..media.pdf import open_pdf, render_pages, save_pdf
from ..media.pdf_channels import (
    drop_metadata_stating,
    drop_page_channels,
    drop_undrawn_images,
    listed_images,
)
from ..model import PerturbationRecord, Plan, Sample
from ..qc.structural import structural_checks
from ..seeding import derive_seed
from ..transforms.base import (
    DocumentTransform,
    ImageTransform,
    QuestionTransform,
    Transform,
    TransformContext,
)

if TYPE_CHECKING:
    from ..models import ModelClient


@dataclass
class TransformOutput:
    """The perturbed instance, encoded and ready to write."""

    question: str
    record: PerturbationRecord
    plan: Plan
    #: PNG bytes of the perturbed images (image target) or rendered evidence pages (document).
    images: list[bytes] | None = None
    #: Page number of each rendered image, for document samples.
    pages: list[int] = field(default_factory=list)
    pdf: bytes | None = None
    seconds: float = 0.0
    qc: dict[str, Any] = field(default_factory=dict)
    #: The re-read gate's result (see :func:`reread`), None until it runs.
    gate: GateResult | ImageGateResult | None = None


def run_transform(
    transform: Transform,
    sample: Sample,
    inputs: SampleInputs,
    run_seed: int,
    attempt: int = 0,
    llm: ModelClient | None = None,
    context: str = DEFAULT_CONTEXT,
    before_apply: Callable[[PerturbationRecord], None] | None = None,
) -> TransformOutput:
    """Plan and apply ``transform``; raises ``NotApplicable`` or any error of the transform.

    ``llm`` is the rewrite model (LLM mode); question transforms use their offline
    generators without one. ``context``: what a model sees of a document ("document":
    the whole PDF; "pages": the evidence pages' images), which decides the pages edited.
    ``before_apply`` sees a document transform's record once planned, before anything is
    applied, and may raise to stop there (:func:`left_whole_gate`).
    """
    started = time.perf_counter()
    seed = derive_seed(run_seed, sample.id, transform.name, attempt)
    ctx = TransformContext(
        sample=sample,
        inputs=inputs,
        rng=np.random.default_rng(seed),
        seed=seed,
        attempt=attempt,
        llm=llm,
        context=context,
    )
    plan = transform.plan(ctx)
    record = PerturbationRecord(
        name=transform.name,
        version=transform.version,
        family=transform.family,
        axis=transform.axis,
        target=transform.target,
        mode=plan.mode,
        seed=seed,
        attempt=attempt,
        params=plan.params,
        edits=plan.edits,
        intensity=plan.intensity,
        notes=plan.notes,
        rewrite=plan.rewrite,
        replay=plan.replay,
    )
    output = apply_plan(transform, sample, inputs, plan, record, before_apply)
    output.qc = structural_checks(
        transform, sample, inputs, output.question, output.images, output.pages, output.pdf
    )
    output.seconds = time.perf_counter() - started
    return output


def apply_plan(
    transform: Transform,
    sample: Sample,
    inputs: SampleInputs,
    plan: Plan,
    record: PerturbationRecord,
    before_apply: Callable[[PerturbationRecord], None] | None = None,
) -> TransformOutput:
    """Apply ``plan`` to the sample: the question, images and PDF the item ships. The same
    for a plan just made and for one read back from its record (:mod:`.replay`)."""
    output = TransformOutput(question=sample.question, record=record, plan=plan)
    limits = inputs.limits
    if isinstance(transform, ImageTransform):
        arrays = transform.apply(inputs.images(), plan)
        output.images = [encode_png(array) for array in arrays]
    elif isinstance(transform, DocumentTransform):
        if before_apply is not None:
            before_apply(record)
        document = inputs.writable_document()
        try:
            edited = plan.edits.pages()
            pictures = listed_images(document, edited)
            transform.apply(document, plan)
            record.notes = [
                *record.notes,
                *drop_page_channels(document, edited),
                *drop_undrawn_images(document, pictures),
                *drop_metadata_stating(document, _stating(sample)),
            ]
            output.pdf = save_pdf(document)
        finally:
            document.close()
        output.pages = list(sample.evidence_pages)
        # Render what was saved, so the PNGs and the PDF a model reads agree.
        with open_pdf(output.pdf, "perturbed document") as saved:
            output.images = render_pages(saved, output.pages, limits.dpi, limits.max_pixels)
    elif isinstance(transform, QuestionTransform):
        if plan.question is None:
            raise RuntimeError(f"{transform.name} planned no question")
        output.question = plan.question
    else:  # pragma: no cover - registration only admits the three kinds
        raise TypeError(f"{transform.name}: unknown transform kind")
    return output


class LeftWhole(Exception):
    """The plan leaves whole a page that states the answer: the gate's result, known
    before the edit is applied (:func:`left_whole_gate`)."""

    def __init__(self, gate: GateResult) -> None:
        super().__init__(gate.reason())
        self.gate = gate


def _stating(sample: Sample) -> Callable[[str], bool]:
    """Whether a text states ``sample``'s answer in one of its forms."""
    items = gold_items(sample.answer, sample.answer_format)
    return lambda text: bool(text and items and find_in_string(items, text))


def left_whole_gate(
    transform: Transform, sample: Sample, inputs: SampleInputs, context: str = DEFAULT_CONTEXT
) -> Callable[[PerturbationRecord], None]:
    """A ``before_apply`` for :func:`run_transform`: raises :class:`LeftWhole` when a page
    the plan leaves whole states the answer (:func:`..evidence.gate.left_whole_leaks`), so
    the attempt fails as the re-read gate would fail it, without the edit being applied,
    saved and rendered."""

    def check(record: PerturbationRecord) -> None:
        if sample.document is None:
            return
        found = left_whole_leaks(
            evidence_map(sample, inputs),
            record.to_json(),
            transform.evidence_policy,
            sample.question,
            sample.options,
            context,
            sample.evidence_pages,
        )
        if found is not None:
            raise LeftWhole(found)

    return check


def reread(
    transform: Transform,
    sample: Sample,
    inputs: SampleInputs,
    output: TransformOutput,
    context: str = DEFAULT_CONTEXT,
) -> GateResult | ImageGateResult | None:
    """The re-read gate: everything a document item ships read again
    (:mod:`abstain_build.evidence.gate`), or the images an image transform edited
    (:mod:`abstain_build.evidence.image_gate`); None for a rewrite of an image item.
    ``output.gate`` is set."""
    if sample.document is None:
        if not isinstance(transform, ImageTransform) or output.images is None:
            return None
        shipped = [
            decode_image(png, f"perturbed image {k + 1}", inputs.limits.max_pixels)
            for k, png in enumerate(output.images)
        ]
        output.gate = image_reread_gate(sample, inputs.images(), shipped, output.record.to_json())
        return output.gate
    emap = evidence_map(sample, inputs)
    pdf = output.pdf if output.pdf is not None else inputs.document_bytes()
    images = output.images if output.images is not None else inputs.evidence_renders()
    pages = output.pages or list(sample.evidence_pages)
    page_images = dict(zip(pages, images, strict=True)) if output.pdf is not None else {}
    output.gate = reread_gate(
        emap,
        pdf,
        page_images,
        output.record.to_json(),
        transform.evidence_policy,
        output.question,
        sample.options,
        context,
        inputs.limits.dpi,
        inputs.limits.max_pixels,
        listed_contents(sample, inputs) if is_seen(emap, sample.question) else None,
    )
    return output.gate


def listed_contents(sample: Sample, inputs: SampleInputs) -> dict[int, PageContent]:
    """The content analysis of each listed evidence page of the original (shared with the
    transforms, which make the same one)."""
    document = inputs.document()
    out: dict[int, PageContent] = {}
    for number in sorted(set(sample.evidence_pages)):
        if not 0 < number <= document.page_count:
            continue
        with normalised_page(document, number) as page:
            out[number] = sample_page_content(inputs, page, number)
    return out
