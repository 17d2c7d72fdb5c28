"""Evidence removal by blur: the figures and charts of the evidence pages become unreadable."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pymupdf

from ...media.pdf import DEFAULT_DPI
from ...model import EVIDENCE, Plan, Region
from ..base import DocumentTransform, NotApplicable, TransformContext
from ..functional.page_content import analyse_page, find_figures, normalised_page, rect_tuple
from ..functional.pdf_edit import blur_page, blur_regions
from ..params import Param
from ..registry import register_transform


@register_transform
class BlurFigureRegion(DocumentTransform):
    name = "blur_figure_region"
    family = "evidence_removal"
    axis = EVIDENCE
    target = "document"
    description = (
        "Heavy Gaussian blur (radius 25 px at 144 dpi) over the figure and chart regions of"
        " each evidence page: embedded images, clusters of vector drawings with curves,"
        " diagonals or bar series (tables and rules are not figures), and solid or colourful"
        " pixel blobs on image-only pages; each padded by 12 pt and widened to the words it"
        " holds (axis labels, legends). Text layer and pixels under a region are redacted"
        " and replaced by the blurred pixels. A page with no figure region is blurred whole."
    )
    params = {
        "radius": Param(
            25.0,
            "Gaussian blur radius in pixels at 144 dpi (scaled with the run's dpi)",
            low=1.0,
            high=200.0,
        ),
        "margin": Param(
            12.0, "padding around a figure, in points (takes in axis labels)", low=0.0, high=72.0
        ),
        "min_area": Param(
            0.015,
            "smallest figure, as a share of the page area (logos and icons are skipped)",
            low=0.0,
            high=0.5,
        ),
    }
    intensity_doc = (
        "100 * min(1, radius / 25) * share of the page's content density inside the blurred"
        " regions (1 for a page blurred whole), averaged over evidence pages."
    )

    def plan(self, ctx: TransformContext) -> Plan:
        pages = sorted(set(ctx.sample.evidence_pages))
        if not pages:
            raise NotApplicable("the sample lists no evidence pages")
        dpi = ctx.inputs.limits.dpi
        radius_px = self.config["radius"] * dpi / DEFAULT_DPI
        plan = Plan(params={**self.config, "dpi": dpi, "radius_px": round(radius_px, 3)})
        document = ctx.inputs.document()
        shares: list[float] = []
        for number in pages:
            with normalised_page(document, number) as page:
                content = analyse_page(page)
                figures = find_figures(
                    page,
                    content,
                    min_area=self.config["min_area"],
                    margin=self.config["margin"],
                )
            if not figures:
                plan.edits.regions.append(
                    Region(
                        bbox=rect_tuple(content.rect),
                        kind="blur",
                        page=number,
                        unit="pt",
                        detector="fallback",
                        role="page",
                    )
                )
                plan.notes.append(f"page {number}: no figure region found: whole page blurred")
                shares.append(1.0)
                continue
            rects = []
            for figure in figures:
                rects.append(rect_tuple(figure.rect))
                plan.edits.regions.append(
                    Region(
                        bbox=rects[-1],
                        kind="blur",
                        page=number,
                        unit="pt",
                        detector=figure.detector,
                        role=figure.role,
                    )
                )
                plan.notes.append(
                    f"page {number}: blurred {figure.source} at {rect_tuple(figure.rect, 0)}"
                    f" ({figure.detector})"
                )
            total = content.mass()
            shares.append(content.mass(rects) / total if total > 0 else 1.0)
        strength = min(1.0, self.config["radius"] / 25.0)
        plan.intensity = 100.0 * strength * float(np.mean(shares))
        return plan

    def apply(self, document: pymupdf.Document, plan: Plan) -> None:
        dpi = plan.params["dpi"]
        radius_px = plan.params["radius_px"]
        regions: dict[int, list[Region]] = defaultdict(list)
        for region in plan.edits.regions:
            if region.kind == "blur" and region.page is not None:
                regions[region.page].append(region)
        for number in sorted(regions):
            page = document[number - 1]
            if any(r.role == "page" for r in regions[number]):
                blur_page(page, radius_px, dpi)
            else:
                blur_regions(page, [r.bbox for r in regions[number]], radius_px, dpi)
