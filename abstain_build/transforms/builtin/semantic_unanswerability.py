"""Semantic unanswerability: the image stays, the question asks what it cannot answer."""

from __future__ import annotations

from ...model import MODALITY
from ...rewrites.offline import GENERATORS, OFFLINE_UNAVAILABLE, Candidate
from ..base import TransformContext
from ..registry import register_transform
from ..rewrite_base import RewriteTransform, image_facts, question_parts


class _OfflineRewrite(RewriteTransform):
    axis = MODALITY
    target = "question"

    def candidates(self, ctx: TransformContext) -> list[Candidate]:
        if self.name in OFFLINE_UNAVAILABLE:
            return []  # no template to fill: no need to read the images
        return GENERATORS[self.name](question_parts(ctx), ctx.rng, image_facts(ctx))

    def no_candidate_reason(self, ctx: TransformContext) -> str:
        return OFFLINE_UNAVAILABLE.get(self.name) or (
            "no offline template fits this question: it names no image reference, given"
            " quantity or loosenable ask the templates can work with, or the image already"
            " shows what they would invent"
        )


@register_transform
class ImageQuestionMismatch(_OfflineRewrite):
    name = "image_question_mismatch"
    version = 1
    family = "semantic_unanswerability"
    description = (
        "Ask about a different phenomenon the image cannot address, with options that still"
        " fit. Needs --llm: offline it is not applicable."
    )
    intensity_doc = "100 * share of the question's characters that changed."


@register_transform
class MissingContext(_OfflineRewrite):
    name = "missing_context"
    version = 1
    family = "semantic_unanswerability"
    description = (
        "Ask about what the record does not ship: the earlier version of the image (last"
        " year's edition of a table or chart), or a computation without the sentences that"
        " state its givens (when no image prints them)."
    )
    intensity_doc = "100 * share of the question's characters that changed."


@register_transform
class ImpossibleVisualTask(_OfflineRewrite):
    name = "impossible_visual_task"
    version = 1
    family = "semantic_unanswerability"
    description = (
        "Keep the ask but restrict it to what no image supports: 'Using only one pixel of"
        " <image 1>, which city is shown?'. Only for questions that look at their image."
    )
    intensity_doc = "100 * share of the question's characters that changed."


@register_transform
class NonexistentReference(_OfflineRewrite):
    name = "nonexistent_reference"
    version = 1
    family = "semantic_unanswerability"
    description = (
        "Point the ask at an element the image does not have: panel (f), the part labelled"
        " K7, a table's row labelled K7 (a label no image prints, by OCR). Only for"
        " questions that look at their image."
    )
    intensity_doc = "100 * share of the question's characters that changed."
