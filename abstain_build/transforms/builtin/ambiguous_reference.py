"""``ambiguous_reference``, a question rewrite of the family adversarial ambiguity:
the question now admits several answers, or none consistently."""

from __future__ import annotations

from ..registry import register_transform
from ..rewrite_base import OfflineRewrite


@register_transform
class AmbiguousReference(OfflineRewrite):
    name = "ambiguous_reference"
    version = 1
    family = "adversarial_ambiguity"
    description = (
        "Point the ask at a marking the image does not have: the region circled in red, the"
        " part highlighted in yellow, the area the green arrow marks (a colour no image"
        " shows). Only for questions that look at their image."
    )
    intensity_doc = "100 * share of the question's characters that changed."
