"""The five-way confusion matrix and the four abstention metrics.

Each response falls in one cell, by (answerable?, abstained?, correct?):

==========  ===============================  ==============================
cell        item                             response
==========  ===============================  ==============================
TP          answerable                       correct answer
FP          answerable                       wrong (or unreadable) answer
FN          answerable                       abstention
TN          unanswerable                     abstention
AU          unanswerable                     any answer
==========  ===============================  ==============================

AAC = TP / (TP+FP+FN), UAC = TN / (TN+AU), AR = (FN+TN) / N, and MCC treats AU as a
second kind of false positive::

    MCC = (TP*TN - (FP+AU)*FN) / sqrt((TP+FP+AU)(TP+FN)(TN+FP+AU)(TN+FN))

A metric whose denominator is 0 is *undefined* (``None``), never 0: a model that always
abstains has MCC undefined, not 0. Standard errors are sqrt(p(1-p)/n) with n the
metric's denominator. Counts may be fractional (averages over runs or judges).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

CELLS = ("TP", "FP", "FN", "TN", "AU")


@dataclass(frozen=True)
class Rate:
    """A proportion with its denominator and standard error; ``value`` None if n == 0."""

    value: float | None
    n: float

    @property
    def se(self) -> float | None:
        if self.value is None:
            return None
        return math.sqrt(max(0.0, self.value * (1.0 - self.value)) / self.n)

    def to_json(self) -> dict[str, Any]:
        return {"value": _round(self.value), "se": _round(self.se), "n": _round(self.n)}


def rate(part: float, whole: float) -> Rate:
    return Rate(part / whole if whole > 0 else None, whole)


@dataclass
class Confusion:
    """Counts of the five cells; add responses with ``add`` or build from counts."""

    TP: float = 0.0
    FP: float = 0.0
    FN: float = 0.0
    TN: float = 0.0
    AU: float = 0.0

    def add(self, cell: str, weight: float = 1.0) -> None:
        if cell not in CELLS:
            raise ValueError(f"unknown cell {cell!r}; one of {', '.join(CELLS)}")
        setattr(self, cell, getattr(self, cell) + weight)

    @property
    def n(self) -> float:
        return self.TP + self.FP + self.FN + self.TN + self.AU

    @property
    def aac(self) -> Rate:
        """Answerable accuracy: correct answers among answerable items."""
        return rate(self.TP, self.TP + self.FP + self.FN)

    @property
    def uac(self) -> Rate:
        """Unanswerable accuracy: abstentions among unanswerable items."""
        return rate(self.TN, self.TN + self.AU)

    @property
    def ar(self) -> Rate:
        """Abstention rate over all items."""
        return rate(self.FN + self.TN, self.n)

    @property
    def mcc(self) -> float | None:
        """Matthews correlation with AU as a second false-positive class; None if undefined."""
        denominator = (
            (self.TP + self.FP + self.AU)
            * (self.TP + self.FN)
            * (self.TN + self.FP + self.AU)
            * (self.TN + self.FN)
        )
        if denominator <= 0:
            return None
        return (self.TP * self.TN - (self.FP + self.AU) * self.FN) / math.sqrt(denominator)

    def counts(self) -> dict[str, float]:
        return {cell: _round(getattr(self, cell)) for cell in CELLS}

    def to_json(self) -> dict[str, Any]:
        return {
            "n": _round(self.n),
            "counts": self.counts(),
            "AAC": self.aac.to_json(),
            "UAC": self.uac.to_json(),
            "AR": self.ar.to_json(),
            "MCC": _round(self.mcc),
        }


def _round(value: float | None) -> Any:
    if value is None:
        return None
    if float(value).is_integer():
        return int(value)
    return round(value, 6)
