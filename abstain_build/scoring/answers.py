"""Correctness graders: is a model's response to an answerable item right?

``grade(response, gold, answer_format=..., options=...)`` returns a :class:`Grade`:
``correct``, the ``rule`` that graded it, and ``parsed``, what was read from the response
(``None`` when nothing could be read: the response counts as wrong and is reported as
*unparsed*). Grading is deterministic and never raises, whatever the response.

Which rule (:func:`rule_for`): an item with options is graded by **mmmu-choice**. Otherwise
the answer format decides (``Int``, ``Float``, ``Str``, ``List`` as in MMLongBench-Doc;
``open``, or ``multiple-choice`` without options, as **mmmu-open**). Without a known format
the gold decides: a ``[...]`` list is **list**, an integer **int**, another number
(``32.9%``, ``1,234.5``) **float**, anything else **str**. When the gold does not fit its
format (an ``Int`` gold ``4.5``, a ``Float`` gold with no number) the rule that fits is used
and reported in ``Grade.rule``.

The rules follow the public MMMU and MMLongBench-Doc evaluation scripts, with the
differences noted below. "The final answer" is :func:`~.final_answer.final_answer`'s: the
text after the last ``Answer:`` / ``the answer is``, else the last sentence.

**mmmu-choice** (gold is a letter; options are lettered A, B, C... by position).

1. A marked final answer or a reply of at most five words (``Answer: B``, ``B. North``,
   ``The answer is (B).``, ``**B**``, ``Answer: B) cats``, ``Answer: Option B``), or one
   that is exactly an option's text, gives the letter. A bare ``A`` or ``I`` followed by
   more words ("Answer: A strong correlation") is read as a letter only when the words
   are that option's text.
2. Otherwise MMMU's parse of the whole response: letters written ``(B)``; failing that,
   letters standing alone between whitespace (MMMU: between spaces); failing that, and
   only for responses of more than five words, options whose text occurs in the response
   (case-insensitive). Of several candidates the one whose last occurrence is latest wins.
   Nothing found: unparsed. MMMU picks a random letter here; we never guess.

   Known weakness, kept from MMMU: an English article counts as a letter when no answer is
   marked, so "I pick C. A quick check confirms it." reads ``A``. Short option texts
   ("1") also match inside longer words or numbers.

**mmmu-open** (MMMU's open questions; a list gold ``['24/7', '3.429']`` accepts any of
its elements). The response is lowercased and split into sentences and lines; from each
the shortest text after ``could be``, ``so``, ``is``, ``thus``, ``therefore``, ``final``,
``answer``, ``result`` (and ``=`` in the last one) is a key answer, matched as substrings
as MMMU does; with none, the whole response is. Correct when a number in a key answer
equals a numeric gold after both are rounded (half up) to 2 decimals (``approximately
3.43`` for gold ``3.429``; exact after rounding, no further tolerance, as MMMU), or a gold
string occurs in a key answer (a one-character gold only as a whole word). ``parsed`` is
the first key answer.

**int**: the answer's numbers (``1,234``, ``4.0``; the words ``zero`` to ``twenty`` when
no digits are written): a marked answer's first number, else any number of the last
sentence, years (1900-2100) left out unless the gold is one. Correct when one equals the
gold exactly (``4.5`` is not ``4``).

**float**: the gold's first number (``$``, ``%``, thousands commas and trailing units
ignored) against the answer's numbers, chosen as for **int**: correct when one is within
1% of the gold (``math.isclose(rel_tol=0.01)``) or equal to it after rounding both to
``max(2, fewer decimals of the two)`` places, the gold taken as written or scaled by 100
either way (percent scale: ``0.329`` and ``32.9`` both match ``32.9%``).

**str**: both cleaned (lowercase, quotes, emphasis and end punctuation stripped,
whitespace collapsed, a leading "the answer is" dropped). Correct when the gold occurs in
the final answer as a whole-word phrase ("Based on the chart, YouTube is the most popular
platform" for ``YouTube``), or the ANLS similarity of the two (1 - normalized Levenshtein
distance, case-insensitive) is at least 0.5 (MMLongBench zeroes ANLS <= 0.5; we count
exactly 0.5 as a pass). Golds that are short (three characters or fewer), numeric
(digits and separators), web addresses, e-mail addresses or file names need the
whole-word match: a fuzzy match of ``12`` against ``13`` is not an answer.

**list**: the gold is a list repr (``['Industrial Products', 'Consumer Devices']``). The
response's items are a ``[...]`` list in the final answer (or a quoted or comma-separated
``[...]`` list anywhere in the response); else the final answer (or the bullet lines after
a bare ``Answer:``, or a closing bullet list) split on commas (not thousands commas),
semicolons and lines, with a lead-in like "The segments are" dropped; a last item is split
at " and " only while there are fewer items than in the gold. Different item counts are
wrong. Items are compared order-insensitively: numbers numerically within 1%, short gold
items (three characters or fewer) and exact kinds as in **str** exactly, others by
ANLS >= 0.5; correct when every gold item can be paired with its own predicted item.
(MMLongBench sorts both lists and pairs by position, which can misalign a misspelled
item; pairing by matching does not.)
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation

from abstain_build.scoring.final_answer import (
    ANSWER_MARKER,
    clean,
    final_answer,
    normalize_quotes,
)

__all__ = ["Grade", "anls", "grade", "rule_for"]


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
_NUMBER_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)
#: Decimal context roomy enough to round any number we can read (exponents up to 999).
_WIDE = Context(prec=2100)
#: A response that names the empty list.
EMPTY_LIST = re.compile(r"\[\s*\]")
#: Integers read as years; a non-year gold ignores them when other numbers are there.
YEARS = (Decimal(1900), Decimal(2100))
#: Replies of at most this many words are read whole as the answer ("B. North").
SHORT_RESPONSE = 5
#: Past this many items, pairing by matching gives way to MMLongBench's sorted pairing.
_MAX_MATCHED_ITEMS = 200


def _number(match: re.Match[str]) -> Decimal:
    """The value of a :data:`NUMBER` match, exactly."""
    text = match["digits"].replace(",", "")
    if match["exp"]:
        text += "e" + match["exp"]
    value = Decimal(text)
    return -value if match["sign"] else value


def _numbers(text: str) -> list[Decimal]:
    """Every number written in ``text``, in order."""
    return [_number(m) for m in NUMBER.finditer(text)]


def _whole_number(text: str) -> Decimal | None:
    """The number ``text`` is, allowing a currency sign and a percent sign around it."""
    body = text.strip().lstrip("$€£").strip().rstrip("%").strip()
    match = NUMBER.fullmatch(body)
    return _number(match) if match else None


def _show(value: Decimal) -> str:
    """A number as a plain string ("1234", "0.001"; huge exponents stay scientific)."""
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent >= -30 and value.adjusted() < 30:
        return format(value, "f")
    return str(value)


def _show_all(values: Sequence[Decimal]) -> str:
    return ", ".join(_show(v) for v in values)


def _decimals(value: Decimal) -> int:
    """How many decimals ``value`` was written with ("2158.70" -> 2, "3e2" -> 0)."""
    exponent = value.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _rounded(value: Decimal, places: int) -> Decimal:
    """``value`` rounded half up to ``places`` decimals (unchanged if it cannot be)."""
    try:
        return value.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP, _WIDE)
    except InvalidOperation:
        return value


def _final_text(response: str) -> str:
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


def _similar(gold: str, prediction: str) -> bool:
    """ANLS >= 0.5, skipping the distance when the lengths alone rule it out."""
    shorter, longer = sorted((len(gold), len(prediction)))
    if longer == 0:
        return True
    if shorter / longer < 0.5:  # the distance is at least longer - shorter
        return False
    return anls(gold, prediction) >= 0.5


_LEAD_ANSWER = re.compile(r"^(?:the\s+)?(?:final\s+)?answer\s+is\b\s*:?\s*")


def _clean_str(text: str) -> str:
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


def _needs_exact(gold: str) -> bool:
    """Golds where a near miss is a different answer: short, numeric, addresses, files."""
    return len(gold) <= 3 or any(kind.fullmatch(gold) for kind in _EXACT_KINDS)


def _contains_phrase(text: str, phrase: str) -> bool:
    """Does ``phrase`` occur in ``text`` as whole words?"""
    return bool(phrase) and re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text) is not None


# -- rules ---------------------------------------------------------------------------------

_FORMATS = {
    "int": "int",
    "float": "float",
    "str": "str",
    "list": "list",
    "open": "mmmu-open",
    "multiple-choice": "mmmu-open",
    "multiple_choice": "mmmu-open",
    "multiple choice": "mmmu-open",
}


def rule_for(answer_format: str | None, options: Sequence[str] | None, gold: str) -> str:
    """The rule that grades an item (see the module docstring)."""
    if options:
        return "mmmu-choice"
    rule = _FORMATS.get((answer_format or "").strip().lower())
    if rule:
        return rule
    text = (gold or "").strip()
    if text.startswith("["):
        return "list"
    value = _whole_number(text)
    if value is None:
        return "str"
    if "%" in text or "." in text or "e" in text.lower():
        return "float"
    return "int"


def grade(
    response: str,
    gold: str,
    *,
    answer_format: str | None = None,
    options: Sequence[str] | None = None,
) -> Grade:
    """Grade ``response`` against ``gold`` with the item's rule (see the module docstring)."""
    response = response if isinstance(response, str) else ""
    gold = gold if isinstance(gold, str) else str(gold or "")
    options = [str(option) for option in options or ()][:26]
    rule = rule_for(answer_format, options, gold)
    if rule == "mmmu-choice":
        return _grade_choice(response, gold, options)
    if rule == "mmmu-open":
        return _grade_open(response, gold)
    if rule == "int":
        return _grade_int(response, gold)
    if rule == "float":
        return _grade_float(response, gold)
    if rule == "list":
        return _grade_list(response, gold)
    return _grade_str(response, gold)


# -- mmmu-choice ---------------------------------------------------------------------------

_OPTION_PREFIX = re.compile(r"^(?:the\s+)?(?:option|choice)\s+", re.IGNORECASE)
#: "B", "(B)", "[B]", "B.", "B)", "B:", "B**", "B - cats" (a letter set off as a letter).
_LETTER_ALONE = re.compile(
    r"[(\[]([A-Za-z])[)\]]|([A-Z])[*_`]*(?=[.):]|\s+[-–—:]|\s*$)|([a-z])[*_`]*\s*$"
)
_LETTER_THEN_WORDS = re.compile(r"([A-Z])[*_`]*\s+(\S.*)", re.DOTALL)


def _gold_letter(gold: str, letters: str, options: Sequence[str]) -> str:
    """The gold as a letter: "B", "(B)", "b." or an option's text."""
    text = gold.strip().strip("()[]. ").upper()
    if len(text) == 1 and text in letters:
        return text
    key = _clean_str(gold)
    for letter, option in zip(letters, options, strict=False):
        if key and _clean_str(option) == key:
            return letter
    return gold.strip()


def _marked_letter(answer: str, letters: str, options: Sequence[str]) -> str | None:
    """The letter a marked final answer gives, if it clearly gives one."""
    text = _OPTION_PREFIX.sub("", answer.strip())
    match = _LETTER_ALONE.match(text)
    if match:
        letter = next(group for group in match.groups() if group).upper()
        return letter if letter in letters else None
    key = _clean_str(text)
    for letter, option in zip(letters, options, strict=False):
        if key and _clean_str(option) == key:
            return letter
    match = _LETTER_THEN_WORDS.match(text)
    if match and match[1] in letters:
        letter = match[1]
        if letter not in "AI":  # not an English word: "Answer: C is right"
            return letter
        option = _clean_str(options[letters.index(letter)])
        if option and re.match(rf"{re.escape(option)}(?!\w)", _clean_str(match[2])):
            return letter
    return None


def _mmmu_letter(response: str, letters: str, options: Sequence[str]) -> str | None:
    """MMMU's multiple-choice parse, without its random guess when nothing is found."""
    text = " " + normalize_quotes(response).strip().strip(",.!?;:' \t\n") + " "
    positions: dict[str, tuple[int, int]] = {}
    for letter in letters:
        found = [m.start() for m in re.finditer(re.escape(f"({letter})"), text)]
        if found:
            positions[letter] = (found[-1], 0)
    if not positions:
        for letter in letters:
            found = [m.start() for m in re.finditer(rf"(?<!\S){letter}(?!\S)", text)]
            if found:
                positions[letter] = (found[-1], 0)
    if not positions and len(text.split()) > 5:
        lowered = text.lower()
        for letter, option in zip(letters, options, strict=False):
            needle = option.strip().lower()
            if needle and needle in lowered:
                # Latest start wins; at the same start the longer option ("cat food", "cat").
                positions[letter] = (lowered.rfind(needle), len(needle))
    if not positions:
        return None
    return max(positions, key=lambda letter: positions[letter])


def _grade_choice(response: str, gold: str, options: Sequence[str]) -> Grade:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: len(options)]
    found = final_answer(response)
    letter = _marked_letter(found.text, letters, options) if found.marked else None
    if letter is None and not found.marked and len(response.split()) <= SHORT_RESPONSE:
        # A short reply is its own answer: "B. North", "**A**", "(c)".
        letter = _marked_letter(clean(normalize_quotes(response)), letters, options)
    if letter is None:
        letter = _mmmu_letter(response, letters, options)
    if letter is None:
        return Grade(False, "mmmu-choice", None)
    return Grade(letter == _gold_letter(gold, letters, options), "mmmu-choice", letter)


# -- mmmu-open -----------------------------------------------------------------------------

_KEY_INDICATORS = ("could be ", "so ", "is ", "thus ", "therefore ", "final ", "answer ", "result ")
_SUBRESPONSE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n")
_END_PUNCTUATION = " \t.,;:!?'\""


def _key_answers(response: str) -> list[str]:
    """MMMU's key sub-responses: the shortest tail after an indicator, per sentence."""
    text = normalize_quotes(response).strip().rstrip(".").lower()
    pieces = _SUBRESPONSE_SPLIT.split(text)
    keys = []
    for index, piece in enumerate(pieces):
        indicators = _KEY_INDICATORS + (("=",) if index == len(pieces) - 1 else ())
        tails = [piece.split(ind)[-1].strip() for ind in indicators if ind in piece]
        tails = [t.rstrip(_END_PUNCTUATION) for t in tails]
        tails = [t for t in tails if t]
        if tails:
            keys.append(min(tails, key=len))
    if not keys:
        whole = text.rstrip(_END_PUNCTUATION)
        return [whole] if whole else []
    return keys


def _open_value(text: str) -> Decimal | str:
    """MMMU's normalization: a number rounded to 2 decimals, else the lowercased string."""
    text = text.strip()
    match = NUMBER.fullmatch(text)
    if match:
        return _rounded(_number(match), 2)
    return text.lower().rstrip(_END_PUNCTUATION)


def _open_golds(gold: str) -> list[str]:
    text = gold.strip()
    if text.startswith("["):
        items = _literal_list(text)
        if items is not None:
            return items
    return [text]


def _grade_open(response: str, gold: str) -> Grade:
    keys = _key_answers(response)
    if not keys:
        return Grade(False, "mmmu-open", None)
    predictions: list[Decimal | str] = [_open_value(key) for key in keys]
    predictions += [_rounded(n, 2) for key in keys for n in _numbers(key)]
    golds = [_open_value(g) for g in _open_golds(gold)]
    gold_numbers = {g for g in golds if isinstance(g, Decimal)}
    gold_strings = [g for g in golds if isinstance(g, str) and g]
    correct = False
    for prediction in predictions:
        if isinstance(prediction, Decimal):
            correct = prediction in gold_numbers
        else:
            correct = any(
                _contains_phrase(prediction, g) if len(g) == 1 else g in prediction
                for g in gold_strings
            )
        if correct:
            break
    return Grade(correct, "mmmu-open", keys[0])


# -- int and float -------------------------------------------------------------------------


def _gold_value(gold: str) -> Decimal | None:
    """The gold's number: its first, with currency, percent and units around it ignored."""
    numbers = _numbers(normalize_quotes(gold))
    return numbers[0] if numbers else None


def _is_year(value: Decimal) -> bool:
    return value == value.to_integral_value() and YEARS[0] <= value <= YEARS[1]


def _answer_numbers(response: str, gold: Decimal, *, words: bool) -> list[Decimal]:
    """The numbers that can be the answer.

    A marked answer gives one: its first number ("Answer: 3 (one of them red)" is 3).
    Otherwise every number of the last sentence may be, except years when the gold is not
    one ("In 2019 there were 5 charts" does not answer 2019... unless the gold is 2019).
    Number words count only when no digits are written.
    """
    found = final_answer(response)
    text = found.text or clean(normalize_quotes(response))
    numbers = _numbers(text)
    if not numbers and words:
        numbers = [Decimal(NUMBER_WORDS[w.lower()]) for w in _NUMBER_WORD.findall(text)]
    if not _is_year(gold):
        numbers = [n for n in numbers if not _is_year(n)] or numbers
    if found.marked:
        return numbers[:1]
    return numbers


def _grade_int(response: str, gold: str) -> Grade:
    value = _gold_value(gold)
    if value is None:
        return _grade_str(response, gold)
    if value != value.to_integral_value():
        return _grade_float(response, gold)
    numbers = _answer_numbers(response, value, words=True)
    if not numbers:
        return Grade(False, "int", None)
    return Grade(any(n == value for n in numbers), "int", _show_all(numbers))


def _float_matches(gold: Decimal, prediction: Decimal) -> bool:
    """Within 1% or equal when rounded, the gold as written or on the percent scale."""
    for candidate in (gold, gold.scaleb(2), gold.scaleb(-2)):
        if math.isclose(float(candidate), float(prediction), rel_tol=0.01):
            return True
        places = max(2, min(_decimals(candidate), _decimals(prediction)))
        if _rounded(candidate, places) == _rounded(prediction, places):
            return True
    return False


def _grade_float(response: str, gold: str) -> Grade:
    value = _gold_value(gold)
    if value is None:
        return _grade_str(response, gold)
    numbers = _answer_numbers(response, value, words=False)
    if not numbers:
        return Grade(False, "float", None)
    correct = any(_float_matches(value, n) for n in numbers)
    return Grade(correct, "float", _show_all(numbers))


# -- str -----------------------------------------------------------------------------------


def _grade_str(response: str, gold: str) -> Grade:
    prediction = _clean_str(_final_text(response))
    if not prediction:
        return Grade(False, "str", None)
    target = _clean_str(gold)
    if not target:
        return Grade(False, "str", prediction)
    correct = _contains_phrase(prediction, target) or (
        not _needs_exact(target) and _similar(target, prediction)
    )
    return Grade(correct, "str", prediction)


# -- list ----------------------------------------------------------------------------------

_BRACKETS = re.compile(r"\[[^\[\]]*\]")
_BULLET = re.compile(r"^\s*(?:[-*•·]|[0-9]{1,2}[.)])\s+")
_ITEM_SPLIT = re.compile(r"\n|;|(?<![0-9]),|,(?![0-9]{3}(?![0-9]))")
_LEAD_IN = re.compile(
    r"^(?:\S+\s+){0,11}?(?:are|were|include|includes|included|is|was)\s+", re.IGNORECASE
)
_AND = re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE)


def _literal_list(text: str) -> list[str] | None:
    """Items of a Python list repr, or None when ``text`` is not one."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if not isinstance(value, (list, tuple)):
        return None
    return [str(item).strip() for item in value if str(item).strip()]


def _gold_items(gold: str) -> list[str]:
    text = normalize_quotes(gold).strip()
    if text.startswith("["):
        items = _literal_list(text)
        if items is not None:
            return items
        text = text.strip("[]")
        return [i for i in (p.strip().strip("\"'").strip() for p in text.split(",")) if i]
    return [text] if text else []


def _bracket_items(text: str, *, anywhere: bool) -> list[str] | None:
    """The last ``[...]`` list in ``text`` that is quoted or comma-separated, or is the
    whole final answer (a citation "[1]" inside a sentence is not an answer)."""
    for match in reversed(_BRACKETS.findall(text)):
        whole = not anywhere and match == text.strip()
        if not whole and not re.search(r"[,'\"]", match):
            continue
        items = _literal_list(match)
        if items is not None:
            return items
        if not anywhere and "," in match:
            return [i for i in (_clean_item(p) for p in match[1:-1].split(",")) if i]
    return None


def _answer_block(text: str) -> str:
    """Where a list answer is written: the marked answer's line, or the lines under a
    bare "Answer:", or a closing bullet list, else the final answer."""
    found = final_answer(text)
    markers = list(ANSWER_MARKER.finditer(text))
    if markers:
        first, _, after = text[markers[-1].end() :].partition("\n")
        if clean(first) and not first.rstrip().endswith(":"):
            return found.text
        lines: list[str] = []
        for line in after.splitlines():
            if clean(line):
                lines.append(line)
            elif lines:
                break
        return "\n".join(lines) if lines else found.text
    lines = [line for line in text.splitlines() if clean(line)]
    block: list[str] = []
    for line in reversed(lines):
        if not _BULLET.match(line):
            break
        block.append(line)
    return "\n".join(reversed(block)) if len(block) >= 2 else found.text


def _clean_item(item: str) -> str:
    item = _BULLET.sub("", item.strip())
    item = re.sub(r"^(?:and|or|&)\s+", "", item, flags=re.IGNORECASE)
    return clean(item).strip("\"'").strip()


def _split_items(text: str, expected: int) -> list[str]:
    if "\n" not in text:
        text = text.split(": ")[-1]
        text = _LEAD_IN.sub("", text, count=1)
    items = [i for i in (_clean_item(p) for p in _ITEM_SPLIT.split(text)) if i]
    while len(items) < expected:
        index = next((k for k in reversed(range(len(items))) if _AND.search(items[k])), None)
        if index is None:
            break
        item = items[index]
        last = list(_AND.finditer(item))[-1]
        parts = (_clean_item(item[: last.start()]), _clean_item(item[last.end() :]))
        items[index : index + 1] = [part for part in parts if part]
    return items


def _item_number(item: str) -> Decimal | None:
    return _whole_number(normalize_quotes(item).strip())


def _items_match(gold: str, prediction: str) -> bool:
    """One gold item against one predicted item (see **list** in the module docstring)."""
    gold_number = _item_number(gold)
    if gold_number is not None:
        number = _item_number(prediction)
        return number is not None and (
            number == gold_number or math.isclose(float(gold_number), float(number), rel_tol=0.01)
        )
    target, candidate = _clean_str(gold), _clean_str(prediction)
    if _needs_exact(target):
        return target == candidate
    return _similar(target, candidate)


def _pairs_up(
    golds: Sequence[str], predictions: Sequence[str], match: Callable[[str, str], bool]
) -> bool:
    """Can every gold item be paired with its own matching prediction? (Kuhn's matching.)"""
    if len(golds) > _MAX_MATCHED_ITEMS:  # too long to match: MMLongBench's sorted pairing
        pairs = zip(sorted(golds, key=_clean_str), sorted(predictions, key=_clean_str), strict=True)
        return all(match(g, p) for g, p in pairs)
    edges = [[j for j, p in enumerate(predictions) if match(g, p)] for g in golds]
    owner = [-1] * len(predictions)

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j not in seen:
                seen.add(j)
                if owner[j] < 0 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(augment(i, set()) for i in range(len(golds)))


def _grade_list(response: str, gold: str) -> Grade:
    golds = _gold_items(gold)
    text = normalize_quotes(response).strip()
    if EMPTY_LIST.fullmatch(final_answer(text).text):
        return Grade(not golds, "list", "[]")  # an empty list is an answer, right for "[]"
    items = _bracket_items(final_answer(text).text, anywhere=False)
    if items is None:
        items = _bracket_items(text, anywhere=True)
    if items is None:
        items = _split_items(_answer_block(text), len(golds))
    if not items:
        return Grade(False, "list", None)
    correct = bool(golds) and len(items) == len(golds) and _pairs_up(golds, items, _items_match)
    return Grade(correct, "list", repr(items))
