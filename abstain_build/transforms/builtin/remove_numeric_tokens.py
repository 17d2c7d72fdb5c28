"""Evidence corruption by erasure: the numbers of the evidence pages disappear into the paper."""

from __future__ import annotations

import re

import numpy as np
import pymupdf

from ...content.page_numbers import PageNumber
from ...evidence.forms import gold_items
from ...evidence.statements import CHART
from ...model import EVIDENCE, Plan
from ...questions.evidence_type import classify_evidence
from ...routing.scoring import NEEDS_NUMBERS
from ...textregions.words import centre_inside
from ..base import NotApplicable, TransformContext
from ..functional.text_edits import TextEdit
from ..leftovers import drawn_answer
from ..numeric_pages import NumericPageTransform
from ..params import Param
from ..registry import register_transform


@register_transform
class RemoveNumericTokens(NumericPageTransform):
    name = "remove_numeric_tokens"
    version = 25
    family = "evidence_corruption"
    constraints = (NEEDS_NUMBERS,)
    axis = EVIDENCE
    target = "document"
    description = (
        "Erase numbers on the evidence pages (tables, chart labels read from the text layer"
        " or by OCR, running text): the ones where the evidence map finds the answer (on the"
        " evidence pages and every other page stating it) always, then random others up to"
        " 95% of them, plus the words of a list's text items (one blank per line, not per"
        " word) and 60% of the other words on the"
        " lines that hold numbers. Each erase is filled with the colour around it (no black"
        " boxes) and, on text-layer pages, redacted from the text layer. Not applicable to"
        " an answer with no number (a name or a phrase erased word by word leaves its"
        " sentence to fill it in), to a count the reader tallies, nor when the answer's"
        " values label a chart (or a computed answer's page charts its values, or a chart"
        " anywhere names the question's terms, its series and periods): the bars,"
        " slices and points they label stay to be measured. Not applicable when the page"
        " the question names is left whole, or when values left give the answer by a sum,"
        " the other slices of its whole or another unit."
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
        items = gold_items(ctx.sample.answer, ctx.sample.answer_format)
        if items and all(item.kind == "text" for item in items):
            raise NotApplicable(
                "the answer is a name or a phrase, no number: erased word by word it leaves"
                " its sentence, and readers fill it in (where Gestalt psychology was"
                " conceived, a governor's name, a case study's title); removal takes the"
                " sentence or the page"
            )
        if _tallied(ctx):
            raise NotApplicable(
                "a count no page prints: the reader counts entries, rows or pictures,"
                " which erasing numbers leaves in place"
            )
        charts = sorted({m.page for m in ctx.evidence().operands if m.form == CHART})
        if charts:
            raise NotApplicable(
                f"a chart on page(s) {charts} draws the values the answer is read or"
                " computed from (it names the question's terms): erasing its"
                " numbers leaves the bars, slices or points to be measured"
            )
        return super().plan(ctx)

    def plan_page(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> float:
        read = self.read_page(page, number, plan, ctx)
        if read is None:
            return 0.0
        source, numbers, words = read
        drawn = _drawn_answer(page, number, numbers, self, ctx)
        if drawn:
            raise NotApplicable(drawn)
        chosen, gold = self.choose(numbers, self.config["numeric_ratio"], ctx, number)
        answer, others = self.words_to_erase(words, numbers, number, ctx)
        edits = [TextEdit(rect=n.rect) for n in chosen]
        for n in chosen:
            self.record_erase(plan, number, source, n.rect, n.text, "number")
        edits += self.erase_answer(plan, number, source, words, answer)
        edits += [TextEdit(rect=w.bbox) for w in others]
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
TALLY_LIMIT = 100


def _tallied(ctx: TransformContext) -> bool:
    """ "How many strengths and weaknesses are mentioned in Appendix C?" (23 and 21) is
    answered by counting the entries, not by reading a number, even where the page also
    prints 23 somewhere: erasing numbers leaves every counted thing in place. So is a count
    no page states and that no printed values compute. A count too large to tally (4,087
    people) is read or computed, and erasing its numbers does take it away."""
    if classify_evidence(ctx.sample.question).label != "Counting":
        return False
    # The gold's counts, as a dataset writes them: "23", or a list "['23', '21']".
    counts = [piece for piece in re.split(r"[\s,\[\]'\"]+", ctx.sample.answer) if piece]
    if counts and all(piece.isdigit() and int(piece) <= TALLY_LIMIT for piece in counts):
        return True
    evidence = ctx.evidence()
    return not evidence.statements() and not evidence.operands


def _drawn_answer(
    page: pymupdf.Page,
    number: int,
    numbers: list[PageNumber],
    transform: RemoveNumericTokens,
    ctx: TransformContext,
) -> str | None:
    """Why erasing the numbers of page ``number`` leaves the answer drawn
    (:func:`..leftovers.drawn_answer`), or None. Readers gave back three erased points of a
    line chart from its gridlines, an erased bar from the others' summing to 100, and a
    clock chart's slice as 100 less the rest."""
    if not transform.gold_numbers(ctx):
        return None
    answer = transform.answer_numbers(numbers, ctx, number)
    # The map's statements too: a label the page's numbers leave out ("1,3" on a slide
    # whose labels use decimal commas) labels its bar all the same.
    stated = ctx.evidence().statements([number])
    spans = [m.span for m in stated]
    charts, computed = transform.answer_charts(
        page, number, ctx, [n.rect for n in numbers] + spans, [n.rect for n in answer] + spans
    )
    if not charts:
        return None
    labelled = [n.text for n in answer if centre_inside(n.rect, charts)]
    labelled += [m.printed for m in stated if centre_inside(m.span, charts)]
    return drawn_answer(number, labelled, computed)
