"""Semantic contradiction: a note in the question says what the document contradicts."""

from __future__ import annotations

from ...model import EVIDENCE
from ...qc.leak import answer_items
from ...rewrites.caption import caption_candidates, genre_of, points_into_the_document
from ...rewrites.offline import Candidate
from ...routing.scoring import NEEDS_ANSWER
from ..base import TransformContext
from ..functional.asks import counted_by_the_reader
from ..registry import register_transform
from ..rewrite_base import RewriteTransform


@register_transform
class ContradictoryCaption(RewriteTransform):
    name = "contradictory_caption"
    version = 9
    family = "semantic_contradiction"
    constraints = (NEEDS_ANSWER,)
    axis = EVIDENCE
    target = "question"
    description = (
        "Append to the question a short note, of the gold's type, that says with the"
        " document's own authority (a later revision or an erratum of this document)"
        " that the asked quantity has another value: the gold number moved 20-50% in its own"
        " format, a year moved 1-5 years, a date 1-14 months, another line of the gold's list"
        " or column, or a one-item text answer ruled out. Not applicable to answers of"
        " another shape, nor to a document question asking what the document or one of its"
        " figures, tables or pages shows ('according to the chart on page 14', 'according"
        " to the document'), nor to a 'how many' question whose"
        " count no page prints (the reader counts for themselves)."
    )
    intensity_doc = "100 * share of the question's characters that changed."

    def candidates(self, ctx: TransformContext) -> list[Candidate]:
        sample = ctx.sample
        if sample.document is not None and (
            points_into_the_document(sample.question) or _counted_by_the_reader(ctx)
        ):
            return []  # see no_candidate_reason
        return caption_candidates(
            sample.question,
            sample.answer,
            sample.answer_format,
            _evidence_texts(ctx),
            ctx.rng,
            genre_of(sample.metadata.get("doc_type")),
        )

    def model_inputs(self, ctx: TransformContext) -> tuple[list[bytes], str]:
        """The evidence pages as images, and their text layer (if any), for the model."""
        if ctx.sample.document is None:
            return super().model_inputs(ctx)
        return ctx.inputs.evidence_renders(), "\n\n".join(_evidence_texts(ctx))

    def no_candidate_reason(self, ctx: TransformContext) -> str:
        answer = ctx.sample.answer.strip()
        if not answer:
            return "the gold answer is empty, so there is nothing to contradict"
        pointed = points_into_the_document(ctx.sample.question)
        if ctx.sample.document is not None and pointed:
            return (
                f"the question points the reader into the document ({pointed!r}):"
                " what the reader sees there outweighs a companion's other value"
            )
        if ctx.sample.document is not None and _counted_by_the_reader(ctx):
            return (
                "the answer is a count the reader makes of what the document shows (it is"
                " printed nowhere): a companion's other count does not outweigh the reader's"
                " own"
            )
        items = answer_items(answer, ctx.sample.answer_format)
        if len(items) > 1:
            return (
                f"the answer lists {len(items)} values; one note giving one value cannot say"
                " which of them it contradicts, and the rest stay answerable"
            )
        return (
            f"no contradiction of the answer's type fits: the answer ({len(answer)} characters)"
            " is not one number, year or date, no other line of its list or column on the"
            " evidence pages names something of its kind, and it is not a one-item text short"
            " enough to rule out"
        )


def _counted_by_the_reader(ctx: TransformContext) -> bool:
    """A "how many" question whose answer no page prints: the reader counts (the tables,
    the steps, the people in a photo) and trusts that count over any note."""
    printed = ctx.evidence().prints_the_count()
    return counted_by_the_reader(ctx.sample.question, printed) is not None


def _evidence_texts(ctx: TransformContext) -> list[str]:
    """Text layer of each evidence page ('' for scans), in evidence order."""
    sample = ctx.sample
    if sample.document is None:
        return []
    pages = ctx.inputs.page_texts()
    return [pages[p - 1] for p in sample.evidence_pages if 0 < p <= len(pages)]
