"""What a corrupted item now answers: the gold restated from the value printed in its place.

A page that printed the gold once and now prints one clean new value still answers the
question, with the new value (SPEC 7). The build keeps such an item as an *answer-changed*
control, and needs its new gold in the gold's own form: "34.7" printed as "$34.7 million"
and rewritten to "$41.2 million" becomes "41.2"; "8,831" (millions) printed as "$8.8
billion" and rewritten to "$11.0 billion" becomes "11,000"; a year answer "2015" printed
in "FY2015" and rewritten to "FY2017" becomes "2017".
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from ...evidence.forms import GoldItem, token_value, unit_shifts
from ...numbers import NumericToken, find_numbers
from ...rewrites.number_rewrite import format_digits, printed_digits


def _answer_token(answer: str, item: GoldItem) -> NumericToken | None:
    """The one number of the answer text that ``item`` was read from."""
    tokens = [t for t in find_numbers(answer) if t.is_quantity or t.kind == "year"]
    return tokens[0] if len(tokens) == 1 else None


def _best_shift(item: GoldItem, printed: Decimal, percent: bool) -> Decimal:
    """The power of ten between the gold and its printing (thousands, a percent as a
    fraction): the one that brings the two closest."""
    assert item.number is not None
    shifts = unit_shifts(item, percent)
    return min(shifts, key=lambda s: abs(printed - item.number * s))  # type: ignore[operator]


def restated_answer(answer: str, item: GoldItem, old: NumericToken, new_text: str) -> str | None:
    """The answer text once the printing ``old`` of ``item`` reads ``new_text``, in the
    answer's own format; None when it cannot be said exactly (the new text is not one
    number, or the answer is not one)."""
    news = find_numbers(new_text)
    target = _answer_token(answer, item)
    if len(news) != 1 or target is None:
        return None
    new = news[0]
    if item.kind == "year":
        year = int(item.number or 0)
        if year not in old.years or len(new.years) != len(old.years):
            return None
        moved = new.years[old.years.index(year)]
        return (
            answer[: target.start]
            + target.text.replace(str(year), str(moved))
            + answer[target.end :]
        )
    if item.kind != "number" or item.number is None or item.quantum is None:
        return None
    before, after = token_value(old), token_value(new)
    digits = printed_digits(target)
    if before is None or after is None or digits is None:
        return None
    shift = _best_shift(item, before[0], old.kind == "percent")
    unit = Decimal(int(target.multiplier))  # the answer's own scale word ("4.5 billion")
    magnitude = after[0] / shift / unit
    quantum = max(item.quantum, after[1] / shift) / unit
    gold_quantum = item.quantum / unit
    magnitude = magnitude.quantize(quantum, rounding=ROUND_HALF_UP)
    like = digits
    if quantum > gold_quantum and "." in digits:  # printed coarser than the gold was given
        keep = max(0, -quantum.normalize().as_tuple().exponent)  # type: ignore[operator]
        whole, fraction = digits.split(".")
        like = whole + ("." + fraction[:keep] if keep else "")
    new_digits = format_digits(magnitude, like)
    start = target.start + target.text.find(digits)
    return answer[:start] + new_digits + answer[start + len(digits) :]
