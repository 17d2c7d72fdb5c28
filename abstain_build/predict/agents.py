"""The multi-agent system: a Reasoner answers, a Verifier approves, abstains or (in the
iterative mode's earlier rounds) sends the answer back with feedback.

The orchestration is plain code, not a model: it passes messages and ends the loop. In
``mas-sequential`` there is one round; in ``mas-iterative`` up to ``ROUNDS``, and the last
round's Verifier may only approve or abstain, so the loop always ends. A Reasoner that
abstains ends the loop too: there is no answer to check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..models import ModelRequest, object_schema
from .fields import reply_fields
from .prompts import ABSTAIN, MAX_TOKENS, TEMPERATURE, Item, Reply, candidate_lines

SYSTEMS = ("standalone", "mas-sequential", "mas-iterative")
#: Reasoner-Verifier rounds of the iterative mode.
ROUNDS = 3
APPROVE, ABSTAIN_DECISION, REVISE = "APPROVE", "ABSTAIN", "REQUEST_REVISION"
VERIFIER_PURPOSE = "predict/verifier/v1"

VERIFIER_TASK = (
    "You review another model's answer to a question about the attached image(s) or"
    " document page(s). You see the question, what is shown, and the proposed answer with"
    " its reasoning. Check the answer against what is shown, not against what seems"
    " plausible. Decide:"
)
DECISION_TEXT = {
    APPROVE: f"{APPROVE} when what is shown supports the proposed answer",
    ABSTAIN_DECISION: f"{ABSTAIN_DECISION} when what is shown is not enough to answer at all:"
    " something the answer needs is missing, unreadable, ambiguous or contradicted (say"
    " which in the feedback)",
    REVISE: f"{REVISE} when what is shown does settle the question but the proposed answer is"
    " wrong or incomplete (say in the feedback what is wrong, what to reason about and where"
    " in the image(s) or pages to look)",
}


def verifier_request(
    item: Item,
    candidate: Reply,
    *,
    final_round: bool,
    round: int = 1,
    temperature: float = TEMPERATURE,
) -> ModelRequest:
    """The Verifier's request; ``final_round`` leaves out the revision decision. Each
    ``round`` is its own request (and cache entry), even for an unchanged candidate."""
    decisions = [APPROVE, ABSTAIN_DECISION] + ([] if final_round else [REVISE])
    system = " ".join(
        [
            VERIFIER_TASK,
            "; ".join(DECISION_TEXT[d] for d in decisions) + ".",
            'Reply with one JSON object: {"decision": "'
            + '" or "'.join(decisions)
            + '", "feedback": "..."}.',
        ]
    )
    lines = [*item.lines(), *candidate_lines(candidate)]
    schema = object_schema(
        "review",
        {"decision": {"type": "string", "enum": decisions}, "feedback": {"type": "string"}},
    )
    return ModelRequest(
        text="\n".join(lines),
        purpose=f"{VERIFIER_PURPOSE}/{'final' if final_round else 'open'}/round-{round}",
        system=system,
        images=item.images,
        max_tokens=MAX_TOKENS,
        temperature=temperature,
        schema=schema,
    )


@dataclass(frozen=True)
class Review:
    decision: str
    feedback: str


#: The plain labels of a review (``DECISION: ABSTAIN``), when a server ignores the format.
#: A ``FINAL_ANSWER`` line ends the feedback; the abstention is the system's own.
REVIEW_LABELS = {
    "decision": "decision",
    "feedback": "feedback",
    "explanation": "explanation",
    "final answer": "final_answer",
}


def review_parser(final_round: bool):
    allowed = {APPROVE, ABSTAIN_DECISION} | (set() if final_round else {REVISE})

    def parse(text: str) -> Review:
        data = reply_fields(
            text,
            '{"decision": ..., "feedback": ...}',
            REVIEW_LABELS,
            prose=("feedback", "explanation"),
        )
        if not isinstance(data, dict):
            raise ValueError('expected a JSON object with "decision" and "feedback"')
        decision = str(data.get("decision") or "").strip("[]. ").upper().replace(" ", "_")
        if decision not in allowed:
            raise ValueError(f'"decision" must be one of {", ".join(sorted(allowed))}')
        # In plain lines the reasons may come as an EXPLANATION only.
        feedback = data.get("feedback") or data.get("explanation") or ""
        if not isinstance(feedback, str):
            raise ValueError('"feedback" must be a string')
        return Review(decision, " ".join(feedback.split()))

    return parse


def abstention_reply(review: Review) -> Reply:
    """The final reply when the Verifier overrides: its reason, then the abstention."""
    return Reply(f"The reviewer found: {review.feedback}".strip(), ABSTAIN, None)


@dataclass
class Rounds:
    """What a multi-agent run of one item did, for the predictions line and the sidecar."""

    decisions: list[str]
    feedback: list[str]
    reasoner_answered: bool = False
    overridden: bool = False

    def to_line(self) -> dict[str, Any]:
        return {
            "rounds": len(self.decisions),
            "decisions": list(self.decisions),
            "reasoner_answered": self.reasoner_answered,
            "overridden": self.overridden,
        }
