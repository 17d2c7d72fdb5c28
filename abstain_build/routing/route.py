"""Routing: score every transform on a sample, then choose with the dataset in view.

Two steps, so the choice does not depend on workers or timing:

1. :func:`score_sample` (in a worker, per sample): the sample's :class:`Features`, every
   candidate transform's :class:`RouteScore`, and the eligible ones, best first.
2. :class:`Balancer` (in the parent, in source order): routing quality first, balance
   second. Only the eligible transforms of the preferred family compete (any eligible
   family when none of it is), and of those only the ones scoring within
   :data:`BALANCE_MARGIN` of the best; among them the least-used family so far wins
   (ties: the higher score), and inside the family the least-used transform (ties: the
   higher score). The next eligible transforms (preferred first, by score) follow as
   fallbacks, at most :data:`MAX_ALTERNATIVES` of them, the last one a terminal fallback
   for documents; the sample is given up when all of them fail.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..blind.verdict import NO_EVIDENCE_EDIT
from .features import Features
from .scoring import RouteScore, eligible, first_choices, score_transform

if TYPE_CHECKING:
    from ..model import Sample
    from ..transforms.base import Transform

MAX_ALTERNATIVES = 3
#: Only transforms scoring this close to the sample's best take turns for balance. Measured
#: on the shared MMMU and MMLongBench-Doc routes (``bench/routing_margin.py``).
BALANCE_MARGIN = 0.05
#: How a decision's reason starts when scoring the sample failed (an error, not a choice).
NOT_ROUTED = "not routed: "


@dataclass
class SampleScores:
    """Step 1's result for one sample (picklable: it travels from a worker to the parent)."""

    sample_id: str
    axis: str
    features: Features | None = None
    scores: list[RouteScore] = field(default_factory=list)
    eligible: list[RouteScore] = field(default_factory=list)
    threshold: float = 0.4
    relaxed: bool = False
    #: Why the sample could not be scored (its files are unusable): step 2 skips it.
    problem: str | None = None
    #: Model calls made to classify the sample (LLM mode), for the manifest.
    model_usage: list[dict[str, Any]] = field(default_factory=list)
    #: The question's kind (the validity table's cell: evidence type or image dependency,
    #: from the offline classifiers).
    kind: str | None = None
    #: Wall seconds the worker spent scoring the sample (the manifest's routing time).
    seconds: float = 0.0


def score_sample(
    sample: Sample, transforms: Sequence[Transform], features: Features
) -> SampleScores:
    """Every candidate's score and the eligible ones; rules relaxed only if none is."""
    from ..questions.kinds import question_kind

    result = SampleScores(sample.id, sample.axis, features)
    result.kind = question_kind(
        sample.question, sample.options, len(sample.images), document=sample.document is not None
    )
    candidates = [t for t in transforms if not t.terminal_fallback and t.check(sample) is None]
    result.scores = [score_transform(t, features) for t in candidates]
    result.eligible, result.threshold = eligible(result.scores)
    if not result.eligible:
        relaxed = [score_transform(t, features, relax=True) for t in candidates]
        if any(s.relaxed for s in relaxed):
            chosen, threshold = eligible(relaxed)
            if chosen:
                result.scores, result.eligible, result.threshold = relaxed, chosen, threshold
                result.relaxed = True
    return result


@dataclass
class RouteDecision:
    """What a sample gets: the transforms to try in order, and why the first was chosen."""

    sample_id: str
    chain: list[str]
    family: str | None
    score: float | None
    reason: str
    features: dict[str, Any] = field(default_factory=dict)
    scores: list[dict[str, Any]] = field(default_factory=list)
    eligible: list[str] = field(default_factory=list)
    relaxed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "sample_id": self.sample_id,
            "chain": self.chain,
            "family": self.family,
            "score": self.score,
            "reason": self.reason,
            "features": self.features,
            "scores": self.scores,
            "eligible": self.eligible,
            "relaxed": self.relaxed,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RouteDecision:
        return cls(**data)

    def record(self, attempts: list[dict[str, str]] | None = None) -> dict[str, Any]:
        """The ``routing`` block of an emitted record."""
        features = self.features
        return {
            "mode": "auto",
            "candidates": self.chain,
            "score": self.score,
            "reason": self.reason,
            "dependency": features.get("dependency"),
            "evidence_type": features.get("evidence_type"),
            "classifier": features.get("classifier_mode"),
            "eligible": self.eligible,
            "relaxed": self.relaxed,
            "scores": json.dumps({s["transform"]: s["score"] for s in self.scores}, sort_keys=True),
            "attempts": attempts or [],
        }


#: Whether a transform's measured validity clears the run's bar for a question kind.
ClearsBar = Callable[[str, "str | None"], bool]


class Balancer:
    """The sequential pass: keeps the family mix near uniform, in source order.

    With a validity bar (``clears``), the eligible transforms of the preferred family that
    clear it compete first, and the fallbacks that clear it come before the others: an item
    is held back by the policy only when no transform that clears it applies.
    """

    def __init__(
        self,
        terminal: Sequence[str] = (),
        margin: float = BALANCE_MARGIN,
        clears: ClearsBar | None = None,
    ) -> None:
        self.terminal = list(terminal)
        self.margin = margin
        self.clears = clears
        self.family_use: Counter[str] = Counter()
        self.transform_use: Counter[str] = Counter()

    def replay(self, decision: RouteDecision) -> None:
        """Count a decision made earlier (a resumed run continues the same sequence)."""
        if decision.chain and decision.family:
            self.family_use[decision.family] += 1
            self.transform_use[decision.chain[0]] += 1

    def choose(self, scored: SampleScores) -> RouteDecision:
        features = scored.features.to_json() if scored.features else {}
        scores = [s.to_json() for s in sorted(scored.scores, key=lambda s: -s.score)]
        decision = RouteDecision(
            scored.sample_id,
            chain=[],
            family=None,
            score=None,
            reason="",
            features=features,
            scores=scores,
            eligible=[s.transform for s in scored.eligible],
            relaxed=scored.relaxed,
        )
        if scored.problem is not None:
            decision.reason = f"{NOT_ROUTED}{scored.problem}"
            return decision
        # A question answerable without its evidence gets no evidence edit, fallbacks included.
        gated = bool(scored.features and scored.features.blind in NO_EVIDENCE_EDIT)
        terminal = self.terminal if scored.axis == "evidence_sufficiency" and not gated else []
        if not scored.eligible:
            best = max(scored.scores, key=lambda s: s.score, default=None)
            why = f"best was {best.transform} at {best.score:.3f}" if best else "no candidate fits"
            decision.chain = list(terminal[:1])
            decision.reason = f"no transform scored above {scored.threshold} ({why})" + (
                f"; terminal fallback {terminal[0]}" if terminal else ""
            )
            if gated:
                decision.reason += (
                    "; answerable without its evidence (blind check): no evidence edit, and no"
                    " question rewrite fits"
                )
            if terminal:
                decision.family = "evidence_removal"
                self.replay(decision)
            return decision
        pick = self._pick(scored.eligible, scored.kind)
        rest = [s.transform for s in scored.eligible if s is not pick]
        if self.clears is not None:
            rest.sort(key=lambda name: not self.clears(name, scored.kind))  # stable
        chain = [pick.transform, *rest[:MAX_ALTERNATIVES]]
        if terminal and not set(terminal) & set(chain):
            chain = [*chain[:MAX_ALTERNATIVES], terminal[0]]
        decision.chain = chain
        decision.family = pick.family
        decision.score = round(pick.score, 4)
        decision.reason = self._reason(pick, scored)
        self.replay(decision)
        return decision

    def _pick(self, eligible_scores: list[RouteScore], kind: str | None = None) -> RouteScore:
        tier = first_choices(eligible_scores)
        if self.clears is not None:
            measured = [s for s in tier if self.clears(s.transform, kind)]
            tier = measured or tier
        best = max(s.score for s in tier)
        near = [s for s in tier if s.score >= best - self.margin - 1e-9]
        best_in: dict[str, float] = {}
        for s in near:
            best_in[s.family] = max(best_in.get(s.family, 0.0), s.score)
        family = min(best_in, key=lambda f: (self.family_use[f], -best_in[f], f))
        mine = [s for s in near if s.family == family]
        return min(mine, key=lambda s: (self.transform_use[s.transform], -s.score, s.transform))

    def _reason(self, pick: RouteScore, scored: SampleScores) -> str:
        features = scored.features
        classes = [
            c
            for c in (
                features and features.dependency and f"dependency {features.dependency}",
                features and features.evidence_type and f"evidence {features.evidence_type}",
            )
            if c
        ]
        top = scored.eligible[0]
        why = (
            "the best score"
            if pick is top
            else f"family {pick.family} used least so far ({self.family_use[pick.family]}"
            f" times before; best score was {top.transform} {top.score:.3f})"
        )
        if not pick.preferred:
            why += "; no transform of the family its evidence type prefers is eligible"
        relaxed = " (rewrite rule relaxed: nothing else was eligible)" if scored.relaxed else ""
        return (
            f"{pick.transform} ({pick.score:.3f}) among {len(scored.eligible)} eligible above"
            f" {scored.threshold}: {why}" + (f"; {', '.join(classes)}" if classes else "") + relaxed
        )
