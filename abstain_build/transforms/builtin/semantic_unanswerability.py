"""Semantic unanswerability: the image stays, the question asks what it cannot answer."""

from __future__ import annotations

from ...model import MODALITY
from ...rewrites.offline import GENERATORS, Candidate
from ..base import TransformContext
from ..registry import register_transform
from ..rewrite_base import RewriteTransform, question_parts


class _OfflineRewrite(RewriteTransform):
    axis = MODALITY
    target = "question"

    def candidates(self, ctx: TransformContext) -> list[Candidate]:
        return GENERATORS[self.name](question_parts(ctx), ctx.rng)


@register_transform
class ImageQuestionMismatch(_OfflineRewrite):
    name = "image_question_mismatch"
    family = "semantic_unanswerability"
    description = (
        "Ask about a different phenomenon the image cannot address (its maker's views, a"
        " sound, a price, what happened afterwards), naming the question's own subject and"
        " keeping its image placeholders."
    )
    intensity_doc = "100 * share of the question's characters that changed."


@register_transform
class MissingContext(_OfflineRewrite):
    name = "missing_context"
    family = "semantic_unanswerability"
    description = (
        "Ask for a comparison or outside information the image lacks (the previous year, a"
        " national average, a control group, a baseline) about the question's subject."
    )
    intensity_doc = "100 * share of the question's characters that changed."


@register_transform
class ImpossibleVisualTask(_OfflineRewrite):
    name = "impossible_visual_task"
    family = "semantic_unanswerability"
    description = (
        "Ask for what no image can show: an exact mass or temperature, a width in pixels,"
        " a chemical composition, what is hidden behind or inside the question's subject."
    )
    intensity_doc = "100 * share of the question's characters that changed."


@register_transform
class NonexistentReference(_OfflineRewrite):
    name = "nonexistent_reference"
    family = "semantic_unanswerability"
    description = (
        "Replace the question's subject with a specific element that is not in the image (a"
        " curve labelled 'Q7', panel (d), the inset marked 'K3'); on long questions the"
        " asking sentence alone is kept, with every image placeholder."
    )
    intensity_doc = "100 * share of the question's characters that changed."
