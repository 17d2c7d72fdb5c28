"""What becomes of one transform tried on one sample: the one outcome type of a build.

:meth:`..worker.SampleProcessor.fate` decides it, in one place, for both ways of running a
sample: a routed chain (the first transform that gives an accepted item ends it) and
``--no-routing`` (every candidate, each reported on its own), which
:meth:`..worker.SampleProcessor.run_chain` tells apart only in what it reports.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..qc.verify import QcResult
from .apply import TransformOutput

#: The transform declined the sample (its reason says why).
NOT_APPLICABLE = "not_applicable"
#: The re-read gate found the answer in what the edit leaves.
LEAK = "leak"
#: The transform (or the re-read) failed on this sample.
ERROR = "error"
#: A structural check of the output failed.
STRUCTURAL = "qc"
#: The edit printed one new answer, kept as an answer-changed item (SPEC 7).
CHANGED_KEPT = "answer_changed"
#: ... or not kept (answer-changed items are off, or the sample has one already).
CHANGED_DROPPED = "answer_changed_dropped"
#: QC (judges, self-check) rejected the item.
REJECTED = "rejected"
#: QC accepted it, but the validity policy holds the transform back.
HELD = "held"
#: An item to ship.
ACCEPTED = "accepted"

#: Fates without an item: nothing was made, or what was made may not ship.
FAILED = (NOT_APPLICABLE, LEAK, ERROR, STRUCTURAL)

#: What a routed chain notes for an answer-changed item it kept.
KEPT_NOTE = "the answer changed, not gone: kept as an answer-changed item"


@dataclass
class Fate:
    """What became of ``transform`` on one sample: ``kind`` (one of the constants above),
    why (empty for an accepted or kept item), the failing stage of a failure, the output
    and QC's result when there are."""

    transform: str
    kind: str
    reason: str = ""
    stage: str = ""
    output: TransformOutput | None = None
    verification: QcResult | None = None

    @property
    def ships(self) -> bool:
        """An item to write: accepted, or held back by the validity policy (written
        flagged when nothing better comes)."""
        return self.kind in (ACCEPTED, HELD)

    def attempt(self) -> dict[str, str]:
        """The routing record's line for a transform that gave no accepted item."""
        if self.kind == REJECTED:
            return {"transform": self.transform, "reason": f"rejected by QC: {self.reason}"}
        if self.kind == CHANGED_KEPT:
            return {"transform": self.transform, "reason": KEPT_NOTE}
        return {"transform": self.transform, "reason": self.reason}
