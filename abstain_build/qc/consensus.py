"""Dual-judge consensus: what two verdicts on one item decide."""

from __future__ import annotations

from collections.abc import Sequence

from .judges.base import ANSWERABLE, ERROR, UNANSWERABLE, Verdict

ACCEPTED = "accepted"
REJECTED = "rejected"
FLAGGED = "flagged"
QC_ERROR = "qc_error"
#: Every status an unanswerable item can end with, in report order.
STATUSES = (ACCEPTED, REJECTED, FLAGGED, QC_ERROR)


def consensus(verdicts: Sequence[Verdict]) -> str:
    """All UNANSWERABLE: accepted. All ANSWERABLE: rejected. Split: flagged for review.

    A judge that could not decide (``ERROR``), or fewer than two verdicts, is ``qc_error``:
    an item is never accepted without two valid verdicts.
    """
    if len(verdicts) < 2 or any(v.verdict == ERROR for v in verdicts):
        return QC_ERROR
    answers = {v.verdict for v in verdicts}
    if answers == {UNANSWERABLE}:
        return ACCEPTED
    if answers == {ANSWERABLE}:
        return REJECTED
    return FLAGGED
