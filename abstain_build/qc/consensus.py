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

    Leak evidence is decisive: a judge that read the gold answer on the item
    (:attr:`Verdict.read_gold`) rejects it, whatever the other says; a split on an item
    that states its answer is not a matter of opinion. A judge that could not decide
    (``ERROR``), or fewer than two verdicts, is ``qc_error``: an item is never accepted
    without two valid verdicts.
    """
    if any(v.read_gold for v in verdicts):
        return REJECTED
    if len(verdicts) < 2 or any(v.verdict == ERROR for v in verdicts):
        return QC_ERROR
    answers = {v.verdict for v in verdicts}
    if answers == {UNANSWERABLE}:
        return ACCEPTED
    if answers == {ANSWERABLE}:
        return REJECTED
    return FLAGGED
