"""Fleiss' kappa: chance-corrected agreement of several raters on categorical labels.

Fleiss (1971) assumes every item has the same number of ratings. Annotators may skip
items, so this takes the usual generalisation to varying counts: an item with ``n_i``
ratings contributes its pairwise agreement ``(sum_j n_ij^2 - n_i) / (n_i (n_i - 1))``,
and the category shares are pooled over all ratings. With equal counts it is exactly
Fleiss' formula. Items with fewer than two ratings carry no agreement and are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Kappa:
    """``kappa`` is ``None`` when it is undefined: no item with two ratings, or every rating
    in one category (expected agreement 1, so chance explains everything)."""

    kappa: float | None
    observed: float | None  # P-bar: mean pairwise agreement per item
    expected: float | None  # P-bar-e: agreement expected from the category shares
    items: int
    ratings: int
    shares: tuple[float, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "fleiss_kappa": _round(self.kappa),
            "observed_agreement": _round(self.observed),
            "expected_agreement": _round(self.expected),
            "items": self.items,
            "ratings": self.ratings,
            "category_shares": [round(share, 6) for share in self.shares],
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def fleiss_kappa(table: Sequence[Sequence[int]]) -> Kappa:
    """``table[i][j]``: how many raters put item ``i`` in category ``j``."""
    width = len(table[0]) if table else 0
    rows = []
    for row in table:
        if len(row) != width or any(count < 0 for count in row):
            raise ValueError("every row needs one non-negative count per category")
        if sum(row) >= 2:
            rows.append(row)
    ratings = sum(sum(row) for row in rows)
    if not rows:
        return Kappa(None, None, None, 0, 0, tuple(0.0 for _ in range(width)))
    shares = tuple(sum(row[j] for row in rows) / ratings for j in range(width))
    per_item = []
    for row in rows:
        n = sum(row)
        per_item.append((sum(count * count for count in row) - n) / (n * (n - 1)))
    observed = sum(per_item) / len(per_item)
    expected = sum(share * share for share in shares)
    kappa = None if expected >= 1.0 else (observed - expected) / (1.0 - expected)
    return Kappa(kappa, observed, expected, len(rows), ratings, shares)
