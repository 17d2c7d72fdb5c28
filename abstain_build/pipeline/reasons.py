"""Why items are missing, in groups: the reasons a build turned samples away, with counts.

Each reason names the details of its own sample (a page number, the words it quotes, a
parenthesised measurement), so counted as written nearly every reason occurs once and the
rule that turned most samples away cannot be seen. :func:`reason_kind` keeps the rule and
drops the details; :func:`top_reasons` orders the groups the same way on every run.
"""

from __future__ import annotations

import re
from collections import Counter

#: How many groups a summary shows per kind of reason.
TOP = 5
#: A group's text is cut here (with an ellipsis): a summary line, not the whole reason.
MAX_CHARS = 100
#: Colon-separated parts are kept until the text is this long: "re-read gate" alone says
#: too little, "re-read gate: the answer is still stated" enough.
ENOUGH_CHARS = 40

_PARENTHESISED = re.compile(r"\s*\([^()]*\)")
_QUOTED = re.compile(r"(?<!\w)(?:\"[^\"]*\"|'[^']*')(?!\w)")
#: A number standing alone ("page 4", "in 3 attempts", "50%"), not one inside a name or
#: an address ("gpt-4o", "127.0.0.1:8080").
_NUMBER = re.compile(r"(?<![^\s(])\d+(?:[.,]\d+)*(?![^\s:;,%)])")
_SPACES = re.compile(r"\s+")


def reason_kind(reason: str) -> str:
    """``reason`` without its sample's details: parenthesised asides dropped, quoted text
    as "…", standalone numbers as "N", the first clause only (up to a ";", and the
    colon-separated parts it takes to say something)."""
    text = reason
    while True:  # innermost first: asides nest
        shorter = _PARENTHESISED.sub("", text)
        if shorter == text:
            break
        text = shorter
    text = _QUOTED.sub("…", text)
    text = _NUMBER.sub("N", text)
    text = _SPACES.sub(" ", text.split(";")[0]).strip()
    kept = ""
    for part in text.split(": "):
        kept = f"{kept}: {part}" if kept else part
        if len(kept) >= ENOUGH_CHARS:
            break
    kept = kept.strip(" ,:")
    return kept if len(kept) <= MAX_CHARS else kept[: MAX_CHARS - 1].rstrip() + "…"


def top_reasons(counts: Counter, n: int = TOP) -> list[tuple[str, int]]:
    """The ``n`` largest groups, most frequent first, ties in text order (same bytes for
    the same build, whatever order the samples were committed in)."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]


def other_subset(transform: str, reason: str) -> bool:
    """The transform works on the other subset (image or document samples): expected of
    every sample of that subset, so no news about why items are missing."""
    return reason.startswith(f"{transform} works on ")
