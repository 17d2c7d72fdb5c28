"""Evidence corruption by merged columns: the values stay, but not which column they were in."""

from __future__ import annotations

import pymupdf

from ...evidence.policy import ATTRIBUTE
from ...model import EVIDENCE, Plan, Region, TokenEdit
from ...qc.leak import prints_answer
from ...routing.features import Features
from ...routing.scoring import NEEDS_TABLE
from ...textregions.tables import Table, TableCell
from ..base import TransformContext
from ..functional.numbers import find_numbers
from ..functional.text_edits import TextEdit
from ..numeric_pages import NumericPageTransform, rounded
from ..params import Param
from ..registry import register_transform


def _cells_text(cells: list[TableCell | None]) -> list[str]:
    return [cell.text for cell in cells if cell is not None and cell.text.strip()]


@register_transform
class ColumnMergeAmbiguity(NumericPageTransform):
    #: The gold's value stays on purpose (its attribution is what goes): the gate checks
    #: it is stated nowhere but in the edited table, and only the listed pages are edited.
    evidence_policy = ATTRIBUTE
    edits_statement_pages = False
    name = "column_merge_ambiguity"
    family = "evidence_corruption"
    constraints = (NEEDS_TABLE,)
    axis = EVIDENCE
    target = "document"
    description = (
        "Find a table on the evidence page (PyMuPDF's ruled tables, or rows and columns of"
        " word boxes from the text layer or OCR), take adjacent numeric columns (the ones"
        " holding the gold answer when it is printed there) and merge them into one: a"
        " composite header 'A / B' and, in every row, the values of both columns in an order"
        " drawn at random per row, so no value can be attributed to its column."
    )
    params = {
        "columns": Param(2, "how many adjacent columns are merged", low=2, high=4),
        "separator": Param(" / ", "what joins the merged headers and values"),
    }
    intensity_doc = "100 * share of the table's numeric columns merged, averaged over pages."
    nothing_to_edit = "no table with adjacent value columns on the evidence pages"

    def affinity(self, features: Features) -> float:
        """Routing: a merge hides which value belongs where: what comparisons need."""
        bonus = 0.1 if features.evidence_type == "Comparative" else 0.0
        return min(1.0, super().affinity(features) + bonus)

    def _pick(self, tables: list[Table], ctx: TransformContext) -> tuple[Table, int] | None:
        """The table and first column to merge: adjacent numeric columns, gold-answer first."""
        width = self.config["columns"]
        gold = self.gold_numbers(ctx)
        options: list[tuple[int, int, int]] = []
        for t_index, table in enumerate(tables):
            numeric = set(table.numeric_columns())
            for start in range(table.n_cols - width + 1):
                span = range(start, start + width)
                if not all(j in numeric for j in span):
                    continue
                holds_gold = bool(gold) and any(
                    prints_answer(gold, token)
                    for j in span
                    for cell in table.column_cells(j)
                    if cell is not None
                    for token in find_numbers(cell.text)
                )
                options.append((0 if holds_gold else 1, t_index, start))
        if not options:
            return None
        best = min(key for key, _, _ in options)
        chosen = [(t, s) for key, t, s in options if key == best]
        t_index, start = chosen[int(ctx.rng.integers(len(chosen)))]
        return tables[t_index], start

    def plan_page(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> float:
        read = self.read_tables(page, number, plan, ctx)
        if read is None:
            return 0.0
        words, tables = read
        picked = self._pick(tables, ctx)
        if picked is None:
            plan.notes.append(
                f"page {number}: {len(tables)} tables, none with"
                f" {self.config['columns']} adjacent value columns"
            )
            return 0.0
        table, start = picked
        span = list(range(start, start + self.config["columns"]))
        separator = self.config["separator"]
        band = (
            min(table.columns[j][0] for j in span),
            max(table.columns[j][2] for j in span),
        )
        edits: list[TextEdit] = []
        for row in range(table.n_rows):
            cells = [table.cells[row][j] for j in span]
            present = [cell for cell in cells if cell is not None]
            if not present:
                continue
            texts = _cells_text(cells)
            if row >= table.header_rows and len(texts) > 1:
                order = ctx.rng.permutation(len(texts))
                texts = [texts[int(i)] for i in order]
            merged = separator.join(texts)
            y0 = min(cell.bbox[1] for cell in present)
            y1 = max(cell.bbox[3] for cell in present)
            for cell in present:
                edits.append(TextEdit(rect=cell.bbox))
            like = max(present, key=lambda cell: len(cell.text))
            edits.append(
                TextEdit(
                    rect=(band[0], y0, band[1], y1),
                    text=merged,
                    align="centre",
                    style_rect=like.bbox,
                    erase=False,
                    growth=1.0,
                    like=like.text,
                )
            )
            old = " | ".join(cell.text for cell in present)
            plan.edits.tokens.append(
                TokenEdit(
                    old=old,
                    new=merged,
                    where="page",
                    page=number,
                    bbox=rounded((band[0], y0, band[1], y1)),
                )
            )
        plan.edits.regions.append(
            Region(
                bbox=rounded((band[0], table.bbox[1], band[1], table.bbox[3])),
                kind="merged_columns",
                page=number,
                unit="pt",
                detector=f"{words.source}+{table.detector}",
                role="table",
            )
        )
        self.record_table(plan, number, table, f"{words.source}+{table.detector}")
        self.add_page_edits(plan, number, words.source, edits)
        headers = [
            " ".join(_cells_text([table.cells[r][j] for r in range(table.header_rows)]))
            for j in span
        ]
        plan.notes.append(
            f"page {number} ({words.source}, {table.detector} table {table.n_rows}x"
            f"{table.n_cols}): merged columns {span[0] + 1}-{span[-1] + 1}"
            f" ({' + '.join(h or '?' for h in headers)}) in {len(plan.edits.tokens)} rows"
        )
        return len(span) / max(len(table.numeric_columns()), len(span))
