"""Inferential impossibility: ask about a period the document does not cover."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from ...content.timeref import (
    MONTH_NAME,
    Coverage,
    YearMention,
    coverage,
    find_years,
    mentions_quarter,
    replace_years,
)
from ...evidence.anchors import stems_of
from ...evidence.forms import gold_items
from ...model import EVIDENCE, Plan, TokenEdit
from ...questions.evidence_type import instruction_start
from ...routing.scoring import NEEDS_PERIOD, NEEDS_TIME
from ..base import NotApplicable, QuestionTransform, TransformContext
from ..leftovers import public_filing
from ..params import Param
from ..registry import register_transform

#: Questions whose shifted form has an answer: the first or latest of something in a
#: period the document does not cover is none; a count of things done in it is zero.
_SUPERLATIVE = re.compile(
    r"\b(?:first(?!\s+(?:quarter|half))|earliest|oldest|latest|newest|most recent)\b",
    re.IGNORECASE,
)
_COUNT_OF_DEEDS = re.compile(
    r"\bhow many\b[^?]*\b(?:proposed|published|released|introduced|founded|opened|launched"
    r"|built|created|developed|established|acquired|presented|submitted)\b",
    re.IGNORECASE,
)


#: A year that only dates a thing the question already names: "the document that was
#: revised on May 2010", "the paper by Long Ouyang published in 2022", "the Internet
#: Project July 18-September 30, 2013 tracking survey". Moved, it still points at the one
#: document, paper or survey there is, and readers answer from it.
_DATING_VERB = (
    r"(?:revised|published|issued|released|updated|dated|written|prepared|produced"
    r"|printed|filed|authored|compiled|amended|adopted|approved|signed)"
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATES_A_THING = re.compile(
    rf"\b{_DATING_VERB}\s+(?:(?:in|on|as\s+of|around|during)\s+)?(?:(?:the\s+)?(?:\d{{1,2}}"
    rf"(?:st|nd|rd|th)?\s+(?:of\s+)?)?{_MONTH}\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?)?"
    r"(?:fy\s?)?'?\d{2,4}\b",
    re.IGNORECASE,
)
#: A year naming the survey, report or edition the data comes from, or the election it is
#: about: "2015 National Survey of Latinos", "2022 graduate employment survey", "the 2020
#: election" (moved to 2023, a reader of a report on the 2020 election read a slip and
#: answered from it); up to two words between, none of them
#: a preposition ("November 29, 2012 in the document" dates a visit, not the document).
_SOURCE = (
    r"(?:surveys?|polls?|reports?|study|studies|census|editions?|issues?|papers?|documents?"
    r"|guides?|plans?|brochures?|presentations?|filings?"
    r"|elections?|midterms?|primar(?:y|ies)|caucus(?:es)?|referend(?:um|a))"
)
_NOT_BETWEEN = r"(?!(?:in|of|on|at|for|from|by|to|the|a|an|and|or|with)\b)"
_NAMES_A_SOURCE = re.compile(
    rf"\d{{4}}\b(?:\s+{_NOT_BETWEEN}[A-Za-z][\w-]*){{0,2}}?\s+{_SOURCE}\b", re.IGNORECASE
)

#: A year that is part of a name: an act or rule ("HSCA 2008", "the Companies Act 2013",
#: "Regulations 2014"), a plan or event ("Vision 2030", "Expo 2020"). Moved, it names
#: nothing, and a reader reads it as a slip for the one the document cites. Acronyms that
#: date a period ("FY 2015", "Q3 2019", "YTD 2020") are no names, nor the words of a
#: question written in capitals.
_PERIOD_ACRONYM = (
    r"(?:FY|CY|AY|SY|YTD|MTD|QTD|Q[1-4]|H[12]|AD|BC|BCE|CE"
    r"|IN|OF|ON|AT|BY|TO|FOR|FROM|SINCE|DURING|BEFORE|AFTER|UNTIL|AND|OR|THE|YEAR)"
)
_PART_OF_A_NAME = re.compile(
    rf"\b(?:(?!{_PERIOD_ACRONYM}\b)[A-Z][A-Z&]+\)?|Acts?|Regulations?|Rules|Code|Order|Bill"
    r"|Directive|Convention|Vision|Agenda|Standards?|Edition|Version|Olympics|Cup|Expo)"
    r"\s+\(?\d{4}\b"
)


#: A year that is the base of constant prices: "(2007 $)", "in 2010 dollars", "constant
#: 2015 US$". It is a unit, not a period: moved, the same figures are asked for in another
#: year's prices, and a reader of the table labelled "2007 $" took "2010 $" for a slip.
_PRICE_BASE = re.compile(
    r"\b(?:19|20)\d{2}\s*(?:(?:US\s*)?\$(?!\s*\d)|(?:US\s+|U\.S\.\s+)?dollars?\b|USD\b"
    r"|prices\b)",
    re.IGNORECASE,
)


def price_base(question: str) -> str | None:
    """The words where a year is the base of constant prices ("2007 $"), or None."""
    found = _PRICE_BASE.search(question)
    return " ".join(found.group(0).split()) if found else None


def dates_a_named_thing(question: str) -> str | None:
    """The words where a year only dates the document, paper or plan the question names
    ("revised on May 2010"), the survey or report its data comes from ("2013 tracking
    survey"), or is part of a name ("the HSCA 2008"), or None. A reader told "Who
    produced the document revised on May 2011?" answers from the one document in hand,
    revised May 2010; one asked about "the ... 2017 tracking survey" answers from the
    2013 one."""
    years = find_years(question)
    for pattern in (_DATES_A_THING, _NAMES_A_SOURCE, _PART_OF_A_NAME):
        for match in pattern.finditer(question):
            if any(match.start() <= year.start < match.end() for year in years):
                return " ".join(match.group(0).split())
    return None


#: A day of a month, either way round: "May 1", "March 31st", "31st March", "1 of May".
_DAY_OF_MONTH = re.compile(
    rf"\b(?:(?P<month>{MONTH_NAME})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?"
    rf"|(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month2>{MONTH_NAME}))\b",
    re.IGNORECASE,
)
#: Characters between a day and the year it belongs to ("May 1, 2019", "31 March 2009").
_DAY_REACH = 6


def dated_like_the_document(
    question: str, years: list[YearMention], texts: Sequence[str]
) -> str | None:
    """The question's day and month, when one of its ``years`` completes a date whose day
    and month the document prints (with its own year), or None.

    Held-out readers, asked about "the survey conducted April 25 - May 1, 2019" of a
    report on the April 25 - May 1, 2018 one, or about shares held "as of March 31, 2009"
    in a report "as on 31st March, 2007", took the year for a slip and answered from the
    document: the day names the one survey or balance date there is.
    """
    for year in years:
        before = question[: year.start]
        days = list(_DAY_OF_MONTH.finditer(before))
        if not days or year.start - days[-1].end() > _DAY_REACH:
            continue
        found = days[-1]
        month = (found.group("month") or found.group("month2"))[:3].lower()
        day = int(found.group("day") or found.group("day2"))
        printed = re.compile(
            rf"\b(?:{month}[a-z]*\.?\s+0?{day}(?:st|nd|rd|th)?(?!\d)"
            rf"|0?{day}(?:st|nd|rd|th)?\s+(?:of\s+)?{month}[a-z]*)\b",
            re.IGNORECASE,
        )
        if any(printed.search(text) for text in texts):
            return " ".join(found.group(0).split())
    return None


#: Moving back, the new years and this many before them must be mentioned nowhere: a
#: report whose text names 2000, 2002 and 2004 (a trend chart's axis) has data for 2003
#: even when it reports on 2006-2014.
EARLIER_SERIES = 3

#: A relative clause after a noun ("the city where"), not a question word ("which was").
_RELATIVE = re.compile(r"\b[a-z]+\s+(?:where|which|that|who|whose|whom)\b", re.IGNORECASE)


def determinable(question: str) -> str | None:
    """The words that give the shifted question an answer, if any.

    A superlative counts unless it sits in a relative clause that only says which thing
    is meant, away from the year: "For the city where the first elevator was built, what
    was its population in 2000?" asks about 2000; "first" only picks the city.
    """
    count = _COUNT_OF_DEEDS.search(question)
    if count:
        return count.group(0)
    for part in re.split(r"[,;]", question):
        for match in _SUPERLATIVE.finditer(part):
            describing = _RELATIVE.search(part[: match.start()]) and not find_years(part)
            if not describing:
                return match.group(0)
    return None


#: Question words a page printing a moved year must print too to speak of the asked
#: thing in that year (fewer when the question has fewer).
SUBJECT_WORDS = 2


def printed_with_subject(
    texts: Sequence[str], years: list[int], subject: set[str], stems: Sequence[set[str]]
) -> int | None:
    """The first page (1-based) that prints one of ``years`` and :data:`SUBJECT_WORDS` of
    the question's ``subject`` stems (``stems``: each page's, made once per question), or
    None. A 10-K reporting on 2013-2015 prints 2018 in its table of future lease payments:
    asked "operating leases in FY 2018", readers answered from that row."""
    if not subject:
        return None
    wanted = min(SUBJECT_WORDS, len(subject))
    marks = [re.compile(rf"(?<![\d.,]){year}(?![\d.,]\d)") for year in years]
    for number, (text, words) in enumerate(zip(texts, stems, strict=True), start=1):
        if len(subject & words) >= wanted and any(mark.search(text) for mark in marks):
            return number
    return None


#: Gold kinds a period shift changes: figures, counts, dates.
QUANTITIES = ("number", "year", "date")
#: A name picked by a quantity of the period ("the segment with the lowest revenue",
#: "segments with revenue above $3,000 million"): it changes with the period too.
_COMPARES = re.compile(
    r"\b(?:highest|lowest|largest|smallest|biggest|greatest|most|least|fewest|top|bottom"
    r"|above|below|more|less|higher|lower|exceed\w*|increas\w*|decreas\w*|grew|grow\w*"
    r"|declin\w*|rank\w*)\b",
    re.IGNORECASE,
)


@register_transform
class TemporalDrift(QuestionTransform):
    name = "temporal_drift"
    version = 13
    family = "inferential_impossibility"
    constraints = (NEEDS_TIME, NEEDS_PERIOD)
    axis = EVIDENCE
    target = "question"
    description = (
        "Shift the question's years / fiscal years (and quarters with them) just past the"
        " period the document reports on (the run of years its text mentions often), 1 to 3"
        " years before or after it, onto years it seldom mentions (back in time: onto years"
        " it never mentions, with none of the 3 years before them either, so no trend"
        " series reaches them), keeping their notation"
        " (FY15, 2015). Not applicable to questions whose shifted form has an answer (the"
        " first or latest of something, a count of things done in a year), nor where the"
        ' year only dates what the question names ("the document revised on May 2010")'
        ' or is part of a name ("the HSCA 2008") or the base of constant prices ("2007 $"),'
        ' nor where it completes a date whose day the document prints ("the survey of April'
        ' 25 - May 1, 2019" over the 2018 one: read as a slip),'
        " nor where the answer is a name or a description neither a quantity nor picked by"
        " one (the segment with the lowest revenue is): those rarely change with the period,"
        " and readers gave the document's. A moved year the document prints on a page with"
        " the question's words (a 10-K's future lease payments) is not used; nor is a public"
        " SEC filing (a 10-K) moved at all: its other years are public record too, and readers"
        " gave them from knowledge."
    )
    params = {
        "min_gap": Param(1, "fewest years beyond the period the document covers", low=1, high=50),
        "max_gap": Param(3, "most years beyond the period the document covers", low=1, high=100),
        "direction": Param(
            "any", "move after, before, or either way", choices=("any", "after", "before")
        ),
    }
    intensity_doc = "100 * share of the question's characters that changed."

    def _shifts(self, covered: Coverage, asked: list[int], direction: str) -> list[int]:
        """Shifts moving every asked year just past the period, ``min_gap`` to ``max_gap``
        years beyond it, onto years the document seldom mentions; back in time, onto years
        it never mentions, nor the :data:`EARLIER_SERIES` years before them."""
        low = self.config["min_gap"]
        high = max(low, self.config["max_gap"])
        out = []
        for gap in range(low, high + 1):
            if direction == "after":
                shift = covered.last + gap - min(asked)
            else:
                shift = covered.first - gap - max(asked)
            moved = [year + shift for year in asked]
            if any(covered.covers(year) for year in moved):
                continue
            if direction == "before" and any(
                covered.counts.get(year - back, 0)
                for year in moved
                for back in range(EARLIER_SERIES + 1)
            ):
                continue
            out.append(shift)
        return out

    def plan(self, ctx: TransformContext) -> Plan:
        question = ctx.sample.question
        asked_part = instruction_start(question)
        mentions = [m for m in find_years(question) if m.start < asked_part]
        if not mentions:
            if find_years(question):
                raise NotApplicable(
                    "the question's only years are in its answer-format instruction (an"
                    " example of how to write the answer), not the period it asks about"
                )
            if mentions_quarter(question):
                raise NotApplicable("the question names a quarter but no year to move")
            raise NotApplicable("the question has no year, fiscal year or quarter with a year")
        texts = ctx.inputs.page_texts()
        if not any(text.strip() for text in texts):
            raise NotApplicable(
                "the document has no text layer, so the period it covers cannot be read"
            )
        found = coverage(texts)
        if found is None:
            raise NotApplicable("the document's text mentions no year, so its period is unknown")
        if public_filing(ctx.evidence()):
            raise NotApplicable(
                "the document is a public SEC filing: the company's filings for other years"
                " are public record too, and readers gave their figures from knowledge"
            )
        dating = dates_a_named_thing(question)
        if dating:
            raise NotApplicable(
                f"the year only dates what the question names ('{dating}'): moved, it"
                " still points at the same one, and the answer stays"
            )
        base = price_base(question)
        if base:
            raise NotApplicable(
                f"the year is the base of constant prices ('{base}'), a unit, not a period:"
                " moved, the same figures are asked for in another year's prices, and"
                " readers take it for a slip"
            )
        same_day = dated_like_the_document(question, mentions, texts)
        if same_day:
            raise NotApplicable(
                f"the year completes a date whose day the document prints ('{same_day}'):"
                " moved, it reads as a slip for the document's own date, and readers"
                " answer from it"
            )
        items = gold_items(ctx.sample.answer, ctx.sample.answer_format)
        quantity = any(item.kind in QUANTITIES for item in items)
        if items and not quantity and not _COMPARES.search(question):
            raise NotApplicable(
                "the answer is a name or a description, not a quantity of the period nor"
                " picked by one: moved to another period it is most likely the same (what cost"
                " of sales is made of, how a dividend was paid), and a reader gives the"
                " document's"
            )
        answered_by = determinable(question)
        if answered_by:
            raise NotApplicable(
                f"moved to another period the question still has an answer"
                f" ('{answered_by}': none, or zero)"
            )
        asked = [m.year for m in mentions]
        covered = found.including(asked)
        first, last = covered.first, covered.last
        direction = self.config["direction"]
        if direction == "any":
            direction = "after" if ctx.rng.random() < 0.5 else "before"
        order = [direction, "before" if direction == "after" else "after"]
        if self.config["direction"] != "any":
            order = order[:1]
        subject = set(ctx.evidence().anchors.stems) - {str(year) for year in asked}
        stems = [set(stems_of(text)) for text in texts] if subject else []
        shift = None
        printed_on = None
        for way in order:
            shifts = []
            for candidate in self._shifts(covered, asked, way):
                moved = [year + candidate for year in asked]
                page = printed_with_subject(texts, moved, subject, stems)
                if page is None:
                    shifts.append(candidate)
                else:
                    printed_on = printed_on or page
            if shifts:
                shift = shifts[int(ctx.rng.integers(0, len(shifts)))]
                direction = way
                break
        if shift is None:
            if printed_on is not None:
                raise NotApplicable(
                    f"every period within {self.config['max_gap']} years of {first}-{last} is"
                    f" printed with the question's words (page {printed_on}): the document"
                    " speaks of the asked thing in those years"
                )
            raise NotApplicable(
                f"no period within {self.config['max_gap']} years of {first}-{last} that the"
                " document seldom mentions"
            )
        gap = (min(asked) + shift - last) if direction == "after" else (first - max(asked) - shift)
        new_question, changes = replace_years(question, mentions, shift)
        plan = Plan(
            params={
                **self.config,
                "coverage": [first, last],
                "direction_used": direction,
                "gap_years": gap,
                "shift_years": shift,
            },
            question=new_question,
            mode="rule",
        )
        for mention, new in changes:
            plan.edits.tokens.append(
                TokenEdit(
                    old=mention.text,
                    new=new,
                    where="question",
                    start=mention.start,
                    end=mention.end,
                )
            )
        plan.notes.append(
            f"the document reports on {first}-{last}; question years {sorted(set(asked))}"
            f" moved {shift:+d} to {sorted({y + shift for y in asked})}"
        )
        if covered.outliers:
            plan.notes.append(
                f"years mentioned outside that period, seldom: {list(covered.outliers)}"
            )
        ratio = difflib.SequenceMatcher(a=question, b=new_question, autojunk=False).ratio()
        plan.intensity = 100.0 * (1.0 - ratio)
        return plan
