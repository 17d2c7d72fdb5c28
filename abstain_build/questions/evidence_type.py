"""The evidence-type classifier of document questions (A-MMLBD routing), rule based.

Seven types, each with trigger patterns; a question gets the first type, in the tie order
of ``EVIDENCE_TYPES``, whose triggers match. The matched text of every type is recorded,
so a reader sees why a question got its type and what else it would have been.

Decisions:

- Answer-format instructions at the end of a question ("Please write the answer in list
  format, e.g. ["black","red"]", "Round your answer to two decimal places") are not part
  of what the question asks: they are cut off before matching and kept as ``ignored``.
- A question no trigger matches is Extractive (a direct lookup is the commonest document
  question), with every type's match list empty and ``defaulted`` true.
- Aggregation covers values combined into one: sum, total, average, mean (the noun, not
  "what does X mean"), and ratios and margins computed from two quantities.
- Comparative covers comparisons between values or periods: superlatives, "more/less ...
  than", "difference between", "compared to/with", and change words (growth, increase,
  decline, drop) that compare two points in time.
- Visual covers questions about what a figure shows: figure words and colour words
  (without black and white, which name groups of people in survey reports).
- Extractive triggers are direct lookups ("what is/are/was", "who is", "which", "name the",
  "list"); a bare "what" is not one, so a time-qualified question that is not phrased as
  a lookup ("How much did Costco spend on buybacks in FY2021?") is Temporal.
- Temporal triggers are explicit time references (see ``has_time_reference``: FY2020,
  fiscal 2019, Q3 2015, Q3, first quarter, March 2007, the 1990s, years 1900-2099,
  "in 1882") and period phrases (year ended, year-over-year, in the year).
- A capitalised trigger word inside a capitalised phrase is part of a name ("Best Buy",
  "Ranking Prompt Example") and does not count; "at least" and "at most" are not
  comparisons.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: In tie order: a question matching several types gets the first.
EVIDENCE_TYPES: tuple[str, ...] = (
    "Counting",
    "Aggregation",
    "Comparative",
    "Visual",
    "Extractive",
    "Temporal",
    "Descriptive",
)
DEFAULT_TYPE = "Extractive"

_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_YEAR = r"(?:19|20)\d\d"

#: Explicit time references: the ones a temporal transform can shift.
TIME_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"\bF\.?Y\.?\s?'?(?:{_YEAR}|\d\d)\b",  # FY2020, FY 2020, FY'20, FY20
        rf"\bfiscal(?:\s+year)?\s+(?:{_YEAR}|\d\d)\b",  # fiscal 2019, fiscal year 2019
        r"\bfiscal\s+years?\b",  # the fiscal year ending ...
        rf"\b(?:Q[1-4]|H[12])\s?(?:'?\d\d\b|{_YEAR}\b)",  # Q3 2015, Q3'15, H1 2020
        rf"\b{_YEAR}\s?(?:Q[1-4]|H[12])\b",  # 2015 Q3, 2015Q3
        r"\bQ[1-4]\b",  # Q3
        r"\b(?:in|since|by|until|before|after|from|year)\s+1[6-8]\d\d\b",  # in 1882
        r"\b(?:first|second|third|fourth|1st|2nd|3rd|4th)\s+quarters?\b",
        rf"\b{_MONTHS}\.?\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?{_YEAR}\b",  # March 2007
        rf"\b(?:{_YEAR}|'\d\d)s\b",  # the 1990s, the '90s
        rf"(?<![\w$€£#/.])(?<!\d,){_YEAR}(?![\w%/]|[.,]\d|-[A-Za-z])",  # a year 1900-2099
    )
)

_TRIGGERS: dict[str, tuple[str, ...]] = {
    "Counting": (
        r"\bhow\s+many\b",
        r"(?<!\ba\s)(?<!\bpage\s)(?<!\bphone\s)\bnumbers?\s+of\b",
        r"\bcount\s+of\b",
        r"\bhow\s+often\b",
    ),
    "Aggregation": (
        r"\bsum(?:s|med)?\b",
        r"\btotal(?:s|led|ed)?\b",
        r"\baverag(?:e|es|ed|ing)\b",
        r"\b(?:the|a|sample|arithmetic|geometric|weighted)\s+mean\b",
        r"\bmean\s+(?:of|value|score|number|age)\b",
        r"\bcombined\b",
        r"\baltogether\b",
        r"\baggregate[ds]?\b",
        r"\bcumulative\b",
        r"\bratio\b",
        r"\bmargins?\b",
    ),
    "Comparative": (
        r"\b(?:highest|lowest|largest|smallest|biggest|greatest|best|worst"
        r"|longest|shortest|fastest|slowest|earliest|oldest|youngest)\b",
        r"(?<!\bat\s)\b(?:most|least)\b",
        r"\btop\s+(?:\d+|one|two|three|four|five|ten)\b",
        r"\bdifferences?\s+(?:between|in|of)\b",
        r"\b(?:gap|change)\s+between\b",
        r"\bcompar(?:ed|ing|ison)\s+(?:to|with)\b",
        r"\bcompar(?:e|ed|ing|ison)\b",
        r"\b(?:more|less|fewer|greater|larger|smaller|higher|lower|better|worse|bigger"
        r"|older|younger|longer|shorter)\b[^.?!;]{0,60}?\bthan\b",
        r"\b(?:higher|lower|more|less|greater|larger|smaller)\s+or\s+(?:higher|lower|more"
        r"|less|greater|larger|smaller)\b",
        r"\bhow\s+much\s+(?:more|less|higher|lower|greater|larger|smaller|bigger)\b",
        r"\b(?:more|less)\s+likely\b",
        r"\b(?:versus|vs\.?)(?=\s)",
        r"\brank(?:ed|ing|s)?\b",
        r"\b(?:grow|grew|grown|growth|increase[ds]?|decrease[ds]?|decline[ds]?|drop(?:ped|s)?"
        r"|rose|risen|fell|fallen)\b",
        r"\bin\s+common\b",
        r"\boverlap(?:ped|ping|s)?\b",
    ),
    "Visual": (
        r"\b(?:charts?|graphs?|figures?|fig\.|images?|diagrams?|pictures?|photos?"
        r"|photographs?|illustrations?|illustrated|maps?|plots?|logos?|icons?|screenshots?"
        r"|infographics?|flow\s?charts?|drawings?|colou?rs?|colou?red|shapes?"
        r"|illustrat(?:e|es|ing)|depict(?:s|ed|ing)?)\b",
        r"\b(?:red|blue|green|yellow|orange|purple|grey|gray|pink|brown|golden)\b",
    ),
    "Extractive": (
        r"\bwhat(?:'s|\s+(?:is|are|was|were))\b",
        r"\bwho(?:'s|\s+(?:is|are|was|were))\b",
        r"\bwho(?:m|se)\b",
        r"\bwhere\s+(?:is|are|was|were|do|does|did|can)\b",
        r"\bname\s+(?:the|all|of|a|an)\b",
        r"\bwhich\b",
        r"\b(?:list|enumerate|identify)\b",
    ),
    "Temporal": (
        r"\byear[- ]over[- ]year\b",
        r"\byears?\s+end(?:ed|ing)\b",
        r"\bin\s+(?:the\s+)?year\b",
    ),
    "Descriptive": (
        r"\bdescrib(?:e|es|ed|ing)\b",
        r"\bexplain(?:s|ed)?\b",
        r"\bsummari[sz](?:e|es|ed)\b",
        r"\bsummary\b",
        r"\bwhy\b",
        r"\bhow\s+(?:does|do|did|is|are|can|could|should|would)\b",
        r"\b(?:purpose|role|meaning|significance)\s+of\b",
        r"\bwhat\s+(?:does|do|did)\b[^?]*\bmean\b",
        r"\bdiscuss(?:es|ed)?\b",
        r"\belaborate\b",
    ),
}
_COMPILED: dict[str, tuple[re.Pattern[str], ...]] = {
    kind: tuple(re.compile(p, re.IGNORECASE) for p in patterns)
    for kind, patterns in _TRIGGERS.items()
}

#: Where an answer-format instruction starts (at a sentence start, never at the very start).
_INSTRUCTION = re.compile(
    r"(?:(?<=[.?!;])|(?<=\n))\s*(?="
    r"please\b|(?:your|the)\s+answer\b|answer\s+(?:in|with|as|using)\b|round\b|return\s+me\b"
    r"|write\s+(?:down\s+)?(?:the|your)\s+answer\b|give\s+(?:me\s+)?(?:your\s+answer|the\s+answer"
    r"|a\s+(?:ratio|number|rounded))\b|format\b|express\b|save\s+your\b|list\s+the\s+answer\b"
    r"|e\.g\.|for\s+example\b|list\s+(?:all\s+)?(?:of\s+)?them\b"
    r"|[^.?!\n]*?\blike\s*\[)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class EvidenceTypeResult:
    """The evidence type of one question, with every type's matched triggers."""

    label: str
    matches: dict[str, list[str]]
    defaulted: bool = False
    #: The answer-format instruction that was left out of matching ("" when none).
    ignored: str = ""
    mode: str = "rules"
    secondary: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "mode": self.mode,
            "matched": self.matches[self.label],
            "matches": {k: list(v) for k, v in self.matches.items()},
            "secondary": list(self.secondary),
            "defaulted": self.defaulted,
            "ignored": self.ignored,
        }


def instruction_start(question: str) -> int:
    """Where the trailing answer-format instruction starts in ``question`` as given (its
    length when there is none): what follows is how to write the answer, not what is
    asked, and its examples ("a list like ['2006', '2007']") are not the question's."""
    match = _INSTRUCTION.search(question)
    if match is None or not question[: match.start()].strip():
        return len(question)
    return match.start()


def split_instruction(question: str) -> tuple[str, str]:
    """(what is asked, the trailing answer-format instruction or "")."""
    text = " ".join(question.split())
    cut = instruction_start(text)
    return text[:cut].strip(), text[cut:].strip()


def time_references(question: str) -> list[str]:
    """The explicit time references in ``question`` (FY2020, Q3 2015, 2019, the 1990s, ...)."""
    return _find(TIME_PATTERNS, question, names=False)


def has_time_reference(question: str) -> bool:
    """True when the question names a year, fiscal year, quarter, decade or dated month."""
    return bool(time_references(question))


_NEXT_CAPITALIZED = re.compile(r"[\s-]+[A-Z][a-z]")


def _in_name(text: str, match: re.Match[str]) -> bool:
    """A capitalized word followed by another inside a sentence is part of a name
    ("Best Buy", "Ranking Prompt Example"), not a trigger."""
    start = match.start()
    if not text[start].isupper() or not text[:start].strip():
        return False
    if text[:start].rstrip()[-1:] in ".?!:":
        return False
    return _NEXT_CAPITALIZED.match(text, match.end()) is not None


def _find(patterns: tuple[re.Pattern[str], ...], text: str, names: bool = True) -> list[str]:
    """Matched texts in pattern order; a match inside an earlier one's span is not repeated,
    nor (with ``names``) one that is part of a name."""
    found: list[str] = []
    spans: list[tuple[int, int]] = []
    for pattern in patterns:
        for match in pattern.finditer(text):
            if any(start <= match.start() and match.end() <= end for start, end in spans):
                continue
            if names and _in_name(text, match):
                continue
            spans.append(match.span())
            found.append(" ".join(match.group(0).split()))
    return list(dict.fromkeys(found))


def _matches(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for kind in EVIDENCE_TYPES:
        found = [f.lower() for f in _find(_COMPILED[kind], text)]
        if kind == "Temporal":
            found = time_references(text) + found
        out[kind] = list(dict.fromkeys(found))
    return out


def classify_evidence(question: str) -> EvidenceTypeResult:
    """The evidence type of a document question; see the module docstring for the rules."""
    asked, ignored = split_instruction(question)
    matches = _matches(asked)
    hit = [kind for kind in EVIDENCE_TYPES if matches[kind]]
    if not hit:
        return EvidenceTypeResult(DEFAULT_TYPE, matches, defaulted=True, ignored=ignored)
    return EvidenceTypeResult(hit[0], matches, ignored=ignored, secondary=tuple(hit[1:]))
