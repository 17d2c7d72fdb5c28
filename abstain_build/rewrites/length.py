"""The length gate: a rewrite may not grow much longer than the question it replaces.

Lengths are characters: Python ``len()`` of the text after ``str.strip()`` (surrounding
whitespace never counts; inner whitespace does).

Plain rule: ``len(rewrite) <= max_ratio * len(original)`` (120% by default).

Appended notes: a transform that appends a contradictory note ("... Note: the figure is
blank.") cannot fit it into 20% of a short question, so the caller names the note and the
two parts are measured apart. The note must be the end of the rewrite; the rest, the body,
must keep the plain rule; the note itself may be at most
``max(note_min_chars, note_ratio * len(original))`` characters, i.e. 60 characters, or
half the original when that is longer. A 50-character question may so become at most
60 + 60 = 120 characters; a 400-character one at most 480 + 200 = 680. The note still
counts in the semantic and grammar gates.

Measured on the 1,730 MMMU-Pro questions (``bench/gate_thresholds.py``): a declared note
of 45-54 characters passes 100%; undeclared, the same note would fail every question
shorter than 230-275 characters (most of them: the median question has 127). A premise
put in front of the question ("Given that the figure is a blank page, ...", +40
characters) is body, not a note, and passes only 34%: short questions leave no room for
it, which is the rule working as meant.
"""

from __future__ import annotations

from .result import GateResult

MAX_RATIO = 1.2
NOTE_MIN_CHARS = 60
NOTE_RATIO = 0.5


def note_cap(
    original: str, note_min_chars: int = NOTE_MIN_CHARS, note_ratio: float = NOTE_RATIO
) -> int:
    """The most characters an appended note may have, for this original."""
    return max(note_min_chars, int(note_ratio * len(original.strip())))


def check_length(
    original: str,
    rewrite: str,
    appended: str | None = None,
    max_ratio: float = MAX_RATIO,
    *,
    note_min_chars: int = NOTE_MIN_CHARS,
    note_ratio: float = NOTE_RATIO,
) -> GateResult:
    """The length gate; ``score`` is the body's length over the original's.

    ``appended`` is the note the transform added at the end of ``rewrite`` (None or empty
    when nothing was appended); see the module docstring for the rule.
    """
    base = original.strip()
    text = rewrite.strip()
    if not base:
        return GateResult("length", False, None, "the original question is empty")
    note = (appended or "").strip()
    if note:
        if not text.endswith(note):
            return GateResult(
                "length", False, None, "the appended note is not the end of the rewrite"
            )
        body = text[: len(text) - len(note)].strip()
    else:
        body = text
    if not body:
        return GateResult("length", False, 0.0, "the rewrite has no question besides the note")
    ratio = len(body) / len(base)
    limit = max_ratio * len(base)
    measured = f"{len(body)} chars over {len(base)} = {ratio:.0%} (limit {max_ratio:.0%})"
    if len(body) > limit + 1e-9:  # 1.2 * 35 is 42.00000000000001
        what = "question body" if note else "rewrite"
        return GateResult("length", False, ratio, f"{what} too long: {measured}")
    if note:
        cap = note_cap(base, note_min_chars, note_ratio)
        if len(note) > cap:
            detail = f"appended note too long: {len(note)} chars, at most {cap}"
            return GateResult("length", False, ratio, detail)
        measured += f"; note {len(note)} chars (at most {cap})"
    return GateResult("length", True, ratio, measured)
