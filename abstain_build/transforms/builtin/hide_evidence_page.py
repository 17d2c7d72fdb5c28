"""Evidence removal at page level: hide half the evidence pages, crop the others at the
midpoint (in the blank band nearest it, so no line is cut through)."""

from __future__ import annotations

import math

import pymupdf

from ...content.page_content import normalised_page, sample_page_content
from ...evidence.map import EvidenceMap
from ...evidence.statements import TO_REMOVE
from ...model import EVIDENCE, PageCrop, Plan, Region
from ...routing.features import Features
from ..base import DocumentTransform, NotApplicable, TransformContext
from ..functional.asks import counts_document_parts
from ..functional.evidence_edits import seal_related_page
from ..functional.pdf_edit import (
    BLACK,
    blank_page,
    crop_to_half,
    page_halves,
    page_split,
    redact_rects,
)
from ..params import Param
from ..registry import register_transform


@register_transform
class HideEvidencePage(DocumentTransform):
    name = "hide_evidence_page"
    version = 23
    family = "evidence_removal"
    axis = EVIDENCE
    target = "document"
    changes_geometry = True
    #: A document lists its parts elsewhere (contents, list of tables, the parts on other
    #: pages), and a count of mentions is made over every page: hiding some pages leaves
    #: the list, or a smaller count a reader gives with confidence. Things counted on one
    #: page (the bars of its chart) go with the page.
    declines_questions = (counts_document_parts,)
    description = (
        "Blank 50% of the question's evidence pages (at least one; text layer removed too) and"
        " crop each remaining evidence page at its vertical midpoint (moved to the nearest"
        " blank band within 15% of the page's height, so no line of text or chart is cut"
        " through; a page with no such band is blanked), dropping the half where"
        " the evidence map finds the answer stated (for an answer printed nowhere, the rows"
        " it is computed from; for an answer stated nowhere, the half printing more of the"
        " question's words, else the half holding more of the page's content). Every other"
        " page that states the answer counts as an evidence"
        " page; a page with it in both halves is blanked. A page that only prints rows the"
        " answer is computed from gets black rectangles over their numbers. Not applicable"
        " to questions that count the document's parts (appendices, sections, pages) or"
        " mentions, nor to a count no page prints of things a page left whole names"
        " (a summary table listing the quizzes of the hidden units), nor when the page the"
        " question names is left whole."
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
        self.decline_questions(ctx)
        listed = sorted(set(ctx.sample.evidence_pages))
        if not listed:
            raise NotApplicable("the sample lists no evidence pages")
        emap = ctx.evidence()
        # Pages that only print operand rows get those numbers masked, not hidden.
        to_edit = ctx.pages_to_edit()
        related = [p for p in to_edit if emap.related_only(p)]
        pages = [p for p in to_edit if p not in related]
        self.refuse_leftovers(ctx, to_edit)
        document = ctx.inputs.document()
        halves: dict[int, dict[str, pymupdf.Rect]] = {}
        stated: dict[int, set[str]] = {}
        uncut: list[int] = []
        for number in pages:
            with normalised_page(document, number) as page:
                split, clean = page_split(page)
                halves[number] = page_halves(page, split)
            if not clean:
                uncut.append(number)
            middle = halves[number]["top"].y1
            stated[number] = {
                "top" if (box[1] + box[3]) / 2 < middle else "bottom"
                for mention in emap.evidence(number)
                if mention.status in TO_REMOVE
                for box in mention.boxes
            }
        n_hide = min(len(pages), max(1, math.ceil(len(pages) * self.config["hide_fraction"])))
        # A page stating the answer in both halves cannot be cropped clean, nor one whose
        # middle is printed on all across (a chart, a table): hide them first.
        must = [p for p in pages if len(stated[p]) == 2 or p in uncut]
        rest = [p for p in pages if p not in must]
        extra = max(0, n_hide - len(must))
        drawn = ctx.rng.choice(rest, size=min(extra, len(rest)), replace=False) if rest else []
        hidden = sorted({*must, *(int(p) for p in drawn)})
        plan = Plan(params=dict(self.config))
        for number in pages:
            if number in hidden:
                plan.edits.pages_hidden.append(number)
                plan.edits.regions.append(
                    Region(
                        bbox=tuple(halves[number]["top"] | halves[number]["bottom"]),
                        kind="page_hidden",
                        page=number,
                        unit="pt",
                        detector="geometry",
                    )
                )
                continue
            computed = not emap.statements([number]) and bool(stated[number])
            if stated[number]:
                kept, reason = self._choose_half(stated[number], computed)
            else:
                kept, reason = self._fuller_half(number, halves[number], emap, ctx)
            removed = halves[number]["bottom" if kept == "top" else "top"]
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
            cut = halves[number]["top"].y1
            height = halves[number]["bottom"].y1 - halves[number]["top"].y0
            plan.notes.append(
                f"page {number}: kept the {kept} half, cut at {cut / height:.0%} of the page"
                f" ({reason})"
            )
        what = f"evidence pages {listed}"
        if pages != listed:
            others = [p for p in pages if p not in listed]
            what += f" and page(s) {others} also stating the answer or its operands"
        plan.notes.insert(0, f"hid page(s) {hidden} of {what}")
        if len(must) > n_hide:
            plan.notes.insert(
                1,
                f"page(s) {must} state the answer in both halves or have no blank band near"
                " the middle to cut along: all hidden, more than"
                f" {self.config['hide_fraction']:.0%} of the pages",
            )
        for number in related:
            with normalised_page(document, number) as page:
                seal_related_page(number, plan, page.rect, emap.evidence(number))
        cropped = len(pages) - len(hidden)
        plan.intensity = 100.0 * (len(hidden) + cropped / 2) / len(pages)
        self.refuse_leftovers(ctx, to_edit, plan)
        return plan

    @staticmethod
    def _choose_half(stated: set[str], computed: bool) -> tuple[str, str]:
        """Keep the half where the evidence map finds neither the answer nor, for an answer
        printed nowhere, the rows it is computed from (``stated`` is one half)."""
        what = "the rows the answer is computed from are" if computed else "the answer is stated"
        if stated == {"top"}:
            return "bottom", f"{what} in the top half"
        return "top", f"{what} in the bottom half"

    @staticmethod
    def _fuller_half(
        number: int, halves: dict[str, pymupdf.Rect], emap: EvidenceMap, ctx: TransformContext
    ) -> tuple[str, str]:
        """For an answer stated nowhere (counted, read off a figure): drop the half that
        prints more of the question's words, else the one holding more of the page's
        content. A coin toss kept the half holding all of a page's content."""
        middle = halves["top"].y1
        anchors = emap.anchor_boxes.get(number, [])
        top = sum(1 for box in anchors if (box[1] + box[3]) / 2 < middle)
        bottom = len(anchors) - top
        if top != bottom:
            kept = "bottom" if top > bottom else "top"
            dropped = "top" if kept == "bottom" else "bottom"
            return kept, f"the answer is not stated; the question's words are in the {dropped} half"
        document = ctx.inputs.document()
        with normalised_page(document, number) as page:
            content = sample_page_content(ctx.inputs, page, number)
        upper = content.mass([tuple(halves["top"])])
        lower = content.mass([tuple(halves["bottom"])])
        kept = "bottom" if upper >= lower else "top"
        dropped = "top" if kept == "bottom" else "bottom"
        share = max(upper, lower) / (upper + lower) if upper + lower > 0 else 0.5
        return kept, (
            f"the answer is not stated; the {dropped} half holds {share:.0%} of the page's content"
        )

    def apply(self, document: pymupdf.Document, plan: Plan) -> None:
        masks: dict[int, list] = {}
        for region in plan.edits.regions:
            if region.kind == "mask" and region.page is not None:
                masks.setdefault(region.page, []).append(region.bbox)
        for number, rects in masks.items():
            redact_rects(document[number - 1], rects, fill=BLACK)
        for number in plan.edits.pages_hidden:
            blank_page(document[number - 1])
        for crop in plan.edits.pages_cropped:
            crop_to_half(document[crop.page - 1], crop.kept)
