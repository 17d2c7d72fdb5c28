"""``contradictory_premise``, a question rewrite of the family adversarial ambiguity:
the question now admits several answers, or none consistently."""

from __future__ import annotations

from ...routing.features import Features
from ..registry import register_transform
from ..rewrite_base import OfflineRewrite


@register_transform
class ContradictoryPremise(OfflineRewrite):
    name = "contradictory_premise"
    version = 1
    family = "adversarial_ambiguity"
    description = (
        "State a condition of a computation a second time, differently ('Another source"
        " gives 9 ft instead of 7 ft.'): a measured quantity of the ask, or the question's"
        " only one."
    )
    intensity_doc = "100 * share of the question's characters that changed."

    def affinity(self, features: Features) -> float:
        """Routing: stated quantities give the premise something to contradict."""
        return min(1.0, super().affinity(features) + (0.1 if features.quantitative else 0.0))
