"""How a transform scores a sample: an affinity, cut down by the constraints it breaks.

``score = affinity x 0.05 ** hard_violations x 0.70 ** soft_violations``: a hard
violation (a numeric corruption with no number on the evidence) all but rules the
transform out, a soft one (a figure blur with no figure found) makes it a weaker choice.
A transform is eligible above 0.4, or, when nothing is, above 0.25.

The method's preference comes first: on a document, a transform of the family the
question's evidence type prefers (Counting: corruption; Extractive: removal) is *preferred*,
and the others are eligible only when no preferred transform is (they still follow in the
chain as fallbacks). Balancing the family mix never overrides that.

One hard rule is *relaxed* when it leaves a sample with nothing eligible: a question
rewrite on an image sample that needs its image (Essential / Exclusive). Routing then
scores again without it and records that it did.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..blind.verdict import NO_EVIDENCE_EDIT
from ..model import EVIDENCE, MODALITY
from .features import Features

if TYPE_CHECKING:
    from ..transforms.base import Transform

HARD_FACTOR = 0.05
SOFT_FACTOR = 0.70
ELIGIBLE = 0.4
ELIGIBLE_IF_NONE = 0.25

IMAGE_NEEDED = ("Essential", "Exclusive")
TEXT_SUFFICES = ("Decorative", "Partial")

#: The family the method prefers for each evidence type (SPEC section 3).
PREFERRED_FAMILY = {
    "Extractive": "evidence_removal",
    "Comparative": "evidence_removal",
    "Aggregation": "evidence_corruption",
    "Counting": "evidence_corruption",
    "Temporal": "inferential_impossibility",
    "Descriptive": "semantic_contradiction",
    "Visual": "semantic_contradiction",
}


@dataclass(frozen=True)
class Constraint:
    """A condition a transform needs of a sample; ``holds`` says whether it is met."""

    name: str
    holds: Callable[[Features], bool]
    hard: bool = True
    #: Dropped when, with it, no transform of the sample would be eligible.
    relaxable: bool = False


@dataclass
class RouteScore:
    """One transform's score on one sample, with the constraints it broke."""

    transform: str
    family: str
    affinity: float
    score: float
    hard: list[str] = field(default_factory=list)
    soft: list[str] = field(default_factory=list)
    relaxed: list[str] = field(default_factory=list)
    #: Of the family the method prefers for the sample (always, where it prefers none).
    preferred: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "transform": self.transform,
            "family": self.family,
            "affinity": round(self.affinity, 3),
            "score": round(self.score, 4),
            "hard": self.hard,
            "soft": self.soft,
            "relaxed": self.relaxed,
            "preferred": self.preferred,
        }


def is_preferred(transform: Transform, features: Features) -> bool:
    """Whether ``transform``'s family is the one the method prefers for the sample: on the
    evidence axis, the evidence type's family; the modality axis prefers none (its rules
    are the hard constraints below)."""
    if transform.axis != EVIDENCE:
        return True
    preferred = PREFERRED_FAMILY.get(features.evidence_type or "")
    return preferred is None or transform.family == preferred


def family_affinity(transform: Transform, features: Features) -> float:
    """The default affinity: what the method prefers for the sample's classes."""
    if transform.axis == EVIDENCE:
        preferred = PREFERRED_FAMILY.get(features.evidence_type or "")
        return 0.8 if transform.family == preferred else 0.5
    if transform.target == "image":
        value = 0.5 + 0.4 * features.image_dependency - 0.2 * features.text_sufficiency
    else:
        value = 0.5 + 0.4 * features.text_sufficiency - 0.2 * features.image_dependency
    return min(1.0, max(0.05, value))


#: Evidence edits (images, documents) on a question the blind check finds answerable
#: without its evidence (or contested by readers): removing what it does not need cannot
#: make it unanswerable.
NEEDS_EVIDENCE = Constraint(
    "the question is answerable without its evidence, or readers answer it otherwise (blind"
    " check): an evidence edit cannot make it unanswerable",
    lambda f: f.blind not in NO_EVIDENCE_EDIT,
)


def axis_constraints(transform: Transform) -> tuple[Constraint, ...]:
    """The rules every transform of a kind obeys (evidence edits, image transforms,
    image-sample rewrites)."""
    edits_evidence = transform.target in ("image", "document")
    if transform.axis != MODALITY:
        return (NEEDS_EVIDENCE,) if edits_evidence else ()
    if transform.target == "image":
        return (
            NEEDS_EVIDENCE,
            Constraint(
                "image transforms need an image the question depends on (Essential/Exclusive)",
                lambda f: f.dependency in IMAGE_NEEDED,
            ),
        )
    if transform.target == "question":
        return (
            Constraint(
                "question rewrites are for questions the text mostly answers (Decorative/Partial)"
                " or answers without the image (blind check)",
                lambda f: f.dependency in TEXT_SUFFICES or f.blind in NO_EVIDENCE_EDIT,
                relaxable=True,
            ),
        )
    return ()


def score_transform(transform: Transform, features: Features, relax: bool = False) -> RouteScore:
    """``transform``'s score on a sample; ``relax`` drops the relaxable constraints."""
    affinity = float(transform.affinity(features))
    result = RouteScore(
        transform.name,
        transform.family,
        affinity,
        affinity,
        preferred=is_preferred(transform, features),
    )
    for constraint in (*axis_constraints(transform), *transform.constraints):
        if constraint.holds(features):
            continue
        if relax and constraint.relaxable:
            result.relaxed.append(constraint.name)
            continue
        if constraint.hard:
            result.hard.append(constraint.name)
            result.score *= HARD_FACTOR
        else:
            result.soft.append(constraint.name)
            result.score *= SOFT_FACTOR
    return result


def eligible(scores: list[RouteScore]) -> tuple[list[RouteScore], float]:
    """The scores above 0.4, else above 0.25, and the threshold used: preferred
    transforms first (best first), then the others (best first)."""
    for threshold in (ELIGIBLE, ELIGIBLE_IF_NONE):
        chosen = [s for s in scores if s.score > threshold]
        if chosen:
            order = sorted(chosen, key=lambda s: (not s.preferred, -s.score, s.transform))
            return order, threshold
    return [], ELIGIBLE_IF_NONE


def first_choices(eligible_scores: list[RouteScore]) -> list[RouteScore]:
    """The eligible transforms a sample may start with: the preferred ones when there are
    any (a non-preferred family only when nothing preferred is eligible)."""
    preferred = [s for s in eligible_scores if s.preferred]
    return preferred or list(eligible_scores)


# -- constraints the built-in transforms declare ----------------------------------------------

NEEDS_NUMBERS = Constraint(
    "needs numbers printed on the evidence pages", lambda f: f.numbers_on_evidence > 0
)
NEEDS_TABLE = Constraint("needs a table on the evidence pages", lambda f: f.has_table)
NEEDS_TIME = Constraint(
    "needs a year in the question (2019, FY2020, Q3 2015)",
    lambda f: f.time_reference and f.question_years,
)
NEEDS_PERIOD = Constraint(
    "needs years in the document's text (the period to move away from)",
    lambda f: f.document_period is not False,
)
NEEDS_ANSWER = Constraint(
    "needs a gold answer a note can contradict (a number, or 60 characters or less)",
    lambda f: f.answer_present and f.answer_contradictable,
)
FIGURE_FOUND = Constraint(
    "works best on a figure or chart (else the whole page is blurred)",
    lambda f: f.has_figure,
    hard=False,
)
VISUAL_CONTENT = Constraint(
    "works best where figures or tables hold the evidence",
    lambda f: f.has_figure or f.has_table,
    hard=False,
)
