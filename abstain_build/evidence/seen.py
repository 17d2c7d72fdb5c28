"""Answers read off a page's pictures: the edit must reach the pictures.

When the evidence map finds the answer stated nowhere, as no candidate, and computed from
no printed row (no operands), and the question counts or looks (its evidence type is
Counting or Visual), the answer is *seen*: counted in a figure ("how many incorrect
postures are shown"), a shape, a colour, a highlighted line. Re-reading text
cannot tell whether such an item became unanswerable, but one thing is certain: an edit
that leaves the pictures of the evidence pages intact (replaced numbers, erased words, a
mask over the wrong half) did not take the answer away. This check holds an
evidence-removal edit to covering at least :data:`MIN_COVERAGE` of the visual content
(embedded images, vector drawings, the pixels of image-only pages) of each listed page
that has any. When the question names a figure ("Figure 2", "the figure at the top of
page 6985") and the map found it, the edit must cover that share of the figure instead,
drawn or printed as text (a prompt template, a code listing).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..content.page_content import PageContent
from ..questions.evidence_type import classify_evidence
from .map import EvidenceMap

#: Share of a listed page's visual content an edit must cover when the answer is seen.
MIN_COVERAGE = 0.5
#: Pages whose visual content is below this share of their content are text pages: the
#: check does not apply to them.
MIN_VISUAL_SHARE = 0.05
#: Region kinds that take pictures away (masks, blurs, darkening, veils, hidden pages and
#: dropped halves). An erased word is not one: its box is painted the colour around it,
#: so a highlight or a drawing under it stays; the other kinds mark where an edit looked
#: or kept values.
REMOVING = frozenset({"mask", "blur", "darken", "overlay", "bar", "page_hidden", "crop_removed"})


#: Evidence types (:mod:`abstain_build.questions.evidence_type`) of questions answered by
#: looking: counting things, shapes, colours, what a figure shows.
SEEN_TYPES = frozenset({"Counting", "Visual"})


def is_seen(emap: EvidenceMap, question: str) -> bool:
    """Is the answer read off the pictures: a counting or visual question whose answer is
    stated, offered and computed nowhere? (A ratio whose operand rows the map missed is
    not: its question is neither.)"""
    if emap.evidence_anywhere() or not emap.listed:
        return False
    kind = classify_evidence(question)
    return bool({kind.label, *kind.secondary} & SEEN_TYPES)


def visual_mass(content: PageContent, rects: Iterable[Iterable[float]] | None = None) -> float:
    """The page's visual content (objects and pixels), over the page or under ``rects``."""
    visual = content.objects + content.pixels
    if rects is None:
        return float(visual.sum())
    covered = content.grid.coverage(rects).clip(0, 1)
    return float((visual * covered).sum())


def named_coverage(
    content: PageContent, figure: Iterable[float], removed: Iterable[Iterable[float]]
) -> float:
    """Share of the content of ``figure`` (text, drawings, pixels) under ``removed``."""
    inside = content.grid.coverage([tuple(figure)]).clip(0, 1) * content.density
    total = float(inside.sum())
    if total <= 0:
        return 1.0
    covered = content.grid.coverage([tuple(r) for r in removed]).clip(0, 1)
    return float((inside * covered).sum()) / total


def removing_regions(record: Mapping[str, Any]) -> dict[int, list[tuple[float, ...]]]:
    """The boxes a transform record says it took content away in, per page."""
    out: dict[int, list[tuple[float, ...]]] = {}
    for region in (record.get("edits") or {}).get("regions") or []:
        if region.get("page") is None or region.get("kind") not in REMOVING:
            continue
        out.setdefault(int(region["page"]), []).append(tuple(float(v) for v in region["bbox"]))
    return out


#: A question about marks in colour: "how many lines are highlighted in yellow", "the red
#: words". Its answer is read off drawings however little of a text page they cover.
_MARKS = re.compile(
    r"\b(?:highlight\w*|colou?r\w*|red|yellow|green|blue|orange|purple|pink|underlin\w*)\b",
    re.IGNORECASE,
)


def untouched_pictures(
    emap: EvidenceMap,
    record: Mapping[str, Any],
    contents: Mapping[int, PageContent],
    question: str = "",
) -> list[str]:
    """Listed pages whose pictures a seen answer (:func:`is_seen`) may still be read off,
    one line each. A page with little visual content is a text page and is left out,
    unless the question asks about marks in colour (:data:`_MARKS`)."""
    marks = bool(_MARKS.search(question))
    regions = removing_regions(record)
    out = []
    for number in emap.listed:
        content = contents.get(number)
        if content is None:
            continue
        if number in emap.figures:
            share = named_coverage(content, emap.figures[number], regions.get(number, []))
            if share < MIN_COVERAGE:
                out.append(
                    f"page {number}: the answer is read off the figure the question names"
                    f" and the edit covers {share:.0%} of it"
                )
            continue
        total = visual_mass(content)
        text_page = total < MIN_VISUAL_SHARE * float(np.sum(content.density))
        if total <= 0 or (text_page and not marks):
            continue
        share = visual_mass(content, regions.get(number, [])) / total
        if share < MIN_COVERAGE:
            out.append(
                f"page {number}: the answer is read off its pictures (stated and computed"
                f" nowhere) and the edit covers {share:.0%} of them"
            )
    return out
