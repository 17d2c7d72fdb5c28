"""The blind check as a build runs it: one verdict per sample, and what it allows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..model import Sample, document_name
from .cues import blind_cues
from .model_blind import ask_blind
from .verdict import CONTESTED, EVIDENCE_NEEDED, KNOWLEDGE, READINGS, BlindVerdict

if TYPE_CHECKING:
    from ..models import ModelClient
    from ..transforms.base import Transform


def removes_evidence(transform: Transform | type[Transform]) -> bool:
    """Edits the images or the document (what a knowledge verdict makes pointless), as
    opposed to rewriting the question."""
    return transform.target in ("image", "document")


class BlindGate:
    """Verdicts for one worker: from ``client`` when given, else from the offline cues.
    Each sample is checked once per process (routing and building ask twice).

    ``recalled``: source id -> how many blind readers gave its gold from memory or
    knowledge (:mod:`..validity.recall`); such a sample is knowledge-recoverable whatever
    the cues or the model say, since readers already showed it. ``contested``: source id
    -> how many readers settled, from its counterparts, on another answer than the gold
    (:func:`..validity.recall.contested_sources`); no evidence edit is tried on it either.
    ``documents``: document file name -> how many readers gave a gold of one of its
    questions from memory of it (:func:`..validity.recall.recalled_documents`): every
    question on it is knowledge-recoverable."""

    def __init__(
        self,
        policy: str = "rewrite",
        client: ModelClient | None = None,
        recalled: Mapping[str, int] | None = None,
        contested: Mapping[str, int] | None = None,
        documents: Mapping[str, int] | None = None,
    ) -> None:
        self.policy = policy
        self.client = client
        self.recalled = dict(recalled or {})
        self.contested = dict(contested or {})
        self.documents = dict(documents or {})
        self._seen: dict[str, BlindVerdict] = {}

    @property
    def decides(self) -> bool:
        """Whether a knowledge (or contested) verdict changes what the sample gets."""
        return self.policy != "record"

    def check(self, sample: Sample) -> BlindVerdict:
        if sample.id not in self._seen:
            self._seen[sample.id] = self._check(sample)
        return self._seen[sample.id]

    def _from_readings(self, sample: Sample) -> BlindVerdict | None:
        """The verdict the ledger's readings give the sample, or None."""
        for flagged, verdict, what in (
            (self.recalled, KNOWLEDGE, "gave the gold from memory or knowledge"),
            (self.contested, CONTESTED, "settled on another answer from what they were shown"),
        ):
            readers = flagged.get(sample.id)
            if readers:
                return BlindVerdict(
                    method=READINGS,
                    verdict=verdict,
                    evidence=[
                        f"{readers} blind readers of its counterparts {what} (validity ledger)"
                    ],
                )
        name = document_name(sample.document.doc_id) if sample.document is not None else ""
        readers = self.documents.get(name) if name else None
        if readers:
            return BlindVerdict(
                method=READINGS,
                verdict=KNOWLEDGE,
                evidence=[
                    f"blind readers remember the document '{name}': {readers} of them gave"
                    " the gold of a question on it from memory (validity ledger): its"
                    " other figures are remembered too"
                ],
            )
        return None

    def _check(self, sample: Sample) -> BlindVerdict:
        read = self._from_readings(sample)
        if read is not None:
            return read
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
