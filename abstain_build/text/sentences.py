"""Cutting question text into sentences by punctuation, for the grammar and semantic gates.

The parser's own sentence splits break on ``Employee.Name`` and on units such as
``0.3 in.``; a rule on punctuation is steadier on MMMU questions and is the same for the
raw text (with ``<image N>``) and the protected text (with ``IMAGEN``).
"""

from __future__ import annotations

import re

#: A sentence ends at . ? ! followed by a space and then a capital, a quote, a bracket or
#: a placeholder (raw ``<image 1>`` or protected ``IMAGE1``).
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+(?=[A-Z\"“(<]|IMAGE\d)")
#: Words ending in "." that do not end a sentence ("Fig. 2", "0.3 in. thick", "e.g.").
_ABBREVIATION = re.compile(
    r"(?:\b(?:fig|figs|eq|eqs|no|vs|etc|e\.g|i\.e|approx|dr|mr|mrs|ms|st|in|ft|lb|oz|"
    r"sec|min|vol|p|pp|ch|sect|ref|al|inc|co|ltd|jr|sr)|\b[A-Z]|\d)\.$",
    re.IGNORECASE,
)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, in order; spacing inside them is kept."""
    pieces: list[str] = []
    for piece in _SENTENCE_END.split(text.strip()):
        if pieces and _ABBREVIATION.search(pieces[-1]):
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return [piece.strip() for piece in pieces if piece.strip()]
