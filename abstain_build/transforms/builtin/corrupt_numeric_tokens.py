"""Evidence corruption by wrong values: the numbers stay, printed alike, but are false.

What the edit means depends on how often the page set printed the answer (SPEC 7):

* printed two or more times: each printing gets a different wrong value, so the item
  contradicts itself about the asked quantity: an unanswerable counterpart;
* a printing that could not be rewritten (misread by OCR) is erased: a counterpart too;
* printed once and rewritten to one clean value: the page now answers the question with
  that value. The plan says so (``Plan.new_answer``) and the build keeps the item as an
  answer-changed control, answerable with the new value;
* printed nowhere (computed from values the page prints, all of them now wrong): the
  answer changes to one nobody stated: not applicable;
* a text answer (a name, a label, a yes/no): no value to make wrong. Erasing its words
  from a figure or a list leaves icons, neighbours promoted into its place and other
  namings of it readable; the removal transforms, which seal every statement of the
  answer, take such items: not applicable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

import pymupdf

from ...content.page_numbers import PageNumber, same_line
from ...evidence.forms import gold_items
from ...evidence.recovery import recoveries
from ...model import EVIDENCE, Plan, Region, TokenEdit
from ...numbers import find_numbers
from ...qc.leak import would_print
from ...rewrites.number_rewrite import Rewrite, wrong_quantity, wrong_year
from ...routing.scoring import NEEDS_NUMBERS
from ...textregions.words import share_a_line
from ..base import NotApplicable, TransformContext
from ..functional.answer_change import restated_answer
from ..functional.asks import counts_presented
from ..functional.text_edits import TextEdit, rewrite_edit
from ..leftovers import public_filing
from ..numeric_pages import NumericPageTransform, overlaps_any, rounded
from ..params import Param, ParamError
from ..registry import register_transform

YEAR_KINDS = ("year", "fiscal_year", "year_range")
_ASKS_YEAR = re.compile(
    r"\b(?:which|what|in what|in which)\s+(?:fiscal\s+)?(?:year|years|period)\b|\bwhen\b",
    re.IGNORECASE,
)


def asks_about_years(question: str, answer: str) -> bool:
    """Whether the question is about a year: its gold answer is one, or it asks which/when."""
    tokens = find_numbers(answer.strip())
    if len(tokens) == 1 and tokens[0].kind in YEAR_KINDS:
        return True
    return bool(_ASKS_YEAR.search(question))


def table_rows(numbers: list[PageNumber]) -> list[tuple[float, ...]]:
    """Boxes of the numbers on lines printing two numbers or more: rows of a table."""
    return [
        n.rect for n in numbers if any(o is not n and share_a_line(n.rect, o.rect) for o in numbers)
    ]


@register_transform
class CorruptNumericTokens(NumericPageTransform):
    name = "corrupt_numeric_tokens"
    version = 15
    declines_questions = (counts_presented,)
    #: Whether the original can be recovered decides the outcome (:func:`refuse_recoverable`).
    refuses_leftovers = False
    family = "evidence_corruption"
    constraints = (NEEDS_NUMBERS,)
    axis = EVIDENCE
    target = "document"
    description = (
        "Replace the values of the evidence pages that print the answer (amounts, percents,"
        " multiples; years only when the question asks about a year; numeric_ratio adds the"
        " pages' other values) with wrong values, changed by 20% to 50% up or"
        " down and printed in the same format (separators, decimals, currency, %, scale word,"
        " parentheses), in place with the original's size, colour and alignment (word_ratio"
        " also erases some words on those lines). The printed result never equals the"
        " original nor the gold answer. Text-layer pages get real text (the PDF's text says"
        " the new values); image-only pages are edited in pixels."
        " Not applicable to questions that count parts of the document (charts, tables, pages, "
        "mentions) or what the pages present ('how many QR codes are shown'): wrong digits"
        " leave the count as it was; and on a filing with the SEC it"
        " makes only answer-changed items: its other statements and tables rebuild the"
        " original."
    )
    params = {
        "numeric_ratio": Param(
            0.0,
            "share of the pages' other numbers replaced too (the printings of the answer"
            " always are; off by default: every other value changed is a total that no"
            " longer adds up or a date out of order somewhere else, SPEC 7)",
            low=0.0,
            high=1.0,
        ),
        "low": Param(0.2, "smallest relative change of a value", low=0.01, high=0.99),
        "high": Param(0.5, "largest relative change of a value", low=0.01, high=0.99),
        "word_ratio": Param(
            0.0,
            "share of the other words on lines holding numbers that are erased (the"
            " method's 'some random words'; off by default: every reader takes the holes"
            " for damage, SPEC 7 'no collateral damage')",
            low=0.0,
            high=1.0,
        ),
        "years": Param(
            "auto",
            "corrupt years too: auto (when the question asks about a year), always, never",
            choices=("auto", "always", "never"),
        ),
        "max_year_shift": Param(5, "years move by 1 to this many years", low=1, high=50),
    }
    intensity_doc = (
        "100 * share of the evidence pages' editable numbers replaced, times the mean"
        " relative change of the replaced values (capped at 1)."
    )
    nothing_to_edit = (
        "the answer is printed as a value on no evidence page (one computed from other"
        " values would only get a new value, it would not be taken away)"
    )
    no_numbers_note = "no values to corrupt"

    def __init__(self, **overrides: object) -> None:
        super().__init__(**overrides)
        if self.config["low"] > self.config["high"]:
            raise ParamError(
                f"{self.name}: low ({self.config['low']}) is above high ({self.config['high']})"
            )

    def corrupt_years(self, ctx: TransformContext) -> bool:
        mode = self.config["years"]
        if mode == "auto":
            return asks_about_years(ctx.sample.question, ctx.sample.answer)
        return mode == "always"

    def editable(self, number: PageNumber, ctx: TransformContext) -> bool:
        token = number.placed.token
        if token.is_quantity:
            return True
        return token.kind in YEAR_KINDS and self.corrupt_years(ctx)

    def rewrite(
        self,
        number: PageNumber,
        ctx: TransformContext,
        taken: tuple[str, ...] = (),
        first: bool = False,
    ) -> Rewrite | None:
        """A wrong value for ``number``: never the gold, nor (for another printing of the
        gold) a value restating one already given, so two printings disagree. The first
        printing of the gold only gets smaller: printed once, it becomes the new answer,
        and a part grown past its whole ("advertising" above the marketing it is part of,
        a share above its total) would contradict it."""
        token = number.placed.token
        gold = self.gold_numbers(ctx)
        avoid = [*gold, *(i for text in taken for i in gold_items(text) if i.kind != "text")]
        if token.kind in YEAR_KINDS:
            years = {int(i.number) for i in avoid if i.kind == "year" and i.number is not None}
            return wrong_year(
                token, ctx.rng, self.config["max_year_shift"], lambda year: int(year) in years
            )

        def forbidden(magnitude: Decimal) -> bool:
            return bool(avoid) and would_print(
                avoid, magnitude, token.multiplier, token.kind == "percent"
            )

        return wrong_quantity(
            token, ctx.rng, self.config["low"], self.config["high"], forbidden, downward=first
        )

    def plan_page(
        self, page: pymupdf.Page, number: int, plan: Plan, ctx: TransformContext
    ) -> float:
        read = self.read_page(page, number, plan, ctx)
        if read is None:
            return 0.0
        source, numbers, words = read
        chosen, gold = self.choose(numbers, self.config["numeric_ratio"], ctx, number)
        chosen, aside = self.set_aside_coincidences(chosen, number, ctx)
        if aside:
            plan.notes.append(
                f"page {number}: left {', '.join(repr(n.text) for n in aside)} as printed:"
                " it rounds the answer but is not where a reader finds it"
            )
            gold -= len(aside)
        edits: list[TextEdit] = []
        changes: list[float] = []
        out_of_range = 0
        unsure = 0
        printings: list[Printing] = plan.extra.setdefault("gold_prints", [])
        for item in chosen:
            prints = self.states_gold(item.rect, item.placed.token.text, number, ctx)
            taken = tuple(p.answer for p in printings if p.answer) if prints else ()
            first = prints and not printings
            rewrite = self.rewrite(item, ctx, taken, first) if item.rewritable else None
            if rewrite is None:
                # Misread by OCR (or nothing to rewrite): erased rather than left readable.
                unsure += 1
                edits.append(TextEdit(rect=item.rect))
                self.record_erase(plan, number, source, item.rect, item.text, "number")
                if prints:
                    printings.append(Printing(item.rect, None, erased=True))
                continue
            if prints:
                printings.append(Printing(item.rect, self.restate(item, rewrite.text, ctx)))
            edits.append(rewrite_edit(item, rewrite.text))
            changes.append(min(abs(rewrite.change), 1.0))
            out_of_range += not rewrite.in_range
            plan.edits.regions.append(
                Region(
                    bbox=rounded(item.rect),
                    kind="rewrite",
                    page=number,
                    unit="pt",
                    detector=source,
                    role=item.placed.token.kind,
                )
            )
            plan.edits.tokens.append(
                TokenEdit(
                    old=item.text,
                    new=rewrite.text,
                    where="page",
                    page=number,
                    bbox=rounded(item.rect),
                )
            )
        answer, others = self.words_to_erase(words, numbers, number, ctx)
        # Labels stay: those of the answer's printings (a reader must see which value is
        # asked) and every table row's (a line printing two numbers or more), which a
        # corrupted table still needs to be read at all ("Net additions" is no "Net").
        kept = [p.rect for p in printings] + table_rows(numbers)
        others = [w for w in others if not any(same_line(w, r) for r in kept)]
        # A text answer cannot be made wrong as a number: erased.
        edits += self.erase_answer(plan, number, source, words, answer)
        for word in others:
            edits.append(TextEdit(rect=word.bbox))
            self.record_erase(plan, number, source, word.bbox, word.text, "word")
        self.add_page_edits(plan, number, source, edits)
        note = (
            f"page {number} ({source}): replaced {len(changes)} of {len(numbers)} values"
            f" ({gold} printing the gold answer), erased {len(others)} other words"
        )
        if unsure:
            note += f"; {unsure} values read with low OCR confidence erased instead"
        if out_of_range:
            note += (
                f"; {out_of_range} values too coarse for a 20-50% change at their printed"
                " precision moved to the nearest other value"
            )
        plan.notes.append(note)
        if not changes:
            return 0.0
        return len(changes) / len(numbers) * (sum(changes) / len(changes))

    def set_aside_coincidences(
        self, chosen: list[PageNumber], number: int, ctx: TransformContext
    ) -> tuple[list[PageNumber], list[PageNumber]]:
        """``chosen`` split into the values to corrupt and the printings of the answer a
        reader would not point at (``EvidenceMap.best_statements``): "57%" in an error
        table of a page whose "56.82" beside "Self-Ask" is the asked value. Made wrong, such
        a value is damage to another table, and its disagreeing with the true printing
        is no contradiction about the asked quantity."""
        every = self.gold_spans(number, ctx)
        best = self.gold_spans(number, ctx, best=True)
        aside = [
            n for n in chosen if overlaps_any(n.rect, every) and not overlaps_any(n.rect, best)
        ]
        return [n for n in chosen if n not in aside], aside

    def restate(self, item: PageNumber, new_text: str, ctx: TransformContext) -> str | None:
        """The answer as the rewritten printing ``item`` now states it (None: unknown)."""
        golds = self.gold_numbers(ctx)
        if len(golds) != 1:
            return None
        return restated_answer(ctx.sample.answer, golds[0], item.placed.token, new_text)

    def plan(self, ctx: TransformContext) -> Plan:
        if not answer_is_numeric(ctx):
            raise NotApplicable(
                f"the answer {ctx.sample.answer!r} is no value: it cannot be made wrong as a"
                " number, and erasing its words is the removal transforms' edit"
            )
        plan = super().plan(ctx)
        outcome = settle_answer(plan, len(self.gold_numbers(ctx)))
        filing = public_filing(ctx.evidence()) if outcome != CHANGED else None
        if filing:
            # An answer-changed item of a filing stays: it is read against the recalled
            # figure. A contradiction or an erasure is not: a held-out reader summed the 52
            # state counts of a 10-K to the total its two corrupted printings disagreed about.
            raise NotApplicable(
                f"{filing}; printings that disagree or are erased settle nothing here"
            )
        if outcome == CHANGED and any(
            r.kind == "rewrite" and r.role == "percent" and r.detector != "text_layer"
            for r in plan.edits.regions
        ):
            raise NotApplicable(
                "the answer is a share read from a picture: the other parts of its whole"
                " (a pie's slices, white on colour) may be printed where OCR cannot read"
                " them, and would still add up to the original, so a new value cannot be"
                " shown to stand"
            )
        refuse_recoverable(plan, ctx, outcome)
        return plan


def answer_is_numeric(ctx: TransformContext) -> bool:
    """Whether every item of the gold answer is a number or a year."""
    items = gold_items(ctx.sample.answer, ctx.sample.answer_format)
    return bool(items) and all(item.kind in ("number", "year") for item in items)


@dataclass(frozen=True)
class Printing:
    """One printing of the gold number, and what became of it."""

    rect: tuple[float, float, float, float]
    #: The answer as the new value states it (None: erased, or not restated exactly).
    answer: str | None
    erased: bool = False


#: What a corrupted item became (:func:`settle_answer`).
CONTRADICTED = "contradicted"
ERASED = "erased"
CHANGED = "changed"


def settle_answer(plan: Plan, gold_count: int) -> str:
    """Decide what the corrupted item is (see the module docstring): note a counterpart
    (its printings disagree, or the answer is erased), set ``plan.new_answer`` for an
    answer-changed item, or raise NotApplicable. Returns which of the three it is."""
    printings: list[Printing] = plan.extra.get("gold_prints", [])
    if any(r.role == "answer" and r.kind == "erase" for r in plan.edits.regions):
        plan.notes.append("the answer's words are erased where they were printed: unanswerable")
        return ERASED
    stated = sorted({p.answer for p in printings if p.answer is not None})
    if len(stated) >= 2:
        plan.notes.append(
            f"the answer was printed {len(printings)} times; the printings now disagree"
            f" ({', '.join(stated)}): unanswerable"
        )
        return CONTRADICTED
    if printings and all(p.erased for p in printings):
        plan.notes.append("the answer is erased where it was printed: unanswerable")
        return ERASED
    if not printings:
        raise NotApplicable(
            "the answer is printed nowhere on the edited pages: corrupting the values it is"
            " computed from gives it a new value, it does not take it away"
        )
    if len(stated) == 1 and gold_count == 1:
        plan.new_answer = stated[0]
        plan.notes.append(
            f"the answer now reads {plan.new_answer} wherever it was printed: an"
            " answer-changed item, answerable with the new value"
        )
        return CHANGED
    raise NotApplicable("the answer's new value cannot be restated exactly in its own form")


#: What a recovered original answer does to each kind of corrupted item.
_RECOVERED = {
    CHANGED: "its new value is contradicted",
    ERASED: "it is not gone",
    CONTRADICTED: "a reader settles on it over the printings that now disagree",
}


def refuse_recoverable(plan: Plan, ctx: TransformContext, outcome: str) -> None:
    """Not applicable when the edited item still gives the original answer: a mention
    the edit did not reach, or two values it is computed from (:mod:`...evidence.recovery`).
    A new answer is then contradicted, an erased one not gone, and printings that disagree
    are two misprints of a value the reader can work out (a contribution profit still the
    revenue change plus last year's)."""
    edited: dict[int, list[tuple[float, float, float, float]]] = {}
    for edit in plan.edits.tokens:
        if edit.page is not None and edit.bbox is not None:
            edited.setdefault(edit.page, []).append(edit.bbox)
    found = recoveries(ctx.evidence(), edited, ctx.sample.question)
    if found:
        what = _RECOVERED[outcome]
        shown = "; ".join(r.describe() for r in found[:3])
        raise NotApplicable(f"the original answer can still be read off the item, {what}: {shown}")
