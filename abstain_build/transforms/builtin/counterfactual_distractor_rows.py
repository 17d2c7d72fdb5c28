"""Inferential impossibility: a plausible false row in the evidence table, beside the true one."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from decimal import Decimal

import numpy as np
import pymupdf

from ...evidence.policy import ATTRIBUTE
from ...model import EVIDENCE, Plan, Region, TokenEdit
from ...numbers import NumericToken, find_numbers
from ...qc.leak import would_print
from ...rewrites.number_rewrite import plausible_quantity, printed_digits, wrong_quantity
from ...routing.scoring import NEEDS_NUMBERS, NEEDS_TABLE
from ...textregions.table_model import Table, TableCell
from ..base import TransformContext
from ..functional.pdf_edit import normalise_rotation
from ..functional.row_insert import (
    MIN_SQUEEZE,
    RowInsert,
    insert_row_pixels,
    insert_row_text_layer,
    page_obstacles,
    plan_block,
)
from ..functional.text_edits import TextEdit
from ..numeric_pages import NumericPageTransform, rounded, sorted_pages
from ..params import Param
from ..registry import register_transform

_WORD = re.compile(r"[a-z]{3,}")
#: Qualifiers for ``label="variant"``: each reads like a real alternative line item.
QUALIFIERS = ("(restated)", "(adjusted)", "(revised)", "(pro forma)", "(as reported)")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _room(cell: TableCell, row: list[TableCell], leftwards: bool) -> float:
    """How many times its width ``cell``'s new text may take: up to halfway to the next
    cell of its row on the side it grows to (a rule between columns sits there)."""
    x0, _, x1, _ = cell.bbox
    width = max(x1 - x0, 1e-6)
    if leftwards:
        edges = [c.bbox[2] for c in row if c.bbox[2] <= x0 + 0.5 and c is not cell]
        limit = (max(edges) + x0) / 2 if edges else x0 - width
        return max(1.0, (x1 - limit) / width)
    edges = [c.bbox[0] for c in row if c.bbox[0] >= x1 - 0.5 and c is not cell]
    limit = (min(edges) + x1) / 2 if edges else x1 + width
    return max(1.0, (limit - x0) / width)


def _neighbours(column: Sequence[str], index: int, token: NumericToken) -> list[float]:
    """The magnitudes printed in the same place as ``token`` (its ``index``-th quantity)
    by the other cells of its column, where they print the same kind, sign and scale."""
    found = []
    for text in column:
        others = [t for t in find_numbers(text) if t.is_quantity]
        if len(others) <= index:
            continue
        other = others[index]
        digits = printed_digits(other)
        same = (other.kind, other.negative, other.multiplier)
        if digits and same == (token.kind, token.negative, token.multiplier):
            found.append(float(digits.replace(",", "")))
    return found


@register_transform
class CounterfactualDistractorRows(NumericPageTransform):
    #: The gold's value stays on purpose (its attribution is what goes): the gate checks
    #: it is stated nowhere but in the edited table, and only the listed pages are edited.
    evidence_policy = ATTRIBUTE
    edits_statement_pages = False
    name = "counterfactual_distractor_rows"
    version = 14
    family = "inferential_impossibility"
    constraints = (
        NEEDS_TABLE,
        NEEDS_NUMBERS,
    )
    axis = EVIDENCE
    target = "document"
    description = (
        "Insert a false row into the table on the evidence page that prints the gold answer,"
        " right under the row it copies (the one printing the gold answer, else, when the"
        " answer is printed in no table, the labelled row whose label shares most words with"
        " the question; not applicable when no label does): the same label (or the label"
        " with a qualifier such as '(restated)'),"
        " and every value changed in its own format: to a value among those its column"
        " prints (at most 50% away), or, when the column holds too few, by 20-50%."
        " The rows below move down, or"
        " are squeezed when the page has no room, so the table stays legible and on the"
        " page. Text-layer pages get real text; image-only pages are edited in pixels."
    )
    params = {
        "label": Param(
            "copy",
            "the false row's label: copy the true row's, or add a qualifier ('variant')",
            choices=("copy", "variant"),
        ),
        "values": Param(
            "column",
            "where the false values come from: among those the value's column prints"
            " ('column'), else a change of low-high; or always a change of low-high"
            " ('relative')",
            choices=("column", "relative"),
        ),
        "low": Param(
            0.2, "smallest relative change of a value drawn by change", low=0.01, high=0.99
        ),
        "high": Param(0.5, "largest relative change of a value", low=0.01, high=0.99),
    }
    intensity_doc = (
        "100 * mean relative change of the false row's values (capped at 1), averaged over"
        " evidence pages with a table."
    )
    nothing_to_edit = "no table with a row of values on the evidence pages"

    def _gold_row(self, table: Table, number: int, ctx: TransformContext) -> int | None:
        """The body row printing the gold where the evidence map reads it (None: none)."""
        cells = self.gold_cells(table, number, ctx)
        return cells[0][0] if cells else None

    def _template(self, table: Table, ctx: TransformContext) -> int | None:
        """Without the gold in the table: the labelled row of values the question names
        best (its label shares most of the question's words), None when no label shares
        one: a false copy of an unrelated row leaves the answer where it was."""
        rows = [
            i
            for i in table.body_rows()
            if table.row_label(i).strip()
            and any(cell is not None and cell.is_numeric for cell in table.cells[i])
        ]
        question = _words(ctx.sample.question)
        scores = [len(question & _words(table.row_label(i))) for i in rows]
        if not rows or max(scores) == 0:
            return None
        return rows[int(np.argmax(scores))]

    def _false_value(
        self, text: str, column: Sequence[str], ctx: TransformContext
    ) -> tuple[str, list[float]]:
        """``text`` with each of its quantities changed (right to left, offsets stay valid),
        among the values its ``column`` prints when ``values="column"``."""
        gold = self.gold_numbers(ctx)
        changes: list[float] = []
        tokens = [t for t in find_numbers(text) if t.is_quantity]
        for index in reversed(range(len(tokens))):
            token = tokens[index]

            def forbidden(magnitude: Decimal, token=token) -> bool:
                return bool(gold) and would_print(
                    gold, magnitude, token.multiplier, token.kind == "percent"
                )

            rewrite = None
            if self.config["values"] == "column":
                neighbours = _neighbours(column, index, token)
                rewrite = plausible_quantity(
                    token, ctx.rng, neighbours, self.config["high"], forbidden
                )
            if rewrite is None:
                rewrite = wrong_quantity(
                    token, ctx.rng, self.config["low"], self.config["high"], forbidden
                )
            if rewrite is None:
                continue
            text = text[: token.start] + rewrite.text + text[token.end :]
            changes.append(min(abs(rewrite.change), 1.0))
        return text, changes

    def plan_page(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> float:
        read = self.read_tables(page, number, plan, ctx)
        if read is None:
            return 0.0
        words, tables = read
        # The table printing the answer, and its row, when there is one: nothing else.
        gold_rows = [(t, self._gold_row(t, number, ctx)) for t in tables]
        chosen = [(t, r) for t, r in gold_rows if r is not None]
        if not chosen:
            chosen = [(t, self._template(t, ctx)) for t in tables]
        for table, row in chosen:
            if row is None:
                continue
            insert, texts, changes = self._row(page, table, row, words, ctx, above=False)
            if insert.squeeze < MIN_SQUEEZE and row > table.header_rows:
                insert, texts, changes = self._row(page, table, row, words, ctx, above=True)
            if insert.squeeze < MIN_SQUEEZE:
                plan.notes.append(
                    f"page {number}: no room for a row under row {row + 1} of a"
                    f" {table.n_rows}x{table.n_cols} table"
                )
                continue
            self._record(plan, number, words.source, table, row, insert, texts)
            plan.notes[-1] += f"; values changed by {np.mean(changes or [0]):.0%} on average"
            return float(np.mean(changes or [0.0]))
        if tables:
            plan.notes.append(
                f"page {number}: {len(tables)} tables, none with a row printing the answer or"
                " labelled with the question's words that could take a false copy"
            )
        else:
            plan.notes.append(f"page {number}: no table")
        return 0.0

    def _row(self, page, table: Table, row: int, words, ctx: TransformContext, above: bool):
        """The insert for a false copy of ``row``: under it, or ``above`` it (the true row
        and those below then move down and the false one takes its place)."""
        tops = [band[1] for band in table.rows]
        pitches = [b - a for a, b in itertools.pairwise(tops) if b > a]
        pitch = float(np.median(pitches)) if pitches else table.rows[row][3] - table.rows[row][1]
        band = table.rows[row]
        if above:
            previous = table.rows[row - 1]
            start = (previous[3] + band[1]) / 2
            offset = 0.0
        elif row + 1 < table.n_rows:
            start = (band[3] + table.rows[row + 1][1]) / 2
            offset = pitch
        else:
            start = band[3] + max(0.0, pitch - (band[3] - band[1])) / 2
            offset = pitch
        start = min(start, table.bbox[3])
        numeric = set(table.numeric_columns())
        texts: list[str] = []
        changes: list[float] = []
        cells: list[TextEdit] = []
        label_done = False
        present = [cell for cell in table.cells[row] if cell is not None]
        for j, cell in enumerate(table.cells[row]):
            if cell is None:
                continue
            text = cell.text
            if j in numeric or cell.is_numeric:
                column = [
                    other.text
                    for i, other in enumerate(table.column_cells(j))
                    if other is not None and i != row and i >= table.header_rows
                ]
                text, moved = self._false_value(cell.text, column, ctx)
                changes += moved
                align, growth = "right", min(1.5, _room(cell, present, leftwards=True))
            else:
                if not label_done and self.config["label"] == "variant":
                    text = f"{text} {QUALIFIERS[int(ctx.rng.integers(len(QUALIFIERS)))]}"
                label_done = True
                # A copied label takes the true one's width, whatever the font drawing it.
                room = 1.0 if text == cell.text else _room(cell, present, leftwards=False)
                align, growth = "left", min(1.6, room)
            x0, y0, x1, y1 = cell.bbox
            cells.append(
                TextEdit(
                    rect=(x0, y0 + offset, x1, y1 + offset),
                    text=text,
                    align=align,
                    style_rect=cell.bbox,
                    erase=False,
                    growth=growth,
                    like=cell.text,
                )
            )
            texts.append(text)
        obstacles = ctx.inputs.derived(
            ("obstacles", page.number), lambda: page_obstacles(page, [w.bbox for w in words.words])
        )
        block, room = plan_block(page, obstacles, table.bbox, start, pitch)
        if words.source != "text_layer":
            # A scan moves whole: its rules and speckle run past the words' boxes.
            block = (page.rect.x0, block[1], page.rect.x1, block[3])
        return RowInsert(block, pitch, room, tuple(cells)), texts, changes

    def _record(self, plan, number, source, table, row, insert: RowInsert, texts) -> None:
        y0 = min(cell.rect[1] for cell in insert.cells)
        y1 = max(cell.rect[3] for cell in insert.cells)
        new_band = rounded((table.bbox[0], y0, table.bbox[2], y1))
        plan.edits.regions.append(
            Region(
                bbox=new_band,
                kind="inserted_row",
                page=number,
                unit="pt",
                detector=source,
                role="table_row",
            )
        )
        plan.edits.regions.append(
            Region(
                bbox=rounded(insert.block), kind="moved", page=number, unit="pt", detector=source
            )
        )
        self.record_table(plan, number, table, source)
        plan.edits.tokens.append(
            TokenEdit(old="", new=" | ".join(texts), where="page", page=number, bbox=new_band)
        )
        how = "moved down" if insert.squeeze >= 1.0 else f"squeezed to {insert.squeeze:.0%}"
        plan.notes.append(
            f"page {number} ({source}, {table.detector} table {table.n_rows}x{table.n_cols}):"
            f" false row under row {row + 1} ({table.row_label(row)!r}); rows below {how}"
        )
        recorded = {"source": source, "insert": insert.to_json()}
        plan.replay.setdefault("inserts", {})[str(number)] = recorded

    def apply(self, document: pymupdf.Document, plan: Plan) -> None:
        for number, recorded in sorted_pages(plan.replay["inserts"]):
            source, insert = recorded["source"], RowInsert.from_json(recorded["insert"])
            page = document[number - 1]
            normalise_rotation(page)
            if source == "text_layer":
                insert_row_text_layer(page, insert)
            else:
                insert_row_pixels(page, insert)
