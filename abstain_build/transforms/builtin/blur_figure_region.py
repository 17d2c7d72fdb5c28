"""Evidence removal by blur: the figures and charts of the evidence pages become unreadable."""

from __future__ import annotations

from typing import Any

import numpy as np
import pymupdf

from ...content.figures import Figure, find_figures
from ...content.page_content import PageContent, rect_tuple
from ...evidence.statements import Mention
from ...model import EVIDENCE, Plan, Region
from ...routing.features import Features
from ...routing.scoring import FIGURE_FOUND
from ..base import EvidencePageTransform, TransformContext
from ..functional.asks import (
    BLUR_DECLINES_NOTE,
    SUPPOSED_NOTE,
    counts_structure,
    graphical_ask,
    supposes_a_change,
)
from ..functional.blur import blur_params, blur_strength
from ..functional.evidence_edits import local_regions, uncovered_statements
from ..functional.pdf_edit import blur_page, blur_regions
from ..leftovers import CHARTED_NOTE, LEFTOVERS_NOTE
from ..params import Param
from ..registry import register_transform


def _holds(figures: list[Figure], rect: pymupdf.Rect) -> bool:
    """Do the found figures cover most of ``rect``?"""
    area = rect.width * rect.height
    inside = sum((f.rect & rect).width * (f.rect & rect).height for f in figures)
    return area > 0 and inside >= 0.5 * area


@register_transform
class BlurFigureRegion(EvidencePageTransform):
    name = "blur_figure_region"
    version = 24
    declines_questions = (graphical_ask, counts_structure, supposes_a_change)
    declines_reader_counts = True
    declines_charted_comparisons = True
    family = "evidence_removal"
    constraints = (FIGURE_FOUND,)
    axis = EVIDENCE
    target = "document"
    description = (
        (
            "Heavy Gaussian blur (radius 25 px at 144 dpi) over the figure and chart regions of"
            " each evidence page: embedded images, clusters of vector drawings with curves,"
            " diagonals or bar series (tables and rules are not figures), and solid or colourful"
            " pixel blobs on image-only pages; each padded by 12 pt and widened to the words it"
            " holds (axis labels, legends). Text layer and pixels under a region are redacted"
            " and replaced by the blurred pixels. A page with no figure region is blurred whole."
            " The sentence or table row of every statement of the answer outside the figures"
            " is blurred too, on the evidence pages and on every other page that states it. A"
            ' figure the question names by its caption ("Figure 2", "the figure at the top of'
            ' page N") is blurred even when it is printed as text.'
        )
        + BLUR_DECLINES_NOTE
        + LEFTOVERS_NOTE
        + SUPPOSED_NOTE
        + CHARTED_NOTE
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

    def affinity(self, features: Features) -> float:
        """Routing: a visual question is answered from the figure it blurs."""
        bonus = 0.1 if features.evidence_type == "Visual" else 0.0
        return min(1.0, super().affinity(features) + bonus)

    def plan_params(self, ctx: TransformContext) -> dict[str, Any]:
        return {**self.config, **blur_params(self.config["radius"], ctx.inputs.limits.dpi)}

    def plan_page(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> float:
        content = self.page_content(page, number, ctx)
        figures = find_figures(
            page,
            content,
            min_area=self.config["min_area"],
            margin=self.config["margin"],
        )
        emap = ctx.evidence()
        evidence = emap.evidence(number)
        named = emap.figures.get(number)
        if named is not None and not _holds(figures, pymupdf.Rect(named)):
            figures.append(
                Figure(
                    pymupdf.Rect(named), "evidence_map", "figure", "the figure the question names"
                )
            )
        if number not in ctx.sample.evidence_pages:
            # A page that restates the answer: blur where it does, nothing else.
            return self._blur_statements(number, plan, content, evidence, [])
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
            return 1.0
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
        self._blur_statements(number, plan, content, evidence, rects)
        total = content.mass()
        rects = [tuple(r.bbox) for r in plan.edits.regions if r.page == number]
        return content.mass(rects) / total if total > 0 else 1.0

    def _blur_statements(
        self,
        number: int,
        plan: Plan,
        content: PageContent,
        evidence: list[Mention],
        blurred: list[tuple[float, float, float, float]],
    ) -> float:
        """Blur the sentence or row of every statement no blurred region holds."""
        missed = uncovered_statements(blurred, evidence)
        regions = local_regions(missed, content.rect)
        for box in regions:
            plan.edits.regions.append(
                Region(
                    bbox=box,
                    kind="blur",
                    page=number,
                    unit="pt",
                    detector="evidence_map",
                    role="statement",
                )
            )
        if regions:
            plan.notes.append(
                f"page {number}: blurred {len(regions)} region(s) stating the answer outside"
                " any figure"
            )
        total = content.mass()
        return content.mass(regions) / total if total > 0 and regions else 0.0

    def plan_intensity(self, shares: list[float]) -> float:
        return 100.0 * blur_strength(self.config["radius"]) * float(np.mean(shares))

    def apply(self, document: pymupdf.Document, plan: Plan) -> None:
        dpi = plan.params["dpi"]
        radius = plan.params["radius_px"]
        for number, regions in self.page_regions(plan, "blur").items():
            page = document[number - 1]
            if any(r.role == "page" for r in regions):
                blur_page(page, radius, dpi)
            else:
                blur_regions(page, [r.bbox for r in regions], radius, dpi)
