"""A prediction reply's fields: its JSON object, or the plain labelled lines of the method.

The prompts ask for JSON and send a schema, which most servers enforce. A server that
ignores ``response_format`` returns what a chat model writes when the format is only
described, often the method's own plain form: one field a line, ``EXPLANATION - ...``,
``FINAL ANSWER - A``, ``CONFIDENCE - 4``, ``DECISION: ABSTAIN`` (any case; ``:``, ``-`` or
``=``; Markdown emphasis allowed). Both are read. Only the labels a parser names count,
so prose that merely has a colon in it is still refused, and re-asked.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from ..models.replies import json_reply
from ..scoring.final_answer import clean, normalize_quotes

#: ``LABEL <sep> value`` at the start of a line, after any bullet, heading or emphasis. A
#: dash separates only with a space after it ("FINAL ANSWER - -3.5" keeps the sign).
LABEL_LINE = re.compile(
    r"^[\s>#*_•-]*(?P<label>[a-z][a-z _]*?)[\s*_]*(?:[:=]|[-–—](?=\s|$))(?P<value>.*)$",
    re.IGNORECASE,
)


def reply_fields(
    text: str, example: str, labels: Mapping[str, str], prose: Collection[str] = ()
) -> Any:
    """The reply's JSON value; else its labelled lines as ``{field: text}`` (see
    :func:`labelled_fields`); else the JSON error naming ``example``, for the re-ask."""
    try:
        return json_reply(text, example)
    except ValueError:
        found = labelled_fields(text, labels, prose)
        if not found:
            raise
        return found


def labelled_fields(
    text: str, labels: Mapping[str, str], prose: Collection[str] = ()
) -> dict[str, str]:
    """``{field: text}`` from the lines that start with a label of ``labels`` (lower case,
    words apart: ``"final answer"`` also reads ``FINAL_ANSWER``), mapped to its field.

    A ``prose`` field runs on over the lines up to the next label, joined with spaces; any
    other field is its first non-empty line (an answer, not what follows it). Text before
    the first label is left out; a field given twice keeps the last.
    """
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in normalize_quotes(text).splitlines():
        match = LABEL_LINE.match(line)
        field = labels.get(_label(match["label"])) if match else None
        if match and field:
            current = found[field] = [match["value"]]
        elif current is not None:
            current.append(line)
    out = {}
    for field, lines in found.items():
        if field in prose:
            out[field] = " ".join(" ".join(lines).split()).strip("*_ ")
        elif kept := [clean(line) for line in lines if clean(line)]:
            out[field] = kept[0]
    return out


def _label(text: str) -> str:
    return " ".join(text.replace("_", " ").lower().split())
