"""The blind check as a build runs it: one verdict per sample, and what it allows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import Sample
from .cues import blind_cues
from .model import ask_blind
from .verdict import EVIDENCE_NEEDED, KNOWLEDGE, BlindVerdict

if TYPE_CHECKING:
    from ..models import ModelClient
    from ..transforms.base import Transform


def removes_evidence(transform: Transform) -> bool:
    """Edits the images or the document (what a knowledge verdict makes pointless), as
    opposed to rewriting the question."""
    return transform.target in ("image", "document")


class BlindGate:
    """Verdicts for one worker: from ``client`` when given, else from the offline cues.
    Each sample is checked once per process (routing and building ask twice)."""

    def __init__(self, policy: str = "rewrite", client: ModelClient | None = None) -> None:
        self.policy = policy
        self.client = client
        self._seen: dict[str, BlindVerdict] = {}

    @property
    def decides(self) -> bool:
        """Whether a knowledge verdict changes what the sample gets."""
        return self.policy != "record"

    def check(self, sample: Sample) -> BlindVerdict:
        if sample.id not in self._seen:
            self._seen[sample.id] = self._check(sample)
        return self._seen[sample.id]

    def _check(self, sample: Sample) -> BlindVerdict:
        cues = blind_cues(sample)
        heuristic = BlindVerdict(
            method="heuristic", verdict=KNOWLEDGE if cues else EVIDENCE_NEEDED, evidence=cues
        )
        if self.client is None:
            return heuristic
        verdict = ask_blind(self.client, sample)
        if isinstance(verdict, BlindVerdict):
            return verdict
        # A failed call: the offline verdict stands, and says why.
        return BlindVerdict(
            method=f"heuristic (model:{self.client.label} failed: {verdict[:200]})",
            verdict=heuristic.verdict,
            evidence=heuristic.evidence,
        )
