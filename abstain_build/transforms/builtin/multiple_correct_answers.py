"""``multiple_correct_answers``, a question rewrite of the family adversarial ambiguity:
the question now admits several answers, or none consistently."""

from __future__ import annotations

from ..registry import register_transform
from ..rewrite_base import OfflineRewrite


@register_transform
class MultipleCorrectAnswers(OfflineRewrite):
    name = "multiple_correct_answers"
    version = 1
    family = "adversarial_ambiguity"
    description = (
        "Name two conventions or constraints under which two options become defensible."
        " Needs --llm: offline it is not applicable."
    )
    intensity_doc = "100 * share of the question's characters that changed."
