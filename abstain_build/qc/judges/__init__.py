"""Judges: who decides whether a perturbed item can still be answered.

Model judges see only the perturbed item; reference judges (``offline:*``) also compare
with the original and its gold answer, and say so in every verdict they give.
"""

from .base import (
    ANSWERABLE,
    CONFIDENCES,
    ERROR,
    UNANSWERABLE,
    Judge,
    JudgeItem,
    Reference,
    Verdict,
    get_judge,
    judge_names,
    register_judge,
)

__all__ = [
    "ANSWERABLE",
    "CONFIDENCES",
    "ERROR",
    "UNANSWERABLE",
    "Judge",
    "JudgeItem",
    "Reference",
    "Verdict",
    "get_judge",
    "judge_names",
    "register_judge",
]
