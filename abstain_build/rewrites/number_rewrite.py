"""Wrong numbers that look right: a new value for a numeric token, printed in its format.

The change is drawn from +-20% to +-50% of the printed magnitude (the method's range),
then printed with the token's own decimals, thousand separators, currency, percent sign,
scale word and sign convention, so "(1,234.5)" becomes "(1,604.9)" and "$4.5bn" "$2.8bn".
The printed result never equals the original, nor any value the caller forbids (the gold
answer): when rounding to the printed precision defeats every draw (a "1" can only become
"0", "1" or "2"), the nearest different value at that precision is used and the result
says it left the range.

Years move by whole years instead (1 to 5), since "2015" +-20% is not a year.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from ..numbers import NumericToken

#: The digits of a token's text (the only part a rewrite changes).
_DIGITS = re.compile(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+")
_YEAR_DIGITS = re.compile(r"\d{4}|(?<=['\s])\d{2}\b|(?<=FY)\d{2}\b", re.IGNORECASE)
_DRAWS = 24


@dataclass(frozen=True)
class Rewrite:
    """A token's replacement text and how far it moved."""

    text: str
    value: float  # the new printed magnitude, signed like the token (scale word not applied)
    change: float  # relative change of the printed magnitude (0.2 means +20%)
    in_range: bool  # whether ``change`` lies in the requested range


def printed_digits(token: NumericToken) -> str | None:
    """The digit group of ``token`` as printed ("1,234.50" in "$(1,234.50)")."""
    match = _DIGITS.search(token.text)
    return match.group() if match else None


def format_digits(magnitude: Decimal, like: str) -> str:
    """``magnitude`` printed like the digit group ``like``: same decimals, same separators."""
    decimals = len(like.split(".")[1]) if "." in like else 0
    quantum = Decimal(1).scaleb(-decimals)
    rounded = magnitude.quantize(quantum, rounding=ROUND_HALF_UP)
    whole = like.split(".")[0]
    # Separators as printed; a value that grows past 999 from one printed without any
    # (there was no room for one) gets them, as reports print thousands.
    grouped = "," in like or (len(whole) <= 3 and rounded >= 1000)
    text = f"{rounded:,.{decimals}f}" if grouped else f"{rounded:.{decimals}f}"
    if like.startswith(".") and text.startswith("0."):
        text = text[1:]
    return text


def _replace_digits(token: NumericToken, digits: str, new_digits: str) -> str:
    index = token.text.find(digits)
    return token.text[:index] + new_digits + token.text[index + len(digits) :]


def _unit(digits: str) -> Decimal:
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return Decimal(1).scaleb(-decimals)


def wrong_quantity(
    token: NumericToken,
    rng: np.random.Generator,
    low: float = 0.2,
    high: float = 0.5,
    forbidden: Callable[[Decimal], bool] | None = None,
    downward: bool = False,
) -> Rewrite | None:
    """A wrong value for an amount, percent or multiple, in the token's format.

    ``forbidden(magnitude)`` rejects printed magnitudes the caller must not produce (the
    gold answer printed elsewhere); ``downward`` draws smaller values only. Returns None
    for tokens without digits.
    """
    digits = printed_digits(token)
    if digits is None or not token.is_quantity:
        return None
    original = Decimal(digits.replace(",", ""))
    unit = _unit(digits)

    def allowed(candidate: Decimal) -> bool:
        return _allowed(token, original, candidate, forbidden)

    def result(candidate: Decimal, in_range: bool) -> Rewrite:
        return _rewritten(token, digits, original, candidate, in_range)

    if original > 0:
        for _ in range(_DRAWS):
            step = rng.uniform(low, high) * (1 if rng.random() < 0.5 and not downward else -1)
            candidate = (original * Decimal(repr(1 + step))).quantize(unit, ROUND_HALF_UP)
            change = abs((candidate - original) / original)
            if allowed(candidate) and low - 1e-9 <= float(change) <= high + 1e-9:
                return result(candidate, True)
    # Rounding (or a zero) leaves no value in range: the nearest different one instead.
    for steps in range(1, 1000):
        for candidate in (original + steps * unit, original - steps * unit):
            if allowed(candidate):
                return result(candidate, False)
    return None


def _allowed(
    token: NumericToken,
    original: Decimal,
    candidate: Decimal,
    forbidden: Callable[[Decimal], bool] | None,
) -> bool:
    """Whether ``candidate`` may replace ``original``: a different positive value, no
    share above 100% for one that was not, nothing the caller forbids."""
    if candidate == original or candidate <= 0:
        return False
    if token.kind == "percent" and original <= 100 and candidate > 100:
        return False
    return not (forbidden and forbidden(candidate))


def _rewritten(
    token: NumericToken, digits: str, original: Decimal, candidate: Decimal, in_range: bool
) -> Rewrite:
    """``token`` printing ``candidate`` in place of its digits ``digits``."""
    new_digits = format_digits(candidate, digits)
    change = float((candidate - original) / original) if original else float("inf")
    sign = -1.0 if token.negative else 1.0
    return Rewrite(
        _replace_digits(token, digits, new_digits), sign * float(candidate), change, in_range
    )


#: A value drawn among its neighbours differs from the printed one by at least this share.
MIN_NEIGHBOUR_CHANGE = 0.01


def plausible_quantity(
    token: NumericToken,
    rng: np.random.Generator,
    neighbours: Sequence[float],
    high: float = 0.5,
    forbidden: Callable[[Decimal], bool] | None = None,
) -> Rewrite | None:
    """A wrong value for an amount or percent that lies among ``neighbours`` (the other
    magnitudes of its table column): between the smallest and the largest of them, at
    most ``high`` away from the printed value and at least :data:`MIN_NEIGHBOUR_CHANGE`,
    in the token's format. A false table row whose values fall outside what its columns
    print is spotted for what it is. None when the neighbours leave no such value (fewer
    than two, or all on one side too close): the caller falls back to
    :func:`wrong_quantity`.
    """
    digits = printed_digits(token)
    if digits is None or not token.is_quantity or len(neighbours) < 2:
        return None
    original = Decimal(digits.replace(",", ""))
    if original <= 0:
        return None
    unit = _unit(digits)
    floor = max(min(neighbours), float(original) * (1 - high))
    ceiling = min(max(neighbours), float(original) * (1 + high))
    if ceiling <= floor:
        return None
    for _ in range(_DRAWS):
        candidate = Decimal(repr(rng.uniform(floor, ceiling))).quantize(unit, ROUND_HALF_UP)
        change = float((candidate - original) / original)
        if abs(change) >= MIN_NEIGHBOUR_CHANGE and _allowed(token, original, candidate, forbidden):
            return _rewritten(token, digits, original, candidate, True)
    return None


def wrong_year(
    token: NumericToken,
    rng: np.random.Generator,
    max_shift: int = 5,
    forbidden: Callable[[Decimal], bool] | None = None,
) -> Rewrite | None:
    """The token's year(s) moved by 1 to ``max_shift`` years, same number of digits; no
    year it would print may be ``forbidden`` (the gold answer's year)."""
    if token.kind not in ("year", "fiscal_year", "year_range") or not token.years:
        return None
    shifts = [s * d for s in range(1, max_shift + 1) for d in (1, -1)]
    for index in rng.permutation(len(shifts)):
        shift = shifts[int(index)]
        if forbidden and any(forbidden(Decimal(year + shift)) for year in token.years):
            continue

        def moved(match: re.Match[str], shift: int = shift) -> str:
            digits = match.group()
            value = int(digits) + shift
            return f"{value:04d}" if len(digits) == 4 else f"{value % 100:02d}"

        text = _YEAR_DIGITS.sub(moved, token.text)
        if text != token.text:
            return Rewrite(text, float(token.years[0] + shift), float(shift), True)
    return None
