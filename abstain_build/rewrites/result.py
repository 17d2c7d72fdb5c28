"""The outcome of one validation gate, shared by every gate module."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class GateResult:
    """What one gate decided about one rewrite, and the number it decided on.

    ``score`` is the measured quantity (length ratio, cosine similarity, issue count) or
    None when the gate failed before measuring it (an empty question, a trivial variant).
    ``detail`` says why it failed, or what was measured when it passed, for the report.
    """

    name: str
    passed: bool
    score: float | None
    detail: str


def gates_passed(results: Iterable[GateResult]) -> bool:
    """True when every gate passed (a rewrite must pass all of them)."""
    return all(result.passed for result in results)
