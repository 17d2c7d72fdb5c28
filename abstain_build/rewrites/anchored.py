"""Offline rewrites that keep the question and point it where the image cannot answer.

A template that replaces the question with a new one ("What does the patient smell
like?") leaves the options meaningless, and a slot filled with a whole clause ("the most
likely diagnosis") reads as nonsense. These rewrites keep the asking sentence and its
options, and move what it is asked *about*: its image reference ("in this radiograph",
"shown in <image 1>", "shown below") becomes an element of that image that does not exist
(a panel or a label the image does not print, a region circled in a colour it does not
have), an earlier version of it that is not shipped, or a single pixel of it. Where the
ask has no image reference, the element goes in front: "In panel (f) of <image 1>, which
city is shown?".

What the shipped images show is checked when they are at hand (:class:`ImageFacts`): a
fabricated label must not be printed in them (OCR), a colour named must not be there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from .grammar import PLACEHOLDER
from .slots import QuestionParts

#: What a question calls its image: the nouns an image reference is made of.
IMAGE_NOUNS = (
    "image|images|figure|figures|picture|photo|photograph|radiograph|x-ray|scan|ct scan|mri"
    "|diagram|table|graph|chart|plot|circuit|painting|drawing|map|micrograph|film|slide"
    "|schematic|illustration|artwork|sculpture|score|excerpt|cartoon|poster|sketch|print"
    "|specimen|section|network|graphic|photomicrograph|ecg|electrocardiogram|x-rays"
)
_REFERENCE = re.compile(
    rf"\b(?:in|on|of|from|at|to)\s+(?P<ref>(?:this|these|the|each)\s+"
    rf"(?:(?:following|given|above|accompanying|provided)\s+)?(?:{IMAGE_NOUNS})\b"
    rf"(?:\s+<image \d+>)?|<image \d+>)",
    re.IGNORECASE,
)
_SHOWN = re.compile(
    r"\b(?P<verb>shown|depicted|pictured|illustrated|presented)\s+(?P<where>below|above)\b"
)
_KIND = re.compile(rf"\b(?:the|this)\s+(?P<noun>{IMAGE_NOUNS})\b", re.IGNORECASE)
#: An asking sentence a phrase can go in front of: it opens with a question word or sets
#: a task ("In panel (f) of <image 1>, which city is shown?"). Not "It is most commonly
#: used ..." (whose "it" the phrase would cut off) nor "Refer to ...", "P(x) = ___".
_FRONTABLE = re.compile(
    r"^(What|Which|How|Why|Who|When|Where|Is|Are|Does|Do|Did|Can|Could|Would|Should|Find"
    r"|Calculate|Determine|Compute|Estimate|Identify|Name|Select|Choose|The|A|An)\b(?!:)"
    r"(?![^,]*:\s)"
)


@dataclass(frozen=True)
class ImageFacts:
    """What the shipped images show that a rewrite must not contradict."""

    #: Their OCR words, lower case, space-separated.
    text: str = ""
    #: Marker colours covering a visible share of some image ("red", "yellow", "green").
    colours: frozenset[str] = frozenset()
    #: False when no image was read (question-only data): nothing could be checked.
    checked: bool = False

    def prints(self, label: str) -> bool:
        """Whether ``label`` is printed in an image (as a word, case ignored)."""
        return bool(re.search(rf"(?<![\w]){re.escape(label.lower())}(?![\w])", self.text))


#: Marker colours as hue windows: a colour counts as present above this share of pixels.
MARKER_SHARE = 0.001
_MARKERS = {
    "red": lambda r, g, b: (r > 150) & (g < 90) & (b < 90),
    "yellow": lambda r, g, b: (r > 170) & (g > 170) & (b < 90),
    "green": lambda r, g, b: (g > 120) & (r < 90) & (b < 110),
}


def marker_colours(images: Iterable[np.ndarray]) -> frozenset[str]:
    """The marker colours some image shows on more than :data:`MARKER_SHARE` of its pixels."""
    found = set()
    for image in images:
        if image.ndim != 3 or image.shape[2] < 3:
            continue
        r, g, b = (image[..., i].astype(np.int16) for i in range(3))
        for name, test in _MARKERS.items():
            if float(test(r, g, b).mean()) > MARKER_SHARE:
                found.add(name)
    return frozenset(found)


@dataclass(frozen=True)
class Anchor:
    """Where a rewrite points the question elsewhere.

    ``inline``: the image reference of the asking sentence (``start``/``end`` in the
    question text), replaced by a phrase built around it. Otherwise the rewrite puts a
    phrase in front of the asking sentence; ``moved`` is the span of a lone placeholder
    that moves into that phrase.
    """

    ref: str
    start: int
    end: int
    inline: bool
    moved: tuple[int, int] | None = None
    shown: re.Match[str] | None = None


def kind_noun(text: str) -> str | None:
    """What the question calls its image ("table", "radiograph"), if it says."""
    match = _KIND.search(text)
    return match.group("noun").lower() if match else None


def find_anchor(parts: QuestionParts) -> Anchor | None:
    """The asking sentence's image reference, or where a phrase can go in front of it."""
    return inline_anchor(parts) or front_anchor(parts)


def inline_anchor(parts: QuestionParts) -> Anchor | None:
    """The asking sentence's own image reference ("in this radiograph", "shown below")."""
    ask, ask_start = parts.ask, parts.ask_start
    if ask_start < 0:
        return None
    match = _REFERENCE.search(ask)
    if match:
        start, end = match.span("ref")
        return Anchor(match.group("ref"), ask_start + start, ask_start + end, inline=True)
    shown = _SHOWN.search(ask)
    if shown:
        start, end = shown.span()
        return Anchor("", ask_start + start, ask_start + end, inline=True, shown=shown)
    return None


def front_anchor(parts: QuestionParts) -> Anchor | None:
    """A place in front of the asking sentence, naming the image: a lone placeholder next
    to the ask (moved), else what the question calls its image."""
    text, ask, ask_start = parts.text, parts.ask, parts.ask_start
    if ask_start < 0:
        return None
    ask_text = ask
    lone = _lone_placeholder(text, ask_start, len(ask))
    if lone is not None and lone[0] == ask_start:
        ask_text = text[lone[1] : ask_start + len(ask)].lstrip()
    if not _FRONTABLE.match(ask_text):
        return None
    if lone is not None and text[lone[0] : lone[1]] not in ask[1:]:
        return Anchor(text[lone[0] : lone[1]], ask_start, ask_start, inline=False, moved=lone)
    noun = kind_noun(text)
    if noun is None and len(parts.placeholders) > 1:
        return None  # "the image" could be any of them
    return Anchor(f"the {noun or 'image'}", ask_start, ask_start, inline=False)


def _lone_placeholder(text: str, ask_start: int, ask_len: int) -> tuple[int, int] | None:
    """A single placeholder standing right before or after the asking sentence."""
    found = list(PLACEHOLDER.finditer(text))
    if len(found) != 1:
        return None
    match = found[0]
    before = text[:ask_start].rstrip()
    after = text[ask_start + ask_len :].lstrip()
    if before.endswith(match.group()) and text[: match.start()].strip() == "":
        return match.span()
    if after == match.group() or (
        text[match.end() :].strip() == "" and match.start() >= ask_start + ask_len
    ):
        return match.span()
    if match.start() == ask_start and text[match.end() : match.end() + 1] == " ":
        return match.span()  # "<image 1> Which city ...": the placeholder opens the ask
    return None


def _lower_first(sentence: str) -> str:
    return sentence[0].lower() + sentence[1:] if _FRONTABLE.match(sentence) else sentence


def _collapse(text: str) -> str:
    return re.sub(r"\s{2,}", " ", text).strip()


def point_elsewhere(
    parts: QuestionParts,
    anchor: Anchor,
    phrase: Callable[[str], str],
    lead: str | None = None,
) -> str:
    """The question with its image reference replaced by ``phrase(reference)``.

    Inline: "in this radiograph" -> "in " + phrase("this radiograph"). "shown below" ->
    "shown in " + phrase("the image") + " below". In front: "In " + phrase(ref) + ", " and
    the asking sentence, its first word in lower case; a lone placeholder moves there.
    ``lead`` replaces that "In ...," opening.
    """
    text = parts.text
    if anchor.inline and anchor.shown is not None:
        verb, where = anchor.shown.group("verb"), anchor.shown.group("where")
        new = f"{verb} in {phrase('the image')} {where}"
        return text[: anchor.start] + new + text[anchor.end :]
    if anchor.inline:
        return text[: anchor.start] + phrase(anchor.ref) + text[anchor.end :]
    ask_start = anchor.start
    ask = text[ask_start : ask_start + len(parts.ask)]
    if ask.startswith(anchor.ref) and anchor.moved and anchor.moved[0] == ask_start:
        ask = ask[len(anchor.ref) :].lstrip()
    opening = lead if lead is not None else f"In {phrase(anchor.ref)},"
    lead = f"{opening} {_lower_first(ask)}"
    head, tail = text[:ask_start], text[ask_start + len(parts.ask) :]
    if anchor.moved is not None:
        m0, m1 = anchor.moved
        if m1 <= ask_start:
            head = text[:m0] + text[m1:ask_start]
        elif m0 >= ask_start + len(parts.ask):
            tail = text[ask_start + len(parts.ask) : m0] + text[m1:]
    return _collapse(f"{head} {lead} {tail}")


def table_like(ref: str) -> bool:
    return bool(re.search(r"\btable\b", ref, re.IGNORECASE))


def chart_like(ref: str) -> bool:
    return bool(re.search(r"\b(graph|chart|plot)\b", ref, re.IGNORECASE))
