"""What the blind check decided for one sample, as recorded under ``blind``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: The question is answerable without its images or document.
KNOWLEDGE = "knowledge"
#: The question needs what its images or document show.
EVIDENCE_NEEDED = "evidence"
#: Blind readers settle, from the counterparts themselves, on another answer than the gold
#: (:func:`..validity.recall.contested`): no edit of its evidence makes it unanswerable.
CONTESTED = "contested"
#: The verdicts that take evidence edits away from a sample.
NO_EVIDENCE_EDIT = (KNOWLEDGE, CONTESTED)

#: The method of a verdict taken from blind readings (the validity ledger's recalled and
#: contested questions).
READINGS = "readings"

#: What a knowledge (or contested) verdict does to a sample:
#: ``rewrite``: only question rewrites may build its counterpart (default);
#: ``skip``: the sample is not used as a source;
#: ``record``: the verdict is recorded and changes nothing.
POLICIES = ("rewrite", "skip", "record")


@dataclass(frozen=True)
class BlindVerdict:
    """One sample's verdict: how it was reached and what supports it."""

    #: "heuristic", "readings" or "model:<spec label>".
    method: str
    verdict: str
    #: Why: the heuristic's cues that fired, or the model's graded answers.
    evidence: list[str] = field(default_factory=list)
    #: Model path: share of the blind answers that were correct, and that agreed with the
    #: most common one. None on the heuristic path.
    accuracy: float | None = None
    agreement: float | None = None

    @property
    def knowledge(self) -> bool:
        return self.verdict == KNOWLEDGE

    @property
    def rules_out_evidence_edits(self) -> bool:
        """No edit of the images or the document can make the question unanswerable."""
        return self.verdict in NO_EVIDENCE_EDIT

    def reason(self) -> str:
        """One line for routing reasons and not-applicable counts."""
        why = "; ".join(self.evidence[:3]) or self.method
        if self.verdict == CONTESTED:
            return f"readers answer it from its counterparts, not with the gold ({why})"
        return f"answerable without its evidence (blind check, {self.method}: {why})"

    def grounds(self) -> list[str]:
        """What made a knowledge (or contested) verdict, one line each, for counts over a
        build: the cues that fired, the readings, or the model that answered without the
        evidence."""
        if self.accuracy is not None:
            return [f"{self.method} answered right without the evidence"]
        return list(self.evidence) or [self.method]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BlindVerdict:
        return cls(**data)
