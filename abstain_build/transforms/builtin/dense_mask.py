"""Terminal fallback: black masks over the densest content until most of the page is gone."""

from __future__ import annotations

import math

import numpy as np
import pymupdf

from ...content.page_content import DETECTORS, inflate, rect_tuple
from ...media.images import box_mean
from ...model import EVIDENCE, Plan, Region
from ..base import EvidencePageTransform, TransformContext
from ..functional.asks import SUPPOSED_NOTE, counts_structure, graphical_ask, supposes_a_change
from ..functional.evidence_edits import seal_evidence
from ..functional.pdf_edit import BLACK, redact_rects
from ..leftovers import LEFTOVERS_NOTE
from ..params import Param
from ..registry import register_transform

#: Cell labels: which detector made a masked cell count; 0 is a filler cell with no content.
_LABELS = ("fallback", *DETECTORS)
#: Masks overlap their neighbours by this much (points), so no anti-aliased seam shows.
SEAL = 0.5


def cell_runs(selected: np.ndarray, labels: np.ndarray) -> list[tuple[int, int, int, int, int]]:
    """Selected cells as few rectangles (row0, col0, row1, col1, label), half-open.

    Each row is cut into runs of consecutive cells with one label; identical runs on
    consecutive rows are joined into one rectangle.
    """
    rows, cols = selected.shape
    open_runs: dict[tuple[int, int, int], int] = {}
    out: list[tuple[int, int, int, int, int]] = []
    for row in range(rows + 1):
        runs: set[tuple[int, int, int]] = set()
        if row < rows:
            col = 0
            while col < cols:
                if not selected[row, col]:
                    col += 1
                    continue
                start, label = col, int(labels[row, col])
                while col < cols and selected[row, col] and labels[row, col] == label:
                    col += 1
                runs.add((start, col, label))
        for key in sorted(set(open_runs) - runs):
            out.append((open_runs.pop(key), key[0], row, key[1], key[2]))
        for key in sorted(runs):
            open_runs.setdefault(key, row)
    return out


@register_transform
class DenseMask(EvidencePageTransform):
    name = "dense_mask"
    version = 25
    declines_questions = (graphical_ask, counts_structure, supposes_a_change)
    declines_reader_counts = True
    family = "evidence_removal"
    axis = EVIDENCE
    target = "document"
    seals_related_pages = True
    terminal_fallback = True
    description = (
        (
            "Terminal fallback: on each evidence page, black masks over the cells of the content"
            " grid (about 12 pt), densest first (text-layer words, images and drawings, or"
            " rendered pixels on image-only pages), until at least 80% of the content's bounding"
            " box (the whole page if it is blank) is masked, and one more mask over each statement"
            " of the answer left outside them; also on every other page that states the answer."
            " Everything under a mask is redacted: text layer, image pixels, vector art."
            " Not applicable to questions that count, colour or locate graphical things, or count"
            " parts of the document (appendices, sections, steps: the table of contents and the"
            " layout keep the count): the masks' "
            "gaps keep their shapes and colours."
        )
        + LEFTOVERS_NOTE
        + SUPPOSED_NOTE
    )
    params = {
        "min_coverage": Param(
            0.8,
            "share of the content bounding box that must be masked",
            low=0.5,
            high=1.0,
        ),
    }
    intensity_doc = (
        "100 * masked share of the content bounding box (at least min_coverage), averaged"
        " over evidence pages."
    )

    def plan_page(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> float:
        content = self.page_content(page, number, ctx)
        grid = content.grid
        density = content.density
        cells = content.content_cells()
        if cells.any():
            rows, cols = np.nonzero(cells)
            r0, c0, r1, c1 = (
                int(rows.min()),
                int(cols.min()),
                int(rows.max()) + 1,
                int(cols.max()) + 1,
            )
        else:
            r0, c0, r1, c1 = 0, 0, grid.rows, grid.cols
        box = grid.rect(r0, c0, r1, c1)
        box_detector = content.detector_in(box) if cells.any() else None

        # Order the box's cells: densest first, then by the density around them, then by
        # distance to the content's centre of mass (so filler grows around the content),
        # ties broken at random.
        local = density[r0:r1, c0:c1]
        around = box_mean(density, 5)[r0:r1, c0:c1]
        yy, xx = np.mgrid[r0:r1, c0:c1]
        if local.sum() > 0:
            cy = float((yy * local).sum() / local.sum())
            cx = float((xx * local).sum() / local.sum())
        else:
            cy, cx = (r0 + r1 - 1) / 2, (c0 + c1 - 1) / 2
        distance = np.hypot(yy - cy, xx - cx)
        tiebreak = ctx.rng.random(local.shape)
        order = np.lexsort((tiebreak.ravel(), distance.ravel(), -around.ravel(), -local.ravel()))
        n_cells = local.size
        needed = min(n_cells, math.ceil(self.config["min_coverage"] * n_cells - 1e-9))
        selected = np.zeros(n_cells, dtype=bool)
        selected[order[:needed]] = True
        selected = selected.reshape(local.shape)

        # Label each cell with the detector behind most of its density (0: filler).
        channels = np.stack([c[r0:r1, c0:c1] for c in content.channels().values()])
        labels = np.where(local > 0, channels.argmax(axis=0) + 1, 0)

        plan.edits.regions.append(
            Region(
                bbox=rect_tuple(box),
                kind="content_box",
                page=number,
                unit="pt",
                detector=box_detector or "fallback",
                role="content",
            )
        )
        masks = []
        for a, b, c, d, label in cell_runs(selected, labels):
            rect = inflate(grid.rect(r0 + a, c0 + b, r0 + c, c0 + d), SEAL) & content.rect
            masks.append(rect_tuple(rect))
            plan.edits.regions.append(
                Region(bbox=masks[-1], kind="mask", page=number, unit="pt", detector=_LABELS[label])
            )
        sealed = seal_evidence(masks, ctx.evidence().evidence(number), content.rect)
        for rect in sealed:
            masks.append(rect)
            plan.edits.regions.append(
                Region(bbox=rect, kind="mask", page=number, unit="pt", detector="evidence_map")
            )
        if sealed:
            plan.notes.append(
                f"page {number}: {len(sealed)} more mask(s) over statements of the answer"
                " outside the densest cells"
            )
        achieved = needed / n_cells
        total = content.mass()
        share = content.mass(masks) / total if total > 0 else 1.0
        what = (
            f"content box {rect_tuple(box, 0)} ({box_detector})"
            if box_detector
            else "page empty: whole page taken as the content box"
        )
        plan.notes.append(
            f"page {number}: {what}; {needed} of its {n_cells} grid cells masked"
            f" ({achieved:.0%}), densest first, in {len(masks)} rectangles covering"
            f" {share:.0%} of the page's content"
        )
        return achieved

    def apply(self, document: pymupdf.Document, plan: Plan) -> None:
        for number, masks in self.page_regions(plan, "mask").items():
            redact_rects(document[number - 1], [mask.bbox for mask in masks], fill=BLACK)
