"""Evidence corruption by merged columns: the values stay, but not which column they were in."""

from __future__ import annotations

import pymupdf

from ...evidence.policy import ATTRIBUTE
from ...model import EVIDENCE, Plan, Region, TokenEdit
from ...numbers import find_numbers
from ...routing.features import Features
from ...routing.scoring import NEEDS_TABLE
from ...textregions.table_model import Table, TableCell
from ..base import TransformContext
from ..functional.column_rules import removable_rules, remove_rules
from ..functional.pdf_edit import normalise_rotation
from ..functional.text_edits import TextEdit
from ..numeric_pages import NumericPageTransform, rounded, sorted_pages
from ..params import Param
from ..registry import register_transform


def _cells_text(cells: list[TableCell | None]) -> list[str]:
    return [cell.text for cell in cells if cell is not None and cell.text.strip()]


def _values(cell: TableCell | None) -> set[float]:
    """The quantities a cell prints (magnitudes: "(1,234)" and "1,234" are one value)."""
    if cell is None:
        return set()
    return {
        abs(token.scaled_value)
        for token in find_numbers(cell.text)
        if token.is_quantity and token.scaled_value is not None
    }


@register_transform
class ColumnMergeAmbiguity(NumericPageTransform):
    #: The gold's value stays on purpose (its attribution is what goes): the gate checks
    #: it is stated nowhere but in the edited table, and only the listed pages are edited.
    evidence_policy = ATTRIBUTE
    edits_statement_pages = False
    name = "column_merge_ambiguity"
    version = 12
    family = "evidence_corruption"
    constraints = (NEEDS_TABLE,)
    axis = EVIDENCE
    target = "document"
    description = (
        "Find a table on the evidence page (PyMuPDF's ruled tables, or rows and columns of"
        " word boxes from the text layer or OCR), take the column printing the gold answer and"
        " an adjacent numeric column whose value in the answer's row is another number (not"
        " a currency sign, a unit or the same value), and merge them into one: a composite"
        " header 'A / B' and, in every row, the values of both columns in an order drawn at"
        " random per row, so no value can be attributed to its column. Not applicable when"
        " the answer is not printed in a table column or no such neighbour exists."
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

    def _pick(
        self, tables: list[Table], number: int, ctx: TransformContext
    ) -> tuple[Table, int] | str:
        """The table and first column to merge, or why there is none.

        The span holds the column of a cell printing the answer (where the evidence map
        reads it) and neighbours whose value in the answer's row is another number: a
        neighbour repeating the gold, or holding a "$" or a unit, leaves nothing to
        confuse (SPEC 7).
        """
        width = self.config["columns"]
        if not self.gold_numbers(ctx) or not ctx.evidence().statements([number]):
            return "the answer is not printed as a number on this page"
        options: list[tuple[int, int]] = []
        found_gold = False
        for t_index, table in enumerate(tables):
            numeric = set(table.numeric_columns())
            for row, col in self.gold_cells(table, number, ctx):
                found_gold = True
                value = _values(table.cells[row][col])
                for start in range(max(0, col - width + 1), min(col, table.n_cols - width) + 1):
                    span = range(start, start + width)
                    others = [j for j in span if j != col]
                    if all(j in numeric and _values(table.cells[row][j]) - value for j in others):
                        options.append((t_index, start))
        if not options:
            if found_gold:
                return (
                    "no column beside the answer's holds another value in its row"
                    " (a currency sign, a unit or the same value cannot be confused with it)"
                )
            return "the answer is not printed in a table column"
        t_index, start = sorted(set(options))[int(ctx.rng.integers(len(set(options))))]
        return tables[t_index], start

    def plan_page(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> float:
        read = self.read_tables(page, number, plan, ctx)
        if read is None:
            return 0.0
        words, tables = read
        picked = self._pick(tables, number, ctx)
        if isinstance(picked, str):
            plan.notes.append(f"page {number}: {len(tables)} tables; {picked}")
            return 0.0
        table, start = picked
        span = list(range(start, start + self.config["columns"]))
        rules = removable_rules(page, table, span, words.source == "text_layer")
        if isinstance(rules, str):
            plan.notes.append(f"page {number}: {rules}")
            return 0.0
        plan.replay.setdefault("rules", {})[str(number)] = [list(r) for r in rules]
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

    def apply(self, document: pymupdf.Document, plan: Plan) -> None:
        """The rules between the merged columns go first, then the values are rewritten."""
        for number, strips in sorted_pages(plan.replay.get("rules", {})):
            page = document[number - 1]
            normalise_rotation(page)
            remove_rules(page, [tuple(strip) for strip in strips])
        super().apply(document, plan)
