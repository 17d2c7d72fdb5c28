"""What every grading rule of :mod:`.answers` reads a response with: a :class:`Grade`,
the numbers a text prints, its final answer, and the string similarity (ANLS) of
MMLongBench-Doc."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation

from abstain_build.scoring.final_answer import (
    clean,
    final_answer,
    normalize_quotes,
)


@dataclass(frozen=True)
class Grade:
    """One graded response. ``parsed is None`` means nothing could be read (and wrong)."""

    correct: bool
    #: "mmmu-choice", "mmmu-open", "int", "float", "str" or "list".
    rule: str
    #: What was read from the response ("B", "2158.7", "['a', 'b']"), None when nothing.
    parsed: str | None


# -- shared helpers ------------------------------------------------------------------------

#: A number as written: "-3.5", ".5", "1,234", "1e-3". ASCII digits only; not inside a word
#: ("COVID-19" reads 19) nor after a decimal point ("3.5.2" reads 3.5).
NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-−]?)"
    r"(?P<digits>(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?|\.[0-9]+)"
    r"(?:[eE](?P<exp>[-+]?[0-9]{1,3}))?"
    r"(?![0-9])"
)
_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)
NUMBER_WORDS = {word: index for index, word in enumerate(_WORDS.split())}
NUMBER_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)
#: Decimal context roomy enough to round any number we can read (exponents up to 999).
_WIDE = Context(prec=2100)
#: A response that names the empty list.
EMPTY_LIST = re.compile(r"\[\s*\]")
#: Integers read as years; a non-year gold ignores them when other numbers are there.
YEARS = (Decimal(1900), Decimal(2100))
#: Replies of at most this many words are read whole as the answer ("B. North").
SHORT_RESPONSE = 5
#: Past this many items, pairing by matching gives way to MMLongBench's sorted pairing.
MAX_MATCHED_ITEMS = 200


def match_number(match: re.Match[str]) -> Decimal:
    """The value of a :data:`NUMBER` match, exactly."""
    text = match["digits"].replace(",", "")
    if match["exp"]:
        text += "e" + match["exp"]
    value = Decimal(text)
    return -value if match["sign"] else value


def numbers_in(text: str) -> list[Decimal]:
    """Every number written in ``text``, in order."""
    return [match_number(m) for m in NUMBER.finditer(text)]


def whole_number(text: str) -> Decimal | None:
    """The number ``text`` is, allowing a currency sign and a percent sign around it."""
    body = text.strip().lstrip("$€£").strip().rstrip("%").strip()
    match = NUMBER.fullmatch(body)
    return match_number(match) if match else None


def _show(value: Decimal) -> str:
    """A number as a plain string ("1234", "0.001"; huge exponents stay scientific)."""
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent >= -30 and value.adjusted() < 30:
        return format(value, "f")
    return str(value)


def show_all(values: Sequence[Decimal]) -> str:
    return ", ".join(_show(v) for v in values)


def decimal_places(value: Decimal) -> int:
    """How many decimals ``value`` was written with ("2158.70" -> 2, "3e2" -> 0)."""
    exponent = value.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def rounded_to(value: Decimal, places: int) -> Decimal:
    """``value`` rounded half up to ``places`` decimals (unchanged if it cannot be)."""
    try:
        return value.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP, _WIDE)
    except InvalidOperation:
        return value


def final_text(response: str) -> str:
    """The final answer, or the whole (cleaned) response when it has none."""
    return final_answer(response).text or clean(normalize_quotes(response))


def _levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions), two rows of the table."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        previous = current
    return previous[-1]


def anls(gold: str, prediction: str) -> float:
    """Similarity in [0, 1]: 1 - Levenshtein distance / longer length, case-insensitive.

    The raw value; the graders apply the 0.5 threshold (MMLongBench-Doc's ANLS).
    """
    a, b = (gold or "").lower(), (prediction or "").lower()
    longest = max(len(a), len(b))
    if longest == 0:
        return 1.0
    return 1.0 - _levenshtein(a, b) / longest


def similar(gold: str, prediction: str) -> bool:
    """ANLS >= 0.5, skipping the distance when the lengths alone rule it out."""
    shorter, longer = sorted((len(gold), len(prediction)))
    if longer == 0:
        return True
    if shorter / longer < 0.5:  # the distance is at least longer - shorter
        return False
    return anls(gold, prediction) >= 0.5


_LEAD_ANSWER = re.compile(r"^(?:the\s+)?(?:final\s+)?answer\s+is\b\s*:?\s*")


def clean_str(text: str) -> str:
    """Lowercase, quotes/emphasis/end punctuation off, whitespace collapsed."""
    text = " ".join(normalize_quotes(text or "").lower().split())
    text = _LEAD_ANSWER.sub("", text)
    text = clean(text).strip("\"'")
    return " ".join(text.split())


_EXACT_KINDS = (
    re.compile(r"[0-9\s.,:/%$€£+\-−]*[0-9][0-9\s.,:/%$€£+\-−]*"),  # numbers, dates, phones
    re.compile(r"(?:https?://|www\.)\S+"),  # web addresses
    re.compile(r"[\w.%+-]+@[\w.-]+\.[a-z]{2,}"),  # e-mail addresses
    re.compile(r"\S+\.(?:py|ipynb|pdf|csv|json|txt|docx?|xlsx?|png|jpe?g)"),  # file names
)


def needs_exact(gold: str) -> bool:
    """Golds where a near miss is a different answer: short, numeric, addresses, files."""
    return len(gold) <= 3 or any(kind.fullmatch(gold) for kind in _EXACT_KINDS)


def contains_phrase(text: str, phrase: str) -> bool:
    """Does ``phrase`` occur in ``text`` as whole words?"""
    return bool(phrase) and re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text) is not None
