"""Evidence removal by occlusion: black rectangles where a page's visual evidence is densest."""

from __future__ import annotations

import math

import numpy as np
import pymupdf

from ...content.page_content import Window, densest_window, rect_tuple
from ...model import EVIDENCE, Plan, Region
from ...numbers import find_numbers
from ...routing.scoring import VISUAL_CONTENT
from ..base import EvidencePageTransform, NotApplicable, TransformContext
from ..functional.asks import (
    SUPPOSED_NOTE,
    counted_by_the_reader,
    counts_parts,
    graphical_ask,
    supposes_a_change,
)
from ..functional.evidence_edits import seal_evidence
from ..functional.pdf_edit import BLACK, redact_rects
from ..functional.pixels import coverage, rect_mask
from ..leftovers import LEFTOVERS_NOTE, compares_names
from ..params import Param
from ..registry import register_transform

#: Rectangles placed at most, whatever the parameters (the top-up always makes progress).
HARD_CAP = 500


@register_transform
class RemoveVisualElement(EvidencePageTransform):
    name = "remove_visual_element"
    version = 26
    declines_questions = (graphical_ask, counts_parts, supposes_a_change)
    family = "evidence_removal"
    constraints = (VISUAL_CONTENT,)
    axis = EVIDENCE
    target = "document"
    seals_related_pages = True
    description = (
        (
            "On each evidence page (and every other page that states the answer), find the"
            " window (45% of the page's width and height) holding the evidence map's places"
            " (where the answer is printed, its row and sentence, the chart holding its label;"
            " the question's anchor words when the answer is computed), else where content is"
            " densest (text-layer words, embedded images and vector drawings, or the rendered"
            " pixels on image-only pages; figures weigh 1.5x text; a mild pull to the page"
            " centre). Random black rectangles go in and around it until they cover 60% of it,"
            " then one more over each statement of the answer still uncovered (over its whole"
            " sentence or table row when the answer is a name), and one over each chart whose"
            " label states a numeric answer (every chart of the page when the answer is"
            " computed from values no page prints, or names what wins a comparison)."
            " Everything under"
            " a rectangle is redacted: text layer, image pixels, vector art. Not applicable"
            " to questions that count (graphical things, parts of the document, or anything"
            " no page prints a number for) or colour or place graphical things: masks leave"
            " the rest to count and the shapes to see; nor when the evidence map finds neither"
            " the answer nor rows it is computed from (a detail of a photo OCR does not read)."
        )
        + LEFTOVERS_NOTE
        + SUPPOSED_NOTE
    )
    params = {
        "n_rects": Param(8, "rectangles placed before the coverage top-up", low=1, high=64),
        "rect_size": Param(
            0.3,
            "typical side of a rectangle as a share of the window's side (each side is drawn"
            " from 0.6x to 1.4x of it)",
            low=0.1,
            high=1.0,
        ),
        "window": Param(
            0.45, "side of the dense window as a share of the page's side", low=0.2, high=1.0
        ),
        "min_coverage": Param(
            0.6, "share of the window the rectangles must cover together", low=0.0, high=1.0
        ),
        "spread": Param(
            0.15,
            "how far outside the window a rectangle's centre may fall, as a share of the"
            " window's size",
            low=0.0,
            high=1.0,
        ),
        "centre_pref": Param(
            0.15,
            "discount of a window's density with its distance from the page centre (0: none)",
            low=0.0,
            high=1.0,
        ),
    }
    intensity_doc = (
        "100 * share of the page's content density (see page_content) under the rectangles,"
        " averaged over evidence pages; on an empty page, the share of its area."
    )

    def plan(self, ctx: TransformContext) -> Plan:
        if ctx.sample.document is not None:
            emap = ctx.evidence()
            reason = counted_by_the_reader(ctx.sample.question, emap.prints_the_count())
            if reason:
                raise NotApplicable(f"the question {reason}: masks leave the rest to count")
            # A held-out reader read "JGE 422" on a brochure photo at 400 dpi: OCR had read
            # it nowhere, and the masks, aimed at the question's words, left the photo.
            if emap.locates_nothing():
                raise NotApplicable(
                    "the evidence map finds the answer nowhere, not even in the OCR of the"
                    " pictures, nor rows it is computed from: a detail of a picture (a"
                    " photo's number plate, a logo) that masks aimed at the question's words"
                    " leave whole"
                )
        return super().plan(ctx)

    def plan_page(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> float:
        content = self.page_content(page, number, ctx)
        emap = ctx.evidence()
        window = densest_window(
            content,
            self.config["window"],
            self.config["window"],
            self.config["centre_pref"],
            aim=emap.aim(number),
        )
        rects, covered = self._place(window, content.rect, ctx.rng)
        names = any(item.kind == "text" for item in emap.items)
        sealed = seal_evidence(rects, emap.evidence(number), content.rect, whole=names)
        rects += sealed
        charts = self._drawn_charts(page, number, ctx)
        rects += charts
        plan.edits.regions.append(
            Region(
                bbox=rect_tuple(window.rect),
                kind="dense_window",
                page=number,
                unit="pt",
                detector=window.detector,
                role=window.role,
            )
        )
        for rect in rects:
            plan.edits.regions.append(
                Region(bbox=rect, kind="mask", page=number, unit="pt", detector="random")
            )
        total = content.mass()
        if total > 0:
            share = content.mass(rects) / total
        else:
            share = float(content.grid.coverage(rects).clip(0, 1).mean())
        if window.detector == "fallback":
            where = "page empty: centred window"
        elif window.detector == "evidence_map":
            places = len(emap.evidence(number))
            aimed = (
                f"{places} place(s) stating the answer"
                if places
                else "the question's anchor words; the answer is printed nowhere"
            )
            where = f"aimed at the evidence map: {aimed}; {window.share:.0%} of the page's content"
        else:
            where = (
                f"{window.role} found by {window.detector},"
                f" {window.share:.0%} of the page's content"
            )
        plan.notes.append(
            f"page {number}: densest window {rect_tuple(window.rect, 0)} ({where});"
            f" {len(rects)} black rectangles cover {covered:.0%} of it"
            f" and {share:.0%} of the page's content"
        )
        if sealed:
            plan.notes.append(
                f"page {number}: {len(sealed)} more rectangle(s) over statements of the answer"
                " the random ones left uncovered"
            )
        if charts:
            plan.notes.append(
                f"page {number}: {len(charts)} chart(s) drawing the answer masked whole: a"
                " masked label leaves the bar, slice or point it labels"
            )
        if covered < self.config["min_coverage"]:
            plan.notes.append(
                f"page {number}: coverage target {self.config['min_coverage']:.0%} not"
                f" reached after {HARD_CAP} rectangles"
            )
        return share

    def _drawn_charts(
        self, page: pymupdf.Page, number: int, ctx: TransformContext
    ) -> list[tuple[float, float, float, float]]:
        """The charts of page ``number`` that draw the answer (:meth:`answer_charts`), as
        masks: a reader read a clock chart's masked slice from its angle (75 degrees, 21%)
        and a bar set's values beside masked labels. For a comparison answered with a name
        ("which segment had the lowest revenue?"), every chart of the page: readers ranked
        the bars the masks left, labelled or not."""
        sample = ctx.sample
        if compares_names(sample.question, sample.answer, sample.answer_format):
            return [rect_tuple(pymupdf.Rect(c)) for c in self.charts(page, number, ctx)]
        if not ctx.evidence().numeric():
            return []
        words = self.page_words(page, number, ctx).words
        labels = [w.bbox for w in words if find_numbers(w.text)]
        answer = [box for mention in ctx.evidence().evidence(number) for box in mention.boxes]
        charts, _ = self.answer_charts(page, number, ctx, labels, answer)
        return [rect_tuple(pymupdf.Rect(chart)) for chart in charts]

    def _place(
        self, window: Window, page_rect: pymupdf.Rect, rng: np.random.Generator
    ) -> tuple[list[tuple[float, float, float, float]], float]:
        """Random rectangles around the window's centre, then top-ups on uncovered points."""
        config = self.config
        box = window.rect
        grow_x, grow_y = config["spread"] * box.width, config["spread"] * box.height
        bounds = pymupdf.Rect(
            box.x0 - grow_x, box.y0 - grow_y, box.x1 + grow_x, box.y1 + grow_y
        ) & pymupdf.Rect(page_rect)
        side_w = config["rect_size"] * box.width
        side_h = config["rect_size"] * box.height

        def make(cx: float, cy: float) -> tuple[float, float, float, float] | None:
            half_w = side_w * rng.uniform(0.6, 1.4) / 2
            half_h = side_h * rng.uniform(0.6, 1.4) / 2
            rect = pymupdf.Rect(cx - half_w, cy - half_h, cx + half_w, cy + half_h) & page_rect
            return None if rect.is_empty else rect_tuple(rect)

        rects: list[tuple[float, float, float, float]] = []
        centre = (box.tl + box.br) * 0.5
        for _ in range(config["n_rects"]):
            cx = float(np.clip(rng.normal(centre.x, 0.3 * box.width), bounds.x0, bounds.x1))
            cy = float(np.clip(rng.normal(centre.y, 0.3 * box.height), bounds.y0, bounds.y1))
            rect = make(cx, cy)
            if rect is not None:
                rects.append(rect)

        # Coverage of the window on a 1 pt raster whose origin is the window's corner.
        shape = (max(1, math.ceil(box.height)), max(1, math.ceil(box.width)))

        def local(rs: list[tuple[float, float, float, float]]) -> list[tuple[float, ...]]:
            return [(r[0] - box.x0, r[1] - box.y0, r[2] - box.x0, r[3] - box.y0) for r in rs]

        covered = coverage(shape, local(rects))
        while covered < config["min_coverage"] and len(rects) < HARD_CAP:
            uncovered = np.flatnonzero(~rect_mask(shape, local(rects)))
            if uncovered.size == 0:
                break
            y, x = divmod(int(uncovered[rng.integers(uncovered.size)]), shape[1])
            rect = make(box.x0 + x + 0.5, box.y0 + y + 0.5)
            if rect is not None:
                rects.append(rect)
            covered = coverage(shape, local(rects))
        return rects, covered

    def apply(self, document: pymupdf.Document, plan: Plan) -> None:
        for number, masks in self.page_regions(plan, "mask").items():
            redact_rects(document[number - 1], [mask.bbox for mask in masks], fill=BLACK)
