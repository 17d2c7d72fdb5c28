"""``impossible_visual_task``, a question rewrite of the family semantic unanswerability:
the image stays, the question asks what it cannot answer."""

from __future__ import annotations

from ..registry import register_transform
from ..rewrite_base import OfflineRewrite


@register_transform
class ImpossibleVisualTask(OfflineRewrite):
    name = "impossible_visual_task"
    version = 1
    family = "semantic_unanswerability"
    description = (
        "Keep the ask but restrict it to what no image supports: 'Using only one pixel of"
        " <image 1>, which city is shown?'. Only for questions that look at their image."
    )
    intensity_doc = "100 * share of the question's characters that changed."
