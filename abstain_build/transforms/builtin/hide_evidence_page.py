"""Evidence removal at page level: hide half the evidence pages, crop the others at the midpoint."""

from __future__ import annotations

import math

import pymupdf

from ...model import EVIDENCE, PageCrop, Plan, Region
from ...routing.features import Features
from ..base import DocumentTransform, NotApplicable, TransformContext
from ..functional.locate import locate_answer
from ..functional.pdf_edit import blank_page, crop_to_half, page_halves
from ..params import Param
from ..registry import register_transform


@register_transform
class HideEvidencePage(DocumentTransform):
    name = "hide_evidence_page"
    family = "evidence_removal"
    axis = EVIDENCE
    target = "document"
    changes_geometry = True
    description = (
        "Blank 50% of the question's evidence pages (at least one; text layer removed too) and"
        " crop each remaining evidence page at its vertical midpoint, dropping the half where the"
        " answer is printed when the text layer shows it."
    )
    params = {
        "hide_fraction": Param(
            0.5, "share of evidence pages blanked (rounded up)", low=0.0, high=1.0
        ),
    }
    intensity_doc = "100 * (hidden pages + cropped pages / 2) / evidence pages."

    def affinity(self, features: Features) -> float:
        """Routing: hiding half the pages matters most when the answer spans several."""
        bonus = 0.1 if features.cross_page else 0.0
        return min(1.0, super().affinity(features) + bonus)

    def plan(self, ctx: TransformContext) -> Plan:
        pages = sorted(ctx.sample.evidence_pages)
        if not pages:
            raise NotApplicable("the sample lists no evidence pages")
        n_hide = min(len(pages), max(1, math.ceil(len(pages) * self.config["hide_fraction"])))
        hidden = sorted(int(p) for p in ctx.rng.choice(pages, size=n_hide, replace=False))
        document = ctx.inputs.document()
        plan = Plan(params=dict(self.config))
        for number in pages:
            page = document[number - 1]
            if number in hidden:
                plan.edits.pages_hidden.append(number)
                plan.edits.regions.append(
                    Region(
                        bbox=tuple(page.rect),
                        kind="page_hidden",
                        page=number,
                        unit="pt",
                        detector="geometry",
                    )
                )
                continue
            kept, reason = self._choose_half(page, ctx)
            removed = page_halves(page)["bottom" if kept == "top" else "top"]
            plan.edits.pages_cropped.append(PageCrop(page=number, kept=kept, reason=reason))
            plan.edits.regions.append(
                Region(
                    bbox=tuple(removed),
                    kind="crop_removed",
                    page=number,
                    unit="pt",
                    detector="geometry",
                )
            )
            plan.notes.append(f"page {number}: kept the {kept} half ({reason})")
        plan.notes.insert(0, f"hid page(s) {hidden} of evidence pages {pages}")
        cropped = len(pages) - len(hidden)
        plan.intensity = 100.0 * (len(hidden) + cropped / 2) / len(pages)
        return plan

    @staticmethod
    def _choose_half(page: pymupdf.Page, ctx: TransformContext) -> tuple[str, str]:
        """Keep the half without the printed answer when the text layer shows where it is."""
        middle = page.rect.y0 + page.rect.height / 2
        hits = locate_answer(page, ctx.sample.answer)
        in_top = any((r.y0 + r.y1) / 2 < middle for r in hits)
        in_bottom = any((r.y0 + r.y1) / 2 >= middle for r in hits)
        if in_top and not in_bottom:
            return "bottom", "answer text found in the top half"
        if in_bottom and not in_top:
            return "top", "answer text found in the bottom half"
        kept = "top" if ctx.rng.random() < 0.5 else "bottom"
        why = "answer text in both halves" if hits else "answer text not located"
        return kept, f"{why}; half chosen at random"

    def apply(self, document: pymupdf.Document, plan: Plan) -> None:
        for number in plan.edits.pages_hidden:
            blank_page(document[number - 1])
        for crop in plan.edits.pages_cropped:
            crop_to_half(document[crop.page - 1], crop.kept)
