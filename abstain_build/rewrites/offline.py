"""Offline question rewrites: seeded templates built around the question's own parts.

Each transform has a small bank of templates, each with an id. A generator returns every
template that fits the question, in an order drawn from the sample's seed; the caller tries
them one by one until one passes the gates. Fewer and good beats many and odd: a template
is only offered where it gives a sentence a person would write, and a transform with no
such template for a question is not applicable to it.

* **Pointing elsewhere** (:mod:`.anchored`: nonexistent and ambiguous references, missing
  context, impossible tasks): the asking sentence and its options stay; what it is asked
  about becomes a panel or label the image does not print, a region circled in a colour it
  does not have, an earlier version of it that is not shipped, or one pixel of it.
* **Withheld givens** (missing context): a computation loses the sentence stating the
  quantities it needs, when no image prints them.
* **Loosened asks** (multiple correct answers): "which two of the following", "a likely"
  for "the most likely", "an acceptable" for "the best", over at least three options.
* **Restated quantities** (contradictory premise): a given quantity with its unit is stated
  a second time with a different value.

A question about a different phenomenon (image-question mismatch) cannot keep its options
meaningful without knowing the subject: offline it is not applicable; ``--llm`` writes it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..numbers import find_numbers
from ..text.sentences import split_sentences
from .anchored import (
    Anchor,
    ImageFacts,
    chart_like,
    find_anchor,
    front_anchor,
    point_elsewhere,
    table_like,
)
from .grammar import PLACEHOLDER
from .slots import QuestionParts

#: A specific element the image does not have (nonexistent_reference): (id, phrase).
#: A shorter phrase ("part K7 of") keeps within the length gate more often, but moves the
#: embedding too little for the semantic gate (cosine 0.93-0.97 on the fixture questions).
NONEXISTENT = (
    ("panel", "panel ({letter}) of {ref}"),
    ("label", "the part of {ref} labelled {tag}"),
    ("inset", "the inset of {ref} marked {tag}"),
)
NONEXISTENT_TABLE = (
    ("row", "the row of {ref} labelled {tag}"),
    ("column", "column {tag} of {ref}"),
)
NONEXISTENT_CHART = (
    ("curve", "the curve of {ref} labelled {tag}"),
    ("panel", "panel ({letter}) of {ref}"),
)
#: A fabricated marking of the image's own kind (ambiguous_reference): (id, phrase, colour
#: that must be absent from every image).
AMBIGUOUS = (
    ("circled_red", "the region of {ref} circled in red", "red"),
    ("highlighted", "the part of {ref} highlighted in yellow", "yellow"),
    ("green_arrow", "the area of {ref} marked by the green arrow", "green"),
)
#: Something the record does not ship (missing_context): (id, phrase, for tables/charts only).
MISSING = (
    ("earlier_version", "the earlier version of {ref}", False),
    ("last_year", "last year's edition of {ref}", True),
)
#: A task no image supports (impossible_visual_task): (id, lead put before the ask).
IMPOSSIBLE = (
    ("one_pixel", "Using only one pixel of {ref},"),
    ("corner_pixel", "From the top-left pixel of {ref} alone,"),
)
#: A given quantity stated a second time, differently (contradictory_premise).
NUMBER_PREMISES = (
    ("another_source", "Another source gives {wrong} instead of {num}."),
    ("other_records", "Other records give {wrong} instead of {num}."),
)
#: A measured given: a percent, an amount of money, or a number with a unit of measure.
_MEASURE_UNIT = re.compile(
    r"\s?(?:%|(?:k|M|G|m|c|µ|u|n)?(?:m|g|s|N|V|A|W|Pa|J|Hz|L|l|mol|K|Ω|ohms?)"
    r"(?:/(?:s|m|kg|mm|h|min|m\^?[23]|s\^?2))?|°[CF]?|kWh|rpm|ft|in\.|lb|lbs|psi|hp|mph"
    r"|km/h|hours?|minutes?|seconds?|days?|weeks?|months?|years?|dollars|euros|units"
    r"|liters?|litres?|meters?|metres?|grams?|kilograms?|feet|inches|miles|acres)\b",
)
_LETTERS = "fghk"
_TAG_STEMS = ("Q", "K", "R", "Z", "M", "T", "W")
#: A computation's asking sentence: it needs every quantity it was given.
_COMPUTES = re.compile(
    r"^(?:Calculate|Compute|Determine|Find|Estimate|Evaluate|Solve|Use|Using|How (?:much|many|long"
    r"|far|fast)|What (?:is|was|are|were|will be) the (?:value|amount|total|net|present|future"
    r"|cost|price|rate|number|probability|expected|mean|maximum|minimum|magnitude))\b",
    re.IGNORECASE,
)
#: A task or a second sentence inside what the splitter took for one ("... 5 kg/s. Determine").
_TASK_INSIDE = re.compile(
    r"[.?!:]\s+(?:Calculate|Compute|Determine|Find|Estimate|What|Which|How)\b|\?"
)
#: A sentence that leans on the one before it.
_ANAPHOR = re.compile(r"^(?:They|Their|It|Its|Such|The same|Both|Each of them)\b")
_NUMERIC_OPTION = re.compile(r"^[\s$(]*[-+]?\d")


@dataclass(frozen=True)
class Candidate:
    """One rewrite to try: the text, the template it came from, an appended part (if any)."""

    text: str
    template: str
    appended: str | None = None


UNCHECKED = ImageFacts()
Generator = Callable[[QuestionParts, np.random.Generator, ImageFacts], list["Candidate"]]


def _shuffled(items, rng: np.random.Generator):
    return [items[int(i)] for i in rng.permutation(len(items))]


def _absent_tag(parts: QuestionParts, facts: ImageFacts, rng: np.random.Generator) -> str | None:
    """A made-up label ("K7") printed nowhere in the question, its options or its images."""
    seen = " ".join((parts.text, *parts.options))
    for _ in range(20):
        tag = f"{_TAG_STEMS[int(rng.integers(len(_TAG_STEMS)))]}{int(rng.integers(2, 10))}"
        if tag not in seen and not facts.prints(tag):
            return tag
    return None


def _absent_letter(parts: QuestionParts, facts: ImageFacts, rng: np.random.Generator) -> str | None:
    """A panel letter the question, its options and its images do not use."""
    seen = " ".join((parts.text, *parts.options)).lower()
    for letter in _shuffled(_LETTERS, rng):
        if f"{letter})" in seen:  # "(f)" or "f)"
            continue
        if facts.prints(f"({letter})") or facts.prints(letter):
            continue
        return letter
    return None


_LOOKS = re.compile(
    r"<image \d+>|\b(?:shown|depicted|pictured|illustrated|labell?ed|marked|arrow|figure|image"
    r"|picture|photo|graph|chart|plot|table|diagram|circuit|map|painting|drawing|curve|region"
    r"|above|below)\b",
    re.IGNORECASE,
)
_SHOWN_DATA = re.compile(r"\b(?:as shown|shown (?:in|below|above)|the data above|as follows)\b")


def needs_its_image(parts: QuestionParts) -> bool:
    """Whether the question depends on its image (the dependency heuristic says Essential or
    Exclusive). Pointing a question that knowledge or its own text answers at a panel
    that does not exist leaves it answerable: the reader answers anyway."""
    from ..questions.dependency import classify_heuristic

    if not parts.placeholders:
        return False
    result = classify_heuristic(parts.text, parts.options, len(set(parts.placeholders)))
    if result.label not in ("Essential", "Exclusive"):
        return False
    # The ask itself must look at the image: an image word or reference in it, or data the
    # question says are shown. A vignette asked after its image is answered from the text
    # ("this infant", "why is this an emergency": "this" is no look at the image).
    return bool(_LOOKS.search(parts.ask) or _SHOWN_DATA.search(parts.text))


def _looking_anchor(parts: QuestionParts, find=find_anchor) -> Anchor | None:
    """Where to point a question that looks at its image elsewhere (None: it does not look
    at its image, or has no place for a phrase)."""
    return find(parts) if needs_its_image(parts) else None


def _pointing(parts: QuestionParts, anchor: Anchor, phrase: str, template_id: str) -> Candidate:
    return Candidate(
        point_elsewhere(parts, anchor, lambda ref: phrase.format(ref=ref)), template_id
    )


def nonexistent_reference(
    parts: QuestionParts, rng: np.random.Generator, facts: ImageFacts = UNCHECKED
) -> list[Candidate]:
    anchor = _looking_anchor(parts)
    if anchor is None:
        return []
    ref = anchor.ref or "the image"
    bank = (
        NONEXISTENT_TABLE
        if table_like(ref)
        else NONEXISTENT_CHART
        if chart_like(ref)
        else NONEXISTENT
    )
    out = []
    for template_id, template in _shuffled(bank, rng):
        values = {"ref": "{ref}"}
        if "{tag}" in template:
            values["tag"] = _absent_tag(parts, facts, rng)
        if "{letter}" in template:
            values["letter"] = _absent_letter(parts, facts, rng)
        if None in values.values():
            continue
        phrase = template.format(**values)
        out.append(_pointing(parts, anchor, phrase, f"nonexistent_reference/{template_id}"))
    return out


def ambiguous_reference(
    parts: QuestionParts, rng: np.random.Generator, facts: ImageFacts = UNCHECKED
) -> list[Candidate]:
    anchor = _looking_anchor(parts)
    if anchor is None:
        return []
    return [
        _pointing(parts, anchor, phrase, f"ambiguous_reference/{template_id}")
        for template_id, phrase, colour in _shuffled(AMBIGUOUS, rng)
        if colour not in facts.colours
    ]


def missing_context(
    parts: QuestionParts, rng: np.random.Generator, facts: ImageFacts = UNCHECKED
) -> list[Candidate]:
    out = _withheld_givens(parts, facts)
    anchor = _looking_anchor(parts)
    if anchor is not None:
        ref = anchor.ref or "the image"
        for template_id, phrase, data_only in _shuffled(MISSING, rng):
            if data_only and not (table_like(ref) or chart_like(ref)):
                continue
            out.append(_pointing(parts, anchor, phrase, f"missing_context/{template_id}"))
    return out


def _computes(parts: QuestionParts) -> bool:
    """Whether the question asks for a computation (its ask, or mostly numeric options)."""
    numeric_options = sum(bool(_NUMERIC_OPTION.match(o)) for o in parts.options)
    return bool(_COMPUTES.match(parts.ask)) or numeric_options * 2 > max(1, len(parts.options))


def _withheld_givens(parts: QuestionParts, facts: ImageFacts) -> list[Candidate]:
    """The computation without every context sentence that states a measured given no
    image prints: which of them the answer needs cannot be told offline, so all go."""
    if not parts.context or not _computes(parts):
        return []
    dropped: list[tuple[int, int]] = []
    cursor = 0
    sentences = split_sentences(parts.context)
    for index, sentence in enumerate(sentences):
        start = parts.text.find(sentence, cursor)
        if start < 0:
            return []
        end = cursor = start + len(sentence)
        givens = _givens(sentence)
        if not givens:
            continue
        if "<image" in sentence or _TASK_INSIDE.search(sentence):
            return []  # it also holds the image or a task: dropping it loses more
        if any(facts.prints(t.text) for t in givens):
            return []  # the image restates it
        following = sentences[index + 1] if index + 1 < len(sentences) else parts.ask
        if _ANAPHOR.match(following):
            return []
        dropped.append((start, end))
    if not dropped:
        return []
    text = parts.text
    for start, end in reversed(dropped):
        text = text[:start] + text[end:]
    return [Candidate(" ".join(text.split()), "missing_context/withheld_givens")]


def impossible_visual_task(
    parts: QuestionParts, rng: np.random.Generator, facts: ImageFacts = UNCHECKED
) -> list[Candidate]:
    anchor = _looking_anchor(parts, front_anchor)
    if anchor is None:
        return []
    return [
        Candidate(
            point_elsewhere(parts, anchor, str, lead=lead.format(ref=anchor.ref)),
            f"impossible_visual_task/{template_id}",
        )
        for template_id, lead in _shuffled(IMPOSSIBLE, rng)
    ]


def image_question_mismatch(
    parts: QuestionParts, rng: np.random.Generator, facts: ImageFacts = UNCHECKED
) -> list[Candidate]:
    """Not offline: see the module docstring."""
    return []


def multiple_correct(
    parts: QuestionParts, rng: np.random.Generator, facts: ImageFacts = UNCHECKED
) -> list[Candidate]:
    """Not offline: see :data:`OFFLINE_UNAVAILABLE`."""
    return []


def contradictory_premise(
    parts: QuestionParts, rng: np.random.Generator, facts: ImageFacts = UNCHECKED
) -> list[Candidate]:
    """A sentence after the one stating a quantity the answer needs, stating it differently."""
    from .number_rewrite import wrong_quantity

    out: list[Candidate] = []
    if not _computes(parts):
        return []
    measured = [t for t in parts.numbers if _measured(parts.text, t)]
    ask_start = parts.ask_start
    in_ask = [t for t in measured if t.start >= ask_start]
    # Which given the answer needs cannot be told offline: a condition of the ask itself,
    # or the question's only measured given.
    givens = _givens(parts.text)
    chosen = in_ask or (measured if len(measured) == 1 and len(givens) == 1 else [])
    for token in chosen[:2]:
        rewrite = wrong_quantity(token, rng)
        if rewrite is None:
            continue
        # After the sentence stating it; before the ask when the ask states it.
        end = ask_start if token.start >= ask_start else _sentence_end(parts.text, token.end)
        if end is None:
            continue
        for template_id, template in _shuffled(NUMBER_PREMISES, rng)[:1]:
            unit = _unit_after(parts.text, token)
            premise = template.format(num=token.text + unit, wrong=rewrite.text + unit)
            text = f"{parts.text[:end]} {premise} {parts.text[end:]}"
            out.append(Candidate(" ".join(text.split()), f"contradictory_premise/{template_id}"))
    return out


def _measured(text: str, token) -> bool:
    """A given worth withholding or contradicting: money, a percent, a unit of measure;
    not a count ("5 regions"), a label ("Job 10") or a number inside a formula."""
    if _in_formula(text, token):
        return False
    if token.kind == "percent" or token.currency:
        return True
    return bool(_MEASURE_UNIT.match(text, token.end))


def _in_formula(text: str, token) -> bool:
    """A number of a formula: "$5$", "x_1", "10^{3}", or one after a dollar sign that
    closes a formula ("P(x $\\ge $ 5)": not five dollars)."""
    before = text[max(0, token.start - 1) : token.start]
    if before in ("_", "^", "{") or text[token.end : token.end + 1] in ("$", "}"):
        return True
    dollar = text.find("$", token.start, token.end)
    if dollar < 0:
        return False
    opened = text.rfind("$", 0, dollar)
    return text.count("$", 0, dollar) % 2 == 1 and "\\" in text[opened:dollar]


_LABEL_BEFORE = re.compile(r"\b[A-Z][a-z]*\.?\s*$")


def _label(text: str, token) -> bool:
    """A number naming something: "Job 10", "Table 8.5", "Case 2"."""
    if token.kind == "percent" or token.currency:
        return False
    return bool(_LABEL_BEFORE.search(text, 0, token.start))


def _givens(text: str) -> list:
    """Every quantity ``text`` states outside formulas, labels and placeholders ("77,321
    dallors" too)."""
    bare = PLACEHOLDER.sub(lambda m: " " * len(m.group()), text)
    return [
        t
        for t in find_numbers(bare)
        if t.is_quantity and not _in_formula(bare, t) and not _label(bare, t)
    ]


def _unit_after(text: str, token) -> str:
    """The unit written after a number ("3000" of "3000 N/mm" -> " N/mm"), if any."""
    if token.kind == "percent" or token.currency:
        return ""
    match = re.compile(r"\s?[A-Za-zµ°Ω][\w°/^]*").match(text, token.end)
    return match.group() if match and _MEASURE_UNIT.match(text, token.end) else ""


def _sentence_end(text: str, at: int) -> int | None:
    """Where the sentence holding position ``at`` ends (after its full stop), if it is
    not the asking sentence's question mark."""
    match = re.compile(r"[.;](?=\s+[A-Z<]|\s*$)").search(text, at)
    if match is None or "?" in text[at : match.start()]:
        return None
    return match.end()


GENERATORS: dict[str, Generator] = {
    "image_question_mismatch": image_question_mismatch,
    "missing_context": missing_context,
    "impossible_visual_task": impossible_visual_task,
    "nonexistent_reference": nonexistent_reference,
    "ambiguous_reference": ambiguous_reference,
    "multiple_correct_answers": multiple_correct,
    "contradictory_premise": contradictory_premise,
}
#: Why a generator with no offline form returns nothing.
OFFLINE_UNAVAILABLE = {
    "multiple_correct_answers": (
        "no offline form: making a second option defensible means naming the two conventions"
        " or constraints that lead to it, which takes knowing the subject; run with --llm"
    ),
    "image_question_mismatch": (
        "no offline form: a question about another phenomenon leaves the options meaningless"
        " unless it is written for this subject; run with --llm"
    ),
}
