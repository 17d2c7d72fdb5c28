"""``image_question_mismatch``, a question rewrite of the family semantic unanswerability:
the image stays, the question asks what it cannot answer."""

from __future__ import annotations

from ..registry import register_transform
from ..rewrite_base import OfflineRewrite


@register_transform
class ImageQuestionMismatch(OfflineRewrite):
    name = "image_question_mismatch"
    version = 1
    family = "semantic_unanswerability"
    description = (
        "Ask about a different phenomenon the image cannot address, with options that still"
        " fit. Needs --llm: offline it is not applicable."
    )
    intensity_doc = "100 * share of the question's characters that changed."
