"""The blind check: can a sample's question be answered without its images or document?

Removing evidence cannot make a question unanswerable when the question text, or what any
reader of the field knows, already gives the answer ("Ovum and sperm make what?", a
vignette naming every sign of one disease). The check runs on every source sample before
routing, offline (:mod:`.cues`, measured on hand-labelled questions) or with a text-only
model (:mod:`.model`); its verdict decides which transforms may build the counterpart.
"""

from .cues import CUES, blind_cues
from .gate import BlindGate, removes_evidence
from .verdict import EVIDENCE_NEEDED, KNOWLEDGE, POLICIES, BlindVerdict

__all__ = [
    "CUES",
    "EVIDENCE_NEEDED",
    "KNOWLEDGE",
    "POLICIES",
    "BlindGate",
    "BlindVerdict",
    "blind_cues",
    "removes_evidence",
]
