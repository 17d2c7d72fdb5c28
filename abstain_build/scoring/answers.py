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

from collections.abc import Sequence

from .answer_text import Grade, anls, whole_number
from .grade_lists import grade_list
from .grade_mmmu import grade_choice, grade_open
from .grade_values import grade_float, grade_int, grade_str

__all__ = ["Grade", "anls", "grade", "rule_for"]


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
    value = whole_number(text)
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
        return grade_choice(response, gold, options)
    if rule == "mmmu-open":
        return grade_open(response, gold)
    if rule == "int":
        return grade_int(response, gold)
    if rule == "float":
        return grade_float(response, gold)
    if rule == "list":
        return grade_list(response, gold)
    return grade_str(response, gold)
