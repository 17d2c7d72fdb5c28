"""Where a free-text response states its answer.

Both the abstention matcher and the graders look at the *final answer*, so a response
that first hedges ("I can't be certain...") and then commits ("Answer: B") is judged by
its commitment. The rules, in order:

1. An explicit answer statement: ``Answer: …``, ``Final answer: …``, ``The answer is …``
   (also ``would be``, ``should be``, ``is likely``, ``=``). The last one wins; the final
   answer is the rest of its line (or the next non-empty line when that is empty).
2. Otherwise the response has no marked answer (``marked`` is False) and the final
   answer is the last sentence of its last non-empty line.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

#: "Answer: X", "Final answer - X", "the answer is X", "the correct answer would be X".
ANSWER_MARKER = re.compile(
    r"\b(?:final\s+)?answer\b\**"
    r"(?:\s*(?:is|would\s+be|should\s+be|must\s+be|might\s+be|may\s+be|is\s+likely)\b\s*:?"
    r"|\s*[:=]|\s+[-–—]\s)",
    re.IGNORECASE,
)
#: Words before a marker that belong to the answer statement ("I cannot answer: ...").
LEAD_WORDS = re.compile(r"(?:\S+\s+){0,3}$")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[*]?[A-Z0-9])")
#: Markdown emphasis, list bullets and quotes that wrap an answer without being part of it
#: (a dash only as a bullet: "-3.65%" keeps its sign).
LEADING = re.compile(r"^(?:[\s*_`\"'“”‘’>#•]|[-–](?!\d))+")
TRAILING = " \t.,;:!*_`\"'“”‘’"
#: Initials: "W.", "S.V.", "U.S." (the last period already stripped).
INITIALS = re.compile(r"(?:[a-z]\.)*[a-z]")
#: Words whose period does not end a sentence: titles, initials, common abbreviations.
_ABBREVIATED = (
    "mr mrs ms dr prof capt col gen lt sgt st jr sr inc ltd co corp no nos vol fig figs"
    " eq approx excl incl etc vs cf al dept est jan feb mar apr jun jul aug sep sept oct"
    " nov dec e.g i.e u.s u.k"
)
ABBREVIATIONS = frozenset(_ABBREVIATED.split())


@dataclass(frozen=True)
class FinalAnswer:
    """The answer part of a response, and whether the response marked it explicitly."""

    text: str
    marked: bool
    #: The sentence that states it: up to three words before the marker, then the answer.
    #: "I cannot answer: the page is blank" is stated by "I cannot answer: the page...".
    statement: str = ""


def normalize_quotes(text: str) -> str:
    """Curly quotes and apostrophes to straight ones (models emit both)."""
    return (
        text.replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
    )


def clean(text: str) -> str:
    """Strip emphasis, bullets, quotes and end punctuation around an answer."""
    return LEADING.sub("", text.strip()).rstrip(TRAILING).strip()


def sentences(line: str) -> list[str]:
    """``line`` split into sentences, not after "Capt.", "W." or "excl."."""
    pieces = SENTENCE_END.split(line.strip())
    merged: list[str] = []
    for piece in pieces:
        if merged:
            last_word = merged[-1].rsplit(None, 1)[-1].rstrip(".").lstrip("(").lower()
            if INITIALS.fullmatch(last_word) or last_word in ABBREVIATIONS:
                merged[-1] = f"{merged[-1]} {piece}"
                continue
        merged.append(piece)
    return merged


@functools.lru_cache(maxsize=4096)
def final_answer(response: str) -> FinalAnswer:
    """The final answer of ``response`` (see the module docstring for the rules).

    Remembered: the abstention matcher and the graders both ask for it, several times.
    """
    text = normalize_quotes(response or "").strip()
    markers = list(ANSWER_MARKER.finditer(text))
    if markers:
        rest = text[markers[-1].end() :]
        lines = [line for line in rest.splitlines() if clean(line)]
        first_line = rest.split("\n", 1)[0]
        answer = clean(first_line) or (clean(lines[0]) if lines else "")
        before = text[: markers[-1].start()].split("\n")[-1]
        lead = LEAD_WORDS.search(before).group(0)
        statement = f"{lead}{markers[-1].group(0).rstrip()} {answer}".strip()
        return FinalAnswer(answer, marked=True, statement=statement)
    lines = [line for line in text.splitlines() if clean(line)]
    if not lines:
        return FinalAnswer("", marked=False)
    parts = [part for part in sentences(lines[-1]) if clean(part)]
    answer = clean(parts[-1] if parts else lines[-1])
    return FinalAnswer(answer, marked=False, statement=answer)
