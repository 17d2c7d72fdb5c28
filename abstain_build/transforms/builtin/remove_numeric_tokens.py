"""Evidence corruption by erasure: the numbers of the evidence pages disappear into the paper."""

from __future__ import annotations

import numpy as np
import pymupdf

from ...evidence.forms import gold_items
from ...model import EVIDENCE, Plan
from ...routing.evidence_type import classify_evidence
from ...routing.scoring import NEEDS_NUMBERS
from ..base import NotApplicable, TransformContext
from ..functional.text_edits import TextEdit
from ..numeric_pages import NumericPageTransform
from ..params import Param
from ..registry import register_transform


@register_transform
class RemoveNumericTokens(NumericPageTransform):
    name = "remove_numeric_tokens"
    family = "evidence_corruption"
    constraints = (NEEDS_NUMBERS,)
    axis = EVIDENCE
    target = "document"
    description = (
        "Erase numbers on the evidence pages (tables, chart labels read from the text layer"
        " or by OCR, running text): the ones where the evidence map finds the answer (on the"
        " evidence pages and every other page stating it) always, then random others up to"
        " 95% of them, plus the words of a text answer and 60% of the other words on the"
        " lines that hold numbers. Each erase is filled with the colour around it (no black"
        " boxes) and, on text-layer pages, redacted from the text layer."
    )
    params = {
        "numeric_ratio": Param(0.95, "share of the pages' numbers erased", low=0.0, high=1.0),
        "word_ratio": Param(
            0.6,
            "share of the other words on lines holding numbers that are erased too",
            low=0.0,
            high=1.0,
        ),
    }
    intensity_doc = "100 * share of the evidence pages' numbers erased."

    def plan(self, ctx: TransformContext) -> Plan:
        if _tallied(ctx):
            raise NotApplicable(
                "a count no page prints: the reader counts entries, rows or pictures,"
                " which erasing numbers leaves in place"
            )
        return super().plan(ctx)

    def plan_page(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> float:
        read = self.read_page(page, number, plan, ctx)
        if read is None:
            return 0.0
        source, numbers, words = read
        chosen, gold = self.choose(numbers, self.config["numeric_ratio"], ctx, number)
        answer, others = self.words_to_erase(words, numbers, number, ctx)
        edits = [TextEdit(rect=n.rect) for n in chosen]
        edits += [TextEdit(rect=w.bbox) for w in answer + others]
        for n in chosen:
            self.record_erase(plan, number, source, n.rect, n.text, "number")
        for word in answer:
            self.record_erase(plan, number, source, word.bbox, word.text, "answer")
        for word in others:
            self.record_erase(plan, number, source, word.bbox, word.text, "word")
        self.add_page_edits(plan, number, source, edits)
        plan.notes.append(
            f"page {number} ({source}): erased {len(chosen)} of {len(numbers)} numbers"
            f" ({gold} printing the gold answer) and {len(others)} other words"
            + (f", and the {len(answer)} words of the answer's text" if answer else "")
        )
        return len(chosen) / len(numbers)

    def plan_intensity(self, shares: list[float]) -> float:
        return 100.0 * float(np.mean(shares))


#: Counts up to this are tallied by a reader (list entries, table rows, icons); larger
#: ones are read or computed from printed values (4,087 people from a share of a sample).
TALLY_LIMIT = 20


def _tallied(ctx: TransformContext) -> bool:
    """ "How many quizzes are there in units 4, 5 and 6?" (2) is answered by counting the
    "Quiz" entries, not by reading a number: when no page states the count and it is
    small enough to tally (or no values it could be computed from are printed), erasing
    numbers leaves every counted thing in place. A row the evidence map takes for an
    operand of such a count ("Franchise 500" beside the quizzes) does not change that."""
    if classify_evidence(ctx.sample.question).label != "Counting":
        return False
    evidence = ctx.evidence()
    if evidence.statements():
        return False
    if not evidence.operands:
        return True
    items = gold_items(ctx.sample.answer, ctx.sample.answer_format)
    return bool(items) and all(
        item.kind == "number"
        and item.number is not None
        and item.number == item.number.to_integral_value()
        and 0 <= item.number <= TALLY_LIMIT
        for item in items
    )
