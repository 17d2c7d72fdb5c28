"""Adversarial ambiguity: the question now admits several answers, or none consistently."""

from __future__ import annotations

from ...routing.features import Features
from ..registry import register_transform
from .semantic_unanswerability import _OfflineRewrite


@register_transform
class MultipleCorrectAnswers(_OfflineRewrite):
    name = "multiple_correct_answers"
    version = 1
    family = "adversarial_ambiguity"
    description = (
        "Name two conventions or constraints under which two options become defensible."
        " Needs --llm: offline it is not applicable."
    )
    intensity_doc = "100 * share of the question's characters that changed."


@register_transform
class AmbiguousReference(_OfflineRewrite):
    name = "ambiguous_reference"
    version = 1
    family = "adversarial_ambiguity"
    description = (
        "Point the ask at a marking the image does not have: the region circled in red, the"
        " part highlighted in yellow, the area the green arrow marks (a colour no image"
        " shows). Only for questions that look at their image."
    )
    intensity_doc = "100 * share of the question's characters that changed."


@register_transform
class ContradictoryPremise(_OfflineRewrite):
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
