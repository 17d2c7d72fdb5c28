"""The figure a question names: "Figure 2", "the figure at the top of page 6985".

A question about a paper's figure often names it, and the figure is not always a drawing:
a prompt template or a code listing printed as text is "Figure 2" too, and figure
detection (:mod:`.figures`), which looks for images and shaped vector paths, does not see
it. Its caption does tell where it is: papers print a figure's caption right below it.
The figure is the column band above the caption, up to the previous caption, the body
text above, or the top of the page.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import pymupdf

#: "Figure 2", "Fig. 3", "figures 4" in a question.
_NAMED = re.compile(r"\bfig(?:ure)?s?\.?\s*(\d{1,3})\b", re.IGNORECASE)
#: "the figure at the top of page 6985", "the chart in the lower part of the page".
_PLACED = re.compile(
    r"\b(?:figure|chart|graph|diagram|picture|image|illustration)\b[^.?]{0,24}?"
    r"\b(top|upper|bottom|lower)\b",
    re.IGNORECASE,
)
#: A caption line: "Figure 2:", "Fig. 3.", "Figure 4 |".
_CAPTION = re.compile(r"^\s*fig(?:ure)?\.?\s*(\d{1,3})\s*[:.|]", re.IGNORECASE)
#: A caption wider than this share of the page spans both columns.
FULL_WIDTH = 0.6


@dataclass(frozen=True)
class FigureReference:
    """How a question names a figure: by number, by place on the page, or both."""

    number: int | None = None
    place: str | None = None  # "top" or "bottom"

    def __bool__(self) -> bool:
        return self.number is not None or self.place is not None


def figure_reference(question: str) -> FigureReference:
    """The figure ``question`` names (empty when it names none)."""
    named = _NAMED.search(question)
    placed = _PLACED.search(question)
    place = None
    if placed:
        place = "top" if placed.group(1).lower() in ("top", "upper") else "bottom"
    return FigureReference(int(named.group(1)) if named else None, place)


@dataclass(frozen=True)
class _Block:
    rect: pymupdf.Rect
    text: str
    lines: int
    style: tuple[str, float]  # the font and size most of its characters use


def _blocks(page: pymupdf.Page) -> list[_Block]:
    out = []
    for block in page.get_text("dict")["blocks"]:
        if block.get("type") != 0:
            continue
        styles: Counter[tuple[str, float]] = Counter()
        texts = []
        for line in block["lines"]:
            texts.append("".join(span["text"] for span in line["spans"]))
            for span in line["spans"]:
                styles[(span["font"], round(span["size"], 1))] += len(span["text"].strip())
        text = " ".join(texts).strip()
        if text and styles:
            style = styles.most_common(1)[0][0]
            out.append(_Block(pymupdf.Rect(block["bbox"]), text, len(block["lines"]), style))
    return out


#: Pages read to find a document's body text style.
STYLE_PAGES = 40


def body_style(document: pymupdf.Document) -> tuple[str, float] | None:
    """The font and size of most of the document's text: its body text (a page that is
    one big listing prints mostly the listing's font)."""
    weights: Counter[tuple[str, float]] = Counter()
    for number in range(min(document.page_count, STYLE_PAGES)):
        for block in _blocks(document[number]):
            weights[block.style] += len(block.text)
    return weights.most_common(1)[0][0] if weights else None


def _column(caption: pymupdf.Rect, page: pymupdf.Rect) -> tuple[float, float]:
    if caption.width >= FULL_WIDTH * page.width:
        return page.x0, page.x1
    middle = page.x0 + page.width / 2
    if caption.x1 <= middle + 0.05 * page.width:
        return page.x0, middle
    if caption.x0 >= middle - 0.05 * page.width:
        return middle, page.x1
    return caption.x0, caption.x1


def _figure_above(
    caption: _Block, blocks: list[_Block], body: tuple[str, float] | None, page: pymupdf.Rect
) -> pymupdf.Rect:
    """The column band above ``caption`` up to the nearest caption or body paragraph,
    widened to the blocks in it (a narrow caption centred under a wide figure)."""
    x0, x1 = _column(caption.rect, page)
    above = []
    for block in blocks:
        if block is caption or block.rect.y1 > caption.rect.y0 + 1:
            continue
        overlap = min(x1, block.rect.x1) - max(x0, block.rect.x0)
        if overlap >= 0.5 * min(block.rect.width, x1 - x0):
            above.append(block)
    top = page.y0
    for block in above:
        if _CAPTION.match(block.text) or (block.style == body and block.lines >= 2):
            top = max(top, block.rect.y1)
    inside = [b.rect for b in above if b.rect.y0 >= top - 1]
    x0 = min([x0, *(r.x0 for r in inside)])
    x1 = max([x1, *(r.x1 for r in inside)])
    return pymupdf.Rect(x0, top, x1, caption.rect.y1)


def named_figure(
    page: pymupdf.Page, reference: FigureReference, body: tuple[str, float] | None
) -> pymupdf.Rect | None:
    """Where the figure ``reference`` names is on ``page`` (with its caption), or None
    when the page prints no caption that matches it. ``body`` is the document's body text
    style (:func:`body_style`)."""
    if not reference:
        return None
    blocks = _blocks(page)
    captions = [b for b in blocks if _CAPTION.match(b.text)]
    if reference.number is not None:
        captions = [b for b in captions if int(_CAPTION.match(b.text).group(1)) == reference.number]
    if not captions:
        return None
    if reference.place == "bottom":
        caption = max(captions, key=lambda b: b.rect.y1)
    else:
        caption = min(captions, key=lambda b: b.rect.y0)
    region = _figure_above(caption, blocks, body, page.rect)
    return region if not region.is_empty else None
