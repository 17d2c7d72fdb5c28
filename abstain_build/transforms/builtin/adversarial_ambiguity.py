"""Adversarial ambiguity: the question now admits several answers, or none consistently."""

from __future__ import annotations

from ...routing.features import Features
from ..registry import register_transform
from .semantic_unanswerability import _OfflineRewrite


@register_transform
class MultipleCorrectAnswers(_OfflineRewrite):
    name = "multiple_correct_answers"
    family = "adversarial_ambiguity"
    description = (
        "Loosen the question so two or more options become defensible: 'which two of the"
        " following', 'an acceptable' for 'the best', 'one possible' for 'the', or a short"
        " second convention ('Either sign convention applies.')."
    )
    intensity_doc = "100 * share of the question's characters that changed."


@register_transform
class AmbiguousReference(_OfflineRewrite):
    name = "ambiguous_reference"
    family = "adversarial_ambiguity"
    description = (
        "Point at a fabricated element of the same kind as the question's subject ('the"
        " other valve', 'the second cell from the left', 'the shaded region'), so which one"
        " is meant cannot be told."
    )
    intensity_doc = "100 * share of the question's characters that changed."


@register_transform
class ContradictoryPremise(_OfflineRewrite):
    name = "contradictory_premise"
    family = "adversarial_ambiguity"
    description = (
        "Add a premise inconsistent with the question's own conditions: a stated quantity"
        " given a second, different value ('300 K (also stated as 410 K)'), or the subject"
        " declared absent ('Assume the valve has been removed.')."
    )
    intensity_doc = "100 * share of the question's characters that changed."

    def affinity(self, features: Features) -> float:
        """Routing: stated quantities give the premise something to contradict."""
        return min(1.0, super().affinity(features) + (0.1 if features.quantitative else 0.0))
