"""Contradictory captions: a note appended to a document question that says something the
document's evidence contradicts (a different value, a different name than the gold answer).

The note says a later revision or an erratum of this same document gives another value
(the document's own authority, SPEC 7), so document and note conflict; the false value
comes from the sample and has the gold's type: a number is the gold moved 20-50% in its
own format, a year moved 1-5 years, a date 1-14 months; a name is another
line of the list or column the gold is printed in (another segment, another platform), or,
for a one-item text answer, the gold ruled out. An answer of another shape (a range, a
code) or a list of several values gets no note: the transform is then not applicable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ..evidence.forms import answer_items
from ..numbers import find_numbers
from .number_rewrite import wrong_quantity
from .offline import Candidate

#: Notes by the type of the value they give. Each speaks with the document's own
#: authority (SPEC 7): a later revision or an erratum of this same document gives another
#: value of the asked quantity, so the shipped evidence and the note conflict and a reader
#: cannot tell which holds. A third party (a press release, "another source") is simply
#: overruled by the document (blind readers did, 36 times in 43), and a note pointing into
#: the shipped document ("elsewhere the report says ...") can be checked and found false.
NOTES: dict[str, tuple[tuple[str, str], ...]] = {
    "number": (
        ("revision", "Note: a later revision of this report gives {wrong}."),
        ("erratum", "Note: this report's erratum gives {wrong}."),
        ("corrected", "Note: this report's corrected edition gives {wrong}."),
    ),
    "year": (
        ("revision", "Note: a later revision of this report says {wrong}."),
        ("erratum", "Note: this report's erratum gives the year {wrong}."),
    ),
    "date": (
        ("revision", "Note: a later revision of this report says {wrong}."),
        ("erratum", "Note: this report's erratum gives {wrong}."),
    ),
    "name": (
        ("revision", "Note: a later revision of this report names {wrong}."),
        ("erratum", "Note: this report's erratum names {wrong}."),
    ),
}
#: A text answer no other name of its kind can replace is ruled out with the same authority.
NEGATIONS = (
    ("revision_not", "Note: a later revision of this report rules out {gold}."),
    ("erratum_not", "Note: this report's erratum rules out {gold}."),
)
#: Year-month dates ("2009-07") and month-year dates ("July 2009").
_YEAR_MONTH = re.compile(r"^(?P<year>(?:19|20)\d{2})-(?P<month>0[1-9]|1[0-2])$")
_MONTHS = (
    *("January", "February", "March", "April", "May", "June"),
    *("July", "August", "September", "October", "November", "December"),
)
_MONTH_YEAR = re.compile(r"^(?P<month>" + "|".join(_MONTHS) + r")\s+(?P<year>(?:19|20)\d{2})$")
#: A question asking for a year ("In which year...", "When was...").
_ASKS_YEAR = re.compile(r"\b(?:year|when)\b", re.IGNORECASE)
#: A list line holding a name: a few words, no digits.
MAX_LIST_WORDS = 6
#: Words that make a line a heading or a total, not a name of the gold's kind.
_NOT_A_NAME = frozenset(
    {"by", "of", "and", "the", "in", "for", "to", "per", "total", "subtotal", "other"}
)
#: Lines either side of the gold's line looked at for names of its kind.
SIBLING_LINES = 6
_NAME = re.compile(r"\b[A-Z][A-Za-z&'-]+(?:\s+[A-Z][A-Za-z&'-]+){0,3}\b")


#: A question that points the reader into the document: at one figure, table or page
#: ("according to the chart on page 14", "in the images on page 1", "the title of the
#: diagram on page 9", "according to Figure 1", "in Table 1"), or at the document itself
#: ("according to the document", "in the paper"). It asks what the document, or that
#: figure, shows, which a revision's other value does not contradict.
_POINTS_AT = re.compile(
    r"\b(?:chart|graph|figure|fig\.|image|images|picture|photo|photos|diagram|map|table|"
    r"slide|infographic|illustration)s?\b[^?.]{0,40}?\b(?:on|at|of)\s+(?:the\s+\w+\s+of\s+)?"
    r"(?:page|slide)\s+\d+|\baccording\s+to\s+the\s+(?:chart|graph|figure|table|map|"
    r"diagram|image|picture|infographic)\b|\b(?:according\s+to|(?:as\s+)?(?:stated|shown"
    r"|reported|given|listed)\s+in|in)\s+(?:figure|fig\.|table|chart|graph|exhibit|slide"
    r"|page)\s*\d+|\b(?:according\s+to|(?:as\s+)?(?:stated|mentioned"
    r"|reported|shown|described|given)\s+(?:in|by)|in)\s+(?:this|the)\s+(?:document|report|"
    r"paper|article|text|guide|guidebook|manual|slides|presentation|brochure|file)\b",
    re.IGNORECASE,
)


def points_into_the_document(question: str) -> str | None:
    """The words by which ``question`` asks what the document, or one figure, table or
    page of it, shows (None when it asks about the quantity itself)."""
    match = _POINTS_AT.search(question)
    return match.group() if match else None


#: The longest answer a note can deny outright ("... it is not <answer>.").
MAX_DENIED = 60


def contradictable(answer: str, answer_format: str | None) -> bool:
    """Whether a note can contradict this answer without the evidence pages: it is one
    item (a note giving one value against a list of several cannot say which one it
    means, and a reader answers the rest from the document), and that item is a single
    number, or short enough to deny (names on the pages may add more)."""
    items = answer_items(answer, answer_format)
    if len(items) != 1:
        return False
    for item in items:
        numbers = [t for t in find_numbers(item) if t.is_quantity or t.kind == "year"]
        if len(numbers) == 1 or 0 < len(item.strip().rstrip(".?!:;")) <= MAX_DENIED:
            return True
    return False


def _wrong_value(item: str, question: str, rng: np.random.Generator) -> tuple[str, str] | None:
    """Another value of the item's type in its format, and the type ("number", "year",
    "date"); None when the item is not one number, year or date."""
    text = item.strip()
    for pattern in (_YEAR_MONTH, _MONTH_YEAR):
        match = pattern.match(text)
        if match:
            return _moved_date(match, pattern is _YEAR_MONTH, rng), "date"
    item = _as_printed(item)
    tokens = [t for t in find_numbers(item) if t.is_quantity or t.kind == "year"]
    if len(tokens) != 1:
        return None
    token = tokens[0]
    if token.kind == "year" or (
        _ASKS_YEAR.search(question) and token.text.isdigit() and 1000 <= int(token.text) <= 2100
    ):
        shift = int(rng.integers(1, 6)) * (1 if rng.random() < 0.5 else -1)
        year = int(re.search(r"\d{4}", token.text).group()) + shift
        wrong = re.sub(r"\d{4}", str(year), token.text, count=1)
        return item[: token.start] + wrong + item[token.end :], "year"
    rewrite = wrong_quantity(token, rng)
    if rewrite is None:
        return None
    return item[: token.start] + rewrite.text + item[token.end :], "number"


_BARE_NUMBER = re.compile(r"^(?P<whole>\d+)(?:\.(?P<decimals>\d+))?$")


def _as_printed(item: str) -> str:
    """A bare gold number as a document prints it: "1375500.00" (a dataset's float
    format) is "1,375,500", so its wrong twin reads "933,628", not "933628.03"."""
    match = _BARE_NUMBER.match(item.strip())
    if match is None:
        return item
    whole, decimals = match["whole"], match["decimals"] or ""
    if decimals.strip("0") == "":
        decimals = ""
    if len(whole) >= 5:
        whole = f"{int(whole):,}"
    return whole + (f".{decimals}" if decimals else "")


def _moved_date(match: re.Match[str], iso: bool, rng: np.random.Generator) -> str:
    """The date moved by 1 to 14 months, in its own format."""
    month = (int(match.group("month")) if iso else _MONTHS.index(match.group("month")) + 1) - 1
    total = int(match.group("year")) * 12 + month
    total += int(rng.integers(1, 15)) * (1 if rng.random() < 0.5 else -1)
    year, month = divmod(total, 12)
    return f"{year}-{month + 1:02d}" if iso else f"{_MONTHS[month]} {year}"


def sibling_names(gold: str, texts: Sequence[str]) -> list[str]:
    """Names of the gold's kind: other short lines of the list or column the gold is
    printed in (another segment, another platform), same number of words give or take
    one, no digits, no heading or total ("Revenue by segment", "Total"). Empty when the
    gold is printed on no such line."""
    lines = [" ".join(line.split()) for text in texts for line in text.splitlines()]
    lowered = gold.strip().lower()
    words = len(gold.split())
    found: dict[str, None] = {}
    for index, line in enumerate(lines):
        if line.lower() != lowered and not (
            lowered in line.lower() and len(line.split()) <= MAX_LIST_WORDS
        ):
            continue
        for other in lines[max(0, index - SIBLING_LINES) : index + SIBLING_LINES + 1]:
            other = other.strip(" .,;:")
            if (
                other
                and other.lower() != lowered
                and lowered not in other.lower()
                and other.lower() not in lowered
                and abs(len(other.split()) - words) <= 1
                and len(other.split()) <= MAX_LIST_WORDS
                and not any(ch.isdigit() for ch in other)
                and other[0].isupper() == gold.strip()[0].isupper()
                and _capitals(other) == _capitals(gold)
                and not other.endswith("-")
                and not set(other.lower().split()) & _NOT_A_NAME
            ):
                found.setdefault(other, None)
    return list(found)


def _capitals(text: str) -> bool:
    """Printed in capitals throughout: "GOVERNOR" under "Rick Scott" on a cover is the
    title of the name above it, not another name of its kind."""
    letters = [ch for ch in text if ch.isalpha()]
    return len(letters) > 1 and all(ch.isupper() for ch in letters)


def alternative_names(gold: str, texts: Sequence[str]) -> list[str]:
    """Names printed on the evidence pages that could stand in for ``gold``: capitalised
    phrases of the same number of words, not the gold answer, not part of it."""
    words = len(gold.split())
    seen: dict[str, None] = {}
    lowered = gold.lower()
    for text in texts:
        for match in _NAME.finditer(text):
            name = match.group()
            if len(name.split()) != words or name.lower() == lowered:
                continue
            if name.lower() in lowered or lowered in name.lower():
                continue
            seen.setdefault(name, None)
    return list(seen)


def ended(question: str) -> str:
    """``question`` closed as a sentence, so an appended note starts a sentence of its own
    ("... Answer in millions. Note: ..." rather than "... Answer in millions Note: ...")."""
    base = question.rstrip()
    return base if not base or base[-1] in ".?!:)\"'”" else base + "."


#: What the notes call the document, by its kind (MMLongBench-Doc's ``doc_type``): a
#: watch manual has no "authors' summary of this report".
GENRES = {
    "academic paper": "paper",
    "guidebook": "guide",
    "tutorial/workshop": "presentation",
    "brochure": "brochure",
}
#: Notes that make no sense for a kind of document (none, while every note speaks of a
#: revision or an erratum of the document itself).
_UNFIT: dict[str, set[str]] = {}


def genre_of(doc_type: object) -> str:
    """The word the notes use for a document of kind ``doc_type`` ("report" by default)."""
    return GENRES.get(str(doc_type or "").strip().lower(), "report")


def _in_genre(note: str, genre: str) -> str:
    return note.replace("this report", f"this {genre}").replace("report's", f"{genre}'s")


def caption_candidates(
    question: str,
    answer: str,
    answer_format: str | None,
    evidence_texts: Sequence[str],
    rng: np.random.Generator,
    genre: str = "report",
) -> list[Candidate]:
    """Notes contradicting the gold answer with a value of its type, each appended to the
    question (none when no such value can be made: SPEC section 7); ``genre`` is what the
    notes call the document (:func:`genre_of`)."""
    items = answer_items(answer, answer_format)
    if len(items) != 1:
        return []  # one note cannot contradict a list of values (see contradictable)
    target = items[0]
    claims: list[tuple[str, str]] = []
    wrong = _wrong_value(target, question, rng)
    if wrong is not None:
        value, kind = wrong
        claims = [(f"{kind}_{tid}", note.format(wrong=value)) for tid, note in NOTES[kind]]
    elif not any(ch.isdigit() for ch in target):
        names = sibling_names(target, evidence_texts)
        for template_id, template in NOTES["name"]:
            if names:
                name = names[int(rng.integers(len(names)))]
                claims.append((f"name_{template_id}", template.format(wrong=name)))
        denied = " ".join(target.split()).rstrip(".?!:;")
        if len(items) == 1 and 0 < len(denied) <= MAX_DENIED:
            claims += [(tid, template.format(gold=denied)) for tid, template in NEGATIONS]
    unfit = _UNFIT.get(genre, set())
    claims = [
        (tid, _in_genre(note, genre)) for tid, note in claims if tid.split("_")[-1] not in unfit
    ]
    order = rng.permutation(len(claims))
    base = ended(question)
    return [
        Candidate(
            f"{base} {claims[int(i)][1]}",
            f"contradictory_caption/{claims[int(i)][0]}",
            claims[int(i)][1],
        )
        for i in order
    ]
