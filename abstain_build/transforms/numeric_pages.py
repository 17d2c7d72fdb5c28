"""Shared planning of the transforms that edit numbers and tables on evidence pages.

Both number transforms read each evidence page's words once (text layer, else OCR),
find its numbers, pick which to edit (the gold answer's printed numbers always first,
then a random share of the rest), pick some of the other words of the lines that hold
numbers to erase, and record every edit. Applying replays the recorded edits through
:mod:`.functional.text_edits`, in the text layer or in pixels as the page was read.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pymupdf

from ..content.number_roles import STRUCTURE, VALUE
from ..content.page_numbers import PageNumber, page_numbers, words_near_numbers
from ..evidence.forms import GoldItem, gold_items
from ..model import Plan, Region, TokenEdit
from ..numbers import find_numbers
from ..qc.leak import numeric_gold, prints_answer
from ..textregions.pages import PageWords
from ..textregions.table_model import Table
from ..textregions.tables import find_tables
from ..textregions.words import Word, union_box
from .base import EvidencePageTransform, NotApplicable, TransformContext
from .functional.pdf_edit import normalise_rotation
from .functional.text_edits import TextEdit, apply_text_edits


def rounded(box: tuple[float, ...] | list[float]) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = (round(float(v), 2) for v in box)
    return (x0, y0, x1, y1)


class NumericPageTransform(EvidencePageTransform):
    """An evidence-page transform whose edits are numbers and a few words around them."""

    def editable(self, number: PageNumber, ctx: TransformContext) -> bool:
        """Whether this transform may edit ``number`` (all numbers by default)."""
        return True

    def gold_numbers(self, ctx: TransformContext) -> list[GoldItem]:
        """The numbers the gold answer states, with the precision they are printed to."""
        return ctx.inputs.derived(
            "gold_numbers",
            lambda: numeric_gold(ctx.sample.answer, ctx.sample.answer_format),
        )

    def gold_spans(
        self, number: int, ctx: TransformContext, best: bool = False
    ) -> list[tuple[float, ...]]:
        """Where the evidence map reads the gold on page ``number`` (with ``best``, only
        where it reads it best: ``EvidenceMap.best_statements``)."""
        evidence = ctx.evidence()
        found = evidence.best_statements([number]) if best else evidence.statements([number])
        return [m.span for m in found]

    def states_gold(
        self,
        box: tuple[float, ...],
        texts: str,
        number: int,
        ctx: TransformContext,
        spans: list[tuple[float, ...]] | None = None,
    ) -> bool:
        """Does ``texts``, printed at ``box`` on page ``number``, state the gold number where
        the evidence map reads it (``spans``, by default :meth:`gold_spans`)? A stray "6"
        on a page asked "how many" does not."""
        gold = self.gold_numbers(ctx)
        spans = self.gold_spans(number, ctx) if spans is None else spans
        if not gold or not overlaps_any(box, spans):
            return False
        return any(prints_answer(gold, token) for token in find_numbers(texts))

    def gold_cells(self, table: Table, number: int, ctx: TransformContext) -> list[tuple[int, int]]:
        """(row, column) of the body cells of ``table`` printing the answer where the
        evidence map reads it best: "57%" in another table does not print 56.8 when
        "56.82" beside "Self-Ask" does."""
        spans = self.gold_spans(number, ctx, best=True)
        return [
            (row, col)
            for row in range(table.header_rows, table.n_rows)
            for col, cell in enumerate(table.cells[row])
            if cell is not None and self.states_gold(cell.bbox, cell.text, number, ctx, spans)
        ]

    def unread(self, page_words: PageWords, number: int, plan: Plan) -> bool:
        """Note (and return True) when nothing could be read on the page."""
        if page_words.source != "none":
            return False
        plan.notes.append(f"page {number}: no words read ({page_words.reason})")
        plan.extra.setdefault("unread", []).append(f"page {number}: {page_words.reason}")
        return True

    def read_tables(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> tuple[PageWords, list[Table]] | None:
        """The page's words and tables, found once per sample; None when unreadable."""
        words = self.page_words(page, number, ctx)
        if self.unread(words, number, plan):
            return None
        source_page = page if words.source == "text_layer" else None
        tables = ctx.inputs.derived(
            ("tables", number), lambda: find_tables(words.words, source_page)
        )
        return words, tables

    def read_page(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> tuple[str, list[PageNumber], list[Word]] | None:
        """The page's word source, its editable numbers and all its words; None (with a
        note) when nothing can be read on it or it has nothing to edit."""
        words = self.page_words(page, number, ctx)
        if self.unread(words, number, plan):
            return None
        found = ctx.inputs.derived(("page_numbers", number), lambda: page_numbers(page, words))
        # Dates, citation years and names stay, unless the evidence map reads the answer
        # there; page numbers, markers and section numbers always stay: "1., 2., 2." or a
        # page 7 numbered 9 is damage whatever the question asks.
        stating = [m.span for m in ctx.evidence().evidence(number)]
        numbers = [
            n
            for n in found
            if (n.role == VALUE or (n.role not in STRUCTURE and overlaps_any(n.rect, stating)))
            and self.editable(n, ctx)
        ]
        if not numbers:
            plan.notes.append(f"page {number}: {self.no_numbers_note} ({words.source})")
            return None
        return words.source, numbers, words.words

    def choose(
        self,
        numbers: list[PageNumber],
        ratio: float,
        ctx: TransformContext,
        page: int | None = None,
    ) -> tuple[list[PageNumber], int]:
        """The numbers where the evidence map finds the answer on ``page`` (and any other
        printing a gold number), then a random ``ratio`` of all (rounded up)."""
        if page is not None and ctx.evidence().related_only(page):
            ratio = 0.0  # a page printing operand rows only: those numbers, nothing else
        answer = self.answer_numbers(numbers, ctx, page)
        rest = [n for n in numbers if n not in answer]
        want = max(len(answer), int(np.ceil(ratio * len(numbers) - 1e-9)))
        extra = want - len(answer)
        picked = list(answer)
        if extra > 0 and rest:
            order = ctx.rng.permutation(len(rest))[:extra]
            picked += [rest[i] for i in sorted(order)]
        picked.sort(key=lambda n: numbers.index(n))
        return picked, len(answer)

    def answer_numbers(
        self, numbers: list[PageNumber], ctx: TransformContext, page: int | None = None
    ) -> list[PageNumber]:
        """The numbers printing a gold number, and those where the evidence map finds the
        answer on ``page`` (a statement, a candidate, an operand row)."""
        gold = self.gold_numbers(ctx)
        evidence = ctx.evidence().evidence(page) if page is not None else []
        boxes = [box for mention in evidence for box in mention.boxes]
        return [
            n
            for n in numbers
            if (gold and prints_answer(gold, n.placed.token)) or overlaps_any(n.rect, boxes)
        ]

    def answer_words(
        self, words: list[Word], numbers: list[PageNumber], page: int, ctx: TransformContext
    ) -> list[Word]:
        """Words of the page that print a text answer (a name, a phrase), not numbers: an
        answer of numbers only has none (its printings are numbers, left alone where they
        number the document: a list's "3." is no count to erase)."""
        items = gold_items(ctx.sample.answer, ctx.sample.answer_format)
        if items and all(item.kind in ("number", "year") for item in items):
            return []
        numeric = [n.rect for n in numbers]
        boxes = [box for mention in ctx.evidence().evidence(page) for box in mention.boxes]
        return [
            w for w in words if overlaps_any(w.bbox, boxes) and not overlaps_any(w.bbox, numeric)
        ]

    @staticmethod
    def answer_runs(words: list[Word], answer: list[Word]) -> list[list[Word]]:
        """``answer`` in runs of words that follow one another on a line, each erased as
        one box: erased word by word, a name leaves a blank per word, and readers rebuilt
        "Florida Department of Health" from four gaps of the right widths."""
        taken = {id(w) for w in answer}
        lines: dict[tuple[int, int], list[Word]] = {}
        for word in words:
            lines.setdefault((word.block, word.line), []).append(word)
        runs: list[list[Word]] = []
        for line in lines.values():
            run: list[Word] = []
            for word in [*sorted(line, key=lambda w: w.bbox[0]), None]:
                if word is not None and id(word) in taken:
                    run.append(word)
                elif run:
                    runs.append(run)
                    run = []
        return runs

    def erase_answer(
        self,
        plan: Plan,
        number: int,
        source: str,
        words: list[Word],
        answer: list[Word],
    ) -> list[TextEdit]:
        """Edits erasing the words of a text answer, a run of them as one box, recorded."""
        edits = []
        for run in self.answer_runs(words, answer):
            box = union_box([w.bbox for w in run])
            edits.append(TextEdit(rect=box))
            self.record_erase(plan, number, source, box, " ".join(w.text for w in run), "answer")
        return edits

    def words_to_erase(
        self, words: list[Word], numbers: list[PageNumber], page: int, ctx: TransformContext
    ) -> tuple[list[Word], list[Word]]:
        """The words of a text answer on ``page``, and a random ``word_ratio`` of the other
        words on the lines that hold numbers (none of the answer's among them)."""
        answer = self.answer_words(words, numbers, page, ctx)
        if ctx.evidence().related_only(page):
            return answer, []
        taken = {id(w) for w in answer}
        others = self.choose_words(words, numbers, self.config["word_ratio"], ctx)
        return answer, [w for w in others if id(w) not in taken]

    def choose_words(
        self, words: list[Word], numbers: list[PageNumber], ratio: float, ctx: TransformContext
    ) -> list[Word]:
        """A random ``ratio`` of the other words on the lines that hold ``numbers``."""
        near = words_near_numbers(words, numbers)
        count = round(ratio * len(near))
        if count <= 0:
            return []
        order = sorted(ctx.rng.permutation(len(near))[:count])
        return [near[i] for i in order]

    @staticmethod
    def record_table(plan: Plan, number: int, table: Table, detector: str) -> None:
        """Record the table an edit keeps values in (where the gold may stay readable)."""
        plan.edits.regions.append(
            Region(
                bbox=rounded(table.bbox),
                kind="table",
                page=number,
                unit="pt",
                detector=detector,
                role="attribution",
            )
        )

    @staticmethod
    def record_erase(
        plan: Plan, number: int, source: str, box: tuple[float, ...], text: str, role: str
    ) -> None:
        plan.edits.regions.append(
            Region(
                bbox=rounded(box), kind="erase", page=number, unit="pt", detector=source, role=role
            )
        )
        plan.edits.tokens.append(
            TokenEdit(old=text, new="", where="page", page=number, bbox=rounded(box))
        )

    def plan(self, ctx: TransformContext) -> Plan:
        plan = super().plan(ctx)
        if not plan.edits.tokens:
            unread = plan.extra.get("unread")
            if unread:
                raise NotApplicable("no words could be read: " + "; ".join(unread))
            raise NotApplicable(f"{self.nothing_to_edit} ({'; '.join(plan.notes)})")
        return plan

    nothing_to_edit = "no numbers on the evidence pages"
    #: The page note when a page has none of the numbers this transform edits.
    no_numbers_note = "no numbers"

    def apply(self, document: pymupdf.Document, plan: Plan) -> None:
        for number, page_edits in sorted_pages(plan.replay["page_edits"]):
            page = document[number - 1]
            normalise_rotation(page)
            edits = [TextEdit.from_json(edit) for edit in page_edits["edits"]]
            apply_text_edits(page, edits, page_edits["source"])

    @staticmethod
    def add_page_edits(plan: Plan, number: int, source: str, edits: list[TextEdit]) -> None:
        """Record page ``number``'s text edits (read from ``source``) for :meth:`apply`."""
        recorded = {"source": source, "edits": [edit.to_json() for edit in edits]}
        plan.replay.setdefault("page_edits", {})[str(number)] = recorded


def sorted_pages(by_page: dict[str, Any]) -> list[tuple[int, Any]]:
    """A plan's per-page record (keyed by the page number as text, as JSON keys are) in
    page order."""
    return sorted((int(number), value) for number, value in by_page.items())


def overlaps_any(box: tuple[float, ...], others: list[tuple[float, ...]]) -> bool:
    """Does ``box``'s centre fall inside one of ``others`` (or theirs inside it)?"""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for other in others:
        if other[0] <= cx <= other[2] and other[1] <= cy <= other[3]:
            return True
        ox, oy = (other[0] + other[2]) / 2, (other[1] + other[3]) / 2
        if box[0] <= ox <= box[2] and box[1] <= oy <= box[3]:
            return True
    return False
