"""Terminal fallback: the whole evidence page blurred, with nothing else left on it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pymupdf

from ...content.page_content import rect_tuple
from ...model import EVIDENCE, Plan, Region
from ..base import EvidencePageTransform, TransformContext
from ..functional.asks import BLUR_DECLINES_NOTE, counts_structure, graphical_ask
from ..functional.blur import blur_params, blur_strength, radius_px
from ..functional.pdf_edit import BLACK, blur_page, redact_rects
from ..leftovers import CHARTED_NOTE, LEFTOVERS_NOTE
from ..params import Param
from ..registry import register_transform


@register_transform
class FullPageBlur(EvidencePageTransform):
    name = "full_page_blur"
    version = 24
    declines_questions = (graphical_ask, counts_structure)
    declines_reader_counts = True
    declines_charted_comparisons = True
    family = "evidence_removal"
    axis = EVIDENCE
    target = "document"
    seals_related_pages = True
    terminal_fallback = True
    description = (
        (
            "Terminal fallback: each evidence page is rendered, emptied (text layer, images,"
            " drawings, links and annotations removed) and replaced by a Gaussian blur of its"
            " rendering, radius 25 px at 144 dpi. Works on any page, blank ones included. A"
            " page that only prints rows the answer is computed from gets black rectangles over"
            " their numbers instead."
        )
        + BLUR_DECLINES_NOTE
        + LEFTOVERS_NOTE
        + CHARTED_NOTE
    )
    params = {
        "radius": Param(
            25.0,
            "Gaussian blur radius in pixels at 144 dpi (scaled with the run's dpi)",
            low=1.0,
            high=200.0,
        ),
    }
    intensity_doc = "100 * min(1, radius / 25): 100 at the default radius."

    def plan_params(self, ctx: TransformContext) -> dict[str, Any]:
        return {**self.config, **blur_params(self.config["radius"], ctx.inputs.limits.dpi)}

    def plan_page(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> float:
        # The region is the document's own page.rect, the visible page, as it has always
        # been recorded. It is the normalised page's rect except on a rotated page with a
        # crop box, whose crop box PyMuPDF's remove_rotation() drops.
        rect = ctx.inputs.document()[number - 1].rect
        plan.edits.regions.append(
            Region(
                bbox=rect_tuple(rect),
                kind="blur",
                page=number,
                unit="pt",
                detector="geometry",
                role="page",
            )
        )
        return 1.0  # the whole page

    def plan_intensity(self, shares: list[float]) -> float:
        return 100.0 * blur_strength(self.config["radius"]) * float(np.mean(shares))

    def plan(self, ctx: TransformContext) -> Plan:
        plan = super().plan(ctx)
        pages = [r.page for r in plan.edits.regions if r.kind == "blur"]  # one per page
        dpi = plan.params["dpi"]
        plan.notes.append(
            f"blurred page(s) {pages} whole: radius {radius_px(self.config['radius'], dpi):.1f}"
            f" px at {dpi} dpi; text layer, images and drawings removed"
        )
        return plan

    def apply(self, document: pymupdf.Document, plan: Plan) -> None:
        for number, masks in self.page_regions(plan, "mask").items():
            redact_rects(document[number - 1], [mask.bbox for mask in masks], fill=BLACK)
        for region in plan.edits.regions:
            if region.kind == "blur" and region.page is not None:
                blur_page(document[region.page - 1], plan.params["radius_px"], plan.params["dpi"])
