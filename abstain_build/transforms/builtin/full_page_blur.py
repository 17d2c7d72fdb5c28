"""Terminal fallback: the whole evidence page blurred, with nothing else left on it."""

from __future__ import annotations

import pymupdf

from ...media.pdf import DEFAULT_DPI
from ...model import EVIDENCE, Plan, Region
from ..base import DocumentTransform, NotApplicable, TransformContext
from ..functional.page_content import rect_tuple
from ..functional.pdf_edit import blur_page
from ..params import Param
from ..registry import register_transform


@register_transform
class FullPageBlur(DocumentTransform):
    name = "full_page_blur"
    family = "evidence_removal"
    axis = EVIDENCE
    target = "document"
    terminal_fallback = True
    description = (
        "Terminal fallback: each evidence page is rendered, emptied (text layer, images,"
        " drawings, links and annotations removed) and replaced by a Gaussian blur of its"
        " rendering, radius 25 px at 144 dpi. Works on any page, blank ones included."
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

    def plan(self, ctx: TransformContext) -> Plan:
        pages = sorted(set(ctx.sample.evidence_pages))
        if not pages:
            raise NotApplicable("the sample lists no evidence pages")
        dpi = ctx.inputs.limits.dpi
        radius_px = self.config["radius"] * dpi / DEFAULT_DPI
        plan = Plan(params={**self.config, "dpi": dpi, "radius_px": round(radius_px, 3)})
        document = ctx.inputs.document()
        for number in pages:
            # page.rect is the visible page, i.e. the page once its rotation is removed.
            rect = document[number - 1].rect
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
        plan.notes.append(
            f"blurred page(s) {pages} whole: radius {radius_px:.1f} px at {dpi} dpi;"
            " text layer, images and drawings removed"
        )
        plan.intensity = 100.0 * min(1.0, self.config["radius"] / 25.0)
        return plan

    def apply(self, document: pymupdf.Document, plan: Plan) -> None:
        for region in plan.edits.regions:
            if region.kind == "blur" and region.page is not None:
                blur_page(document[region.page - 1], plan.params["radius_px"], plan.params["dpi"])
