"""Offline question rewrites: seeded templates filled with the question's own parts.

Each transform has a bank of templates, each with an id. A generator returns every
template that fits the question (its slots can be filled), in an order drawn from the
sample's seed; the caller tries them one by one until one passes the gates. The slots
come from :mod:`.slots`: ``{img}`` the question's image placeholders, ``{np}`` its most
salient noun phrase, ``{head}`` that phrase's head noun, ``{tag}`` a fabricated label.

Two shapes of rewrite:

* **standalone**: a new short question about the same image and subject (mismatch,
  missing context, impossible task): the context sentences are dropped, placeholders kept.
* **edit**: the question with one phrase replaced or one clause inserted (references,
  multiple answers, contradictions); when the question is long, a *focused* variant keeps
  only the asking sentence (with every placeholder) so the change is not drowned out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .slots import Phrase, QuestionParts

STANDALONE = {
    "image_question_mismatch": (
        ("maker_views", "What were the politics of whoever made the {np} in {img}?"),
        ("weather", "According to {img}, what was the weather when the {np} was recorded?"),
        ("sound", "What sound does the {np} in {img} make?"),
        ("smell", "What does the {np} in {img} smell like?"),
        ("cost", "How much did the {np} shown in {img} cost to produce?"),
        ("owner", "Who owned the {np} shown in {img} in 1850?"),
        ("legal", "What is the legal status of the {np} in {img} today?"),
        ("language", "Which language did the people behind the {np} in {img} speak?"),
        ("popularity", "How popular is the {np} of {img} on social media?"),
        ("stocks", "What does the {np} in {img} say about that year's stock market?"),
        ("author_taste", "What is the favourite colour of whoever drew the {np} in {img}?"),
        ("afterwards", "In {img}, what happened to the {np} afterwards?"),
    ),
    "missing_context": (
        ("previous_year", "How does the {np} in {img} compare with the previous year's?"),
        ("survey_change", "By how much has the {np} in {img} changed since the last survey?"),
        ("national_avg", "Is the {np} in {img} above or below the national average?"),
        ("world_rank", "How does the {np} in {img} rank among all such cases worldwide?"),
        ("before", "What was the {np} in {img} before the change shown?"),
        ("control", "How does the {np} in {img} differ from the control group's?"),
        ("companion", "How does the {np} in {img} compare with the companion figure's?"),
        ("share_total", "What share of the national total is the {np} in {img}?"),
        ("decade", "Has the {np} in {img} grown relative to the last decade?"),
        ("other_region", "Which region has a larger {head} than the one in {img}?"),
        ("baseline", "What was the baseline {head} that {img} should be compared with?"),
    ),
    "impossible_visual_task": (
        ("mass", "What is the exact mass, in grams, of the {np} in {img}?"),
        ("temperature", "What is the temperature of the {np} in {img}, to 0.01 degrees?"),
        ("pixels", "Exactly how many pixels wide is the {np} in {img}?"),
        ("composition", "What is the chemical composition of the {np} in {img}?"),
        ("thickness", "What is the thickness of the {np} in {img}, in micrometres?"),
        ("hidden", "What is hidden behind the {np} in {img}?"),
        ("serial", "What serial number is printed inside the {np} in {img}?"),
        ("age_days", "How old, to the day, is the {np} in {img}?"),
        ("rgb", "What is the exact RGB value at the centre of the {np} in {img}?"),
        ("atoms", "How many atoms make up the {np} in {img}?"),
        ("pressure", "What is the internal pressure of the {np} in {img}, in pascals?"),
        ("underside", "What does the underside of the {np} in {img} look like?"),
    ),
}

#: Fabricated, specific things that are not in the image (``{tag}``: a made-up label).
NONEXISTENT = (
    ("curve_tag", "the curve labelled {tag}"),
    ("inset_tag", "the inset marked {tag}"),
    ("arrow_tag", "the arrow labelled {tag}"),
    ("dashed_tag", "the dashed line {tag}"),
    ("point_tag", "point {tag}"),
    ("legend_tag", "the legend entry '{tag}'"),
    ("component_tag", "the component labelled {tag}"),
    ("panel_tag", "panel ({letter})"),
    ("footnote_tag", "the value in footnote {digit}"),
    ("scalebar", "the {head} next to the scale bar"),
)
#: Elements of the same kind as the question's, but which one is meant cannot be told.
AMBIGUOUS = (
    ("other", "the other {head}"),
    ("second_left", "the second {head} from the left"),
    ("highlighted", "the highlighted {head}"),
    ("smaller", "the smaller {head}"),
    ("asterisk", "the {head} marked with an asterisk"),
    ("lower", "the lower {head}"),
    ("shaded", "the shaded {head}"),
    ("background", "the {head} in the background"),
    ("rightmost", "the rightmost {head}"),
    ("earlier", "the {head} mentioned earlier"),
)
_PLURAL_VERBS = {"is": "are", "was": "were", "has": "have", "does": "do"}


def _two(match: re.Match[str]) -> str:
    """ "Which of the following is" -> "Which two of the following are"; a verb further on
    ("which of the following types of cell *does*") is made plural by :func:`_plural_verb`."""
    which, _, verb = match.group(0).partition(" of the following")
    verb = verb.strip()
    out = f"{which.split()[0]} two of the following"
    return f"{out} {_PLURAL_VERBS[verb]}" if verb else out


_LATER_VERB = re.compile(r"\b(is|was|has|does)\b")


def _plural_verb(text: str, after: int) -> str:
    """The first singular auxiliary after ``after`` made plural, if it is in the same clause
    (no comma, no sentence end between) and within 60 characters."""
    window = text[after : after + 60]
    match = _LATER_VERB.search(window)
    if match is None or re.search(r"[,.;:?!]", window[: match.start()]):
        return text
    start, end = after + match.start(), after + match.end()
    return text[:start] + _PLURAL_VERBS[match.group(1)] + text[end:]


#: Edits that make two or more options defensible: (id, pattern, replacement).
MULTIPLE = (
    ("which_two", r"\bWhich (?:one )?of the following\b(?: (?:is|was|has|does)\b)?", _two),
    ("which_any", r"\bwhich (?:one )?of the following\b(?: (?:is|was|has|does)\b)?", _two),
    ("best_acceptable", r"\bthe best\b", "an acceptable"),
    ("most_likely", r"\bthe most likely\b", "a likely"),
    ("most_appropriate", r"\bthe most appropriate\b", "an appropriate"),
    ("the_correct", r"\bthe correct\b", "a correct"),
    ("main_one", r"\bthe (?:main|primary)\b", "one"),
    # Not before "most likely", "best"...: their own templates loosen those.
    (
        "what_is_the",
        r"\bWhat is the\b(?! (?:most|best|correct|main|primary)\b)",
        "What is one possible",
    ),
    ("what_are_the", r"\bWhat are the\b", "What are some of the"),
)
MULTIPLE_SUFFIXES = (
    ("either_convention", "(Either convention for the {head} applies.)"),
    ("both_definitions", "Assume both definitions of the {head} hold."),
    ("any_unit", "(The {head} may be read in any unit system.)"),
    ("two_readings", "Both readings of the {np} are valid."),
    ("broad_sense", "Take the {head} in its broad or narrow sense."),
    ("either_side", "The {np} may be counted on either side."),
)
#: A premise that cannot hold together with the question's own conditions.
PREMISES = (
    ("absent", "Assume the {np} {is} absent."),
    ("never_there", "Suppose the {np} {was} never there."),
    ("not_shown", "The {np} {is} not visible anywhere in the image."),
    ("removed", "Assume the {np} {has} been removed."),
    ("no_such", "The {np} {does} not exist here."),
    ("erased", "Suppose every trace of the {np} has been erased."),
)
NUMBER_PREMISES = (
    ("also_stated", "{num} (also stated as {wrong})"),
    ("ie", "{num} (i.e. {wrong})"),
    ("equal", "{num}, equal to {wrong},"),
    ("elsewhere", "{num} (elsewhere {wrong})"),
)
_LETTERS = "defghk"
_TAG_STEMS = ("Q", "K", "R", "Z", "M", "T", "W")


@dataclass(frozen=True)
class Candidate:
    """One rewrite to try: the text, the template it came from, an appended part (if any)."""

    text: str
    template: str
    appended: str | None = None


def _tag(rng: np.random.Generator) -> str:
    return f"{_TAG_STEMS[int(rng.integers(len(_TAG_STEMS)))]}{int(rng.integers(2, 10))}"


def _fill(template: str, parts: QuestionParts, phrase: Phrase | None, rng) -> str | None:
    """The template with its slots filled; None when a slot has nothing to fill it."""
    if ("{np}" in template or "{head}" in template) and phrase is None:
        return None
    if "{head}" in template and phrase is not None and phrase.proper:
        return None  # "the other black" from "Louis Black"
    values = {
        "img": parts.image_ref,
        "np": phrase.text if phrase else "",
        "head": phrase.head.lower() if phrase else "",
        "tag": _tag(rng),
        "letter": _LETTERS[int(rng.integers(len(_LETTERS)))],
        "digit": str(int(rng.integers(2, 9))),
        "is": "are" if phrase is not None and phrase.plural else "is",
        "was": "were" if phrase is not None and phrase.plural else "was",
        "has": "have" if phrase is not None and phrase.plural else "has",
        "does": "do" if phrase is not None and phrase.plural else "does",
    }
    text = template.format(**values)
    if phrase is not None and phrase.text[:1].isupper():
        # A name takes no article.
        text = re.sub(rf"\b[Tt]he {re.escape(phrase.text)}", lambda _: phrase.text, text)
    if "the the " in text.lower():
        text = re.sub(r"\b(the) the\b", r"\1", text, flags=re.IGNORECASE)
    return text[0].upper() + text[1:]


def _shuffled(items, rng: np.random.Generator):
    return [items[int(i)] for i in rng.permutation(len(items))]


def standalone(name: str) -> Callable[[QuestionParts, np.random.Generator], list[Candidate]]:
    """A generator of new short questions about the same image and subject."""

    def generate(parts: QuestionParts, rng: np.random.Generator) -> list[Candidate]:
        out: list[Candidate] = []
        phrases = parts.phrases[:3] or [None]
        for template_id, template in _shuffled(STANDALONE[name], rng):
            phrase = phrases[int(rng.integers(len(phrases)))]
            text = _fill(template, parts, phrase, rng)
            if text is not None:
                out.append(Candidate(text, f"{name}/{template_id}"))
        return out

    return generate


_QUESTION_STARTS = re.compile(
    r"^(What|Which|How|Why|Who|When|Where|Is|Are|Does|Do|Did|Can|Could|Would|Should|Find"
    r"|Calculate|Determine|Compute|Estimate|Identify|Name|Select|Choose|Apply|The|A|An|If"
    r"|Given|Suppose|Assume|Consider|Using|According|Based|For|In|On|At|To|This|These)\b"
)


def _focused(parts: QuestionParts, sentence: str) -> str:
    """The asking sentence alone, with every placeholder of the question still in it."""
    missing = [p for p in parts.placeholders if p not in sentence]
    if not missing:
        return sentence
    ref = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
    if _QUESTION_STARTS.match(sentence):
        sentence = sentence[0].lower() + sentence[1:]
    return f"In {ref}, {sentence}"


def _replace_phrase(
    text: str, phrase: Phrase, new: str, base: int = 0, end: int | None = None
) -> str:
    """``text`` with the phrase's whole chunk (its determiner included; up to ``end`` when
    given) replaced by ``new``, capitalised where it starts a sentence."""
    start, end = phrase.start - base, (phrase.end if end is None else end) - base
    before = text[:start]
    if re.search(r"(^|[.?!]\s+|^<image \d+>\s+)$", before):
        new = new[0].upper() + new[1:]
    return before + new + text[end:]


def _with_tail(template: str, text: str, phrase: Phrase) -> tuple[str, int]:
    """Where a replacement ends, and the template adjusted to the phrase's "of" complement.

    A new element ("panel (d)") replaces the complement too: "the philosophy of building"
    becomes "panel (d)", not "panel (d) of building". A head-first template ("the other
    {head}") keeps it after the replacement. A postmodifying one ("the {head} marked with
    an asterisk") takes it along with the head: "the types of <image 1> marked with ...".
    """
    if phrase.tail_end == phrase.end:
        return template, phrase.end
    if "{head}" not in template and "{np}" not in template:
        return template, phrase.tail_end
    if template.rstrip().endswith(("{head}", "{np}")):
        return template, phrase.end
    tail = text[phrase.end : phrase.tail_end].replace("{", "{{").replace("}", "}}")
    return template.replace("{head}", "{head}" + tail, 1), phrase.tail_end


def substitution(bank: tuple[tuple[str, str], ...], name: str):
    """A generator that swaps the question's topic phrase for one of ``bank``."""

    def generate(parts: QuestionParts, rng: np.random.Generator) -> list[Candidate]:
        out: list[Candidate] = []
        ask_start = parts.text.find(parts.ask)
        phrases = [p for p in parts.phrases if not p.proper][:2]  # not "panel (d)" for a name
        for template_id, template in _shuffled(bank, rng):
            for phrase in phrases:
                template_here, end = _with_tail(template, parts.text, phrase)
                new = _fill(template_here, parts, phrase, rng)
                if new is None:
                    continue
                new = new[0].lower() + new[1:]
                full = _replace_phrase(parts.text, phrase, new, end=end)
                out.append(Candidate(full, f"{name}/{template_id}"))
                if ask_start <= phrase.start < ask_start + len(parts.ask) and parts.context:
                    edited = _replace_phrase(parts.ask, phrase, new, ask_start, end)
                    out.append(Candidate(_focused(parts, edited), f"{name}/{template_id}+focus"))
                break
        return out

    return generate


def _multiple_edit(pattern: str, replacement, text: str) -> str:
    """One regex edit of the bank; "which two" also takes its verb into the plural."""
    match = re.search(pattern, text)
    assert match is not None
    new = replacement(match) if callable(replacement) else match.expand(replacement)
    edited = text[: match.start()] + new + text[match.end() :]
    if replacement is _two and new.endswith("following"):
        edited = _plural_verb(edited, match.start() + len(new))
    return edited


def multiple_correct(parts: QuestionParts, rng: np.random.Generator) -> list[Candidate]:
    out: list[Candidate] = []
    for template_id, pattern, replacement in _shuffled(MULTIPLE, rng):
        if re.search(pattern, parts.text):
            new = _multiple_edit(pattern, replacement, parts.text)
            out.append(Candidate(new, f"multiple_correct_answers/{template_id}"))
            if parts.context and re.search(pattern, parts.ask):
                ask = _multiple_edit(pattern, replacement, parts.ask)
                out.append(
                    Candidate(_focused(parts, ask), f"multiple_correct_answers/{template_id}+focus")
                )
    phrase = next((p for p in parts.phrases if not p.proper), None)  # a name has no conventions
    for template_id, template in _shuffled(MULTIPLE_SUFFIXES, rng):
        if template_id == "any_unit" and not parts.numbers:
            continue  # units only matter to a question with quantities
        suffix = _fill(template, parts, phrase, rng)
        if suffix is None:
            continue
        out.append(
            Candidate(f"{parts.text} {suffix}", f"multiple_correct_answers/{template_id}", suffix)
        )
    return out


def contradictory_premise(parts: QuestionParts, rng: np.random.Generator) -> list[Candidate]:
    from ..transforms.functional.number_rewrite import wrong_quantity

    out: list[Candidate] = []
    for token in parts.numbers[:3]:
        rewrite = wrong_quantity(token, rng)
        if rewrite is None:
            continue
        for template_id, template in _shuffled(NUMBER_PREMISES, rng)[:2]:
            clause = template.format(num=token.text, wrong=rewrite.text)
            text = parts.text[: token.start] + clause + parts.text[token.end :]
            out.append(Candidate(text, f"contradictory_premise/{template_id}"))
    for template_id, template in _shuffled(PREMISES, rng):
        phrase = parts.phrases[0] if parts.phrases else None
        premise = _fill(template, parts, phrase, rng)
        if premise is None:
            continue
        out.append(
            Candidate(f"{parts.text} {premise}", f"contradictory_premise/{template_id}", premise)
        )
        if parts.context:
            focused = f"{_focused(parts, parts.ask)} {premise}"
            out.append(Candidate(focused, f"contradictory_premise/{template_id}+focus", premise))
    return out


GENERATORS: dict[str, Callable[[QuestionParts, np.random.Generator], list[Candidate]]] = {
    "image_question_mismatch": standalone("image_question_mismatch"),
    "missing_context": standalone("missing_context"),
    "impossible_visual_task": standalone("impossible_visual_task"),
    "nonexistent_reference": substitution(NONEXISTENT, "nonexistent_reference"),
    "ambiguous_reference": substitution(AMBIGUOUS, "ambiguous_reference"),
    "multiple_correct_answers": multiple_correct,
    "contradictory_premise": contradictory_premise,
}


def template_count(name: str) -> int:
    """How many templates a transform's bank holds (for the variety report)."""
    banks = {
        "nonexistent_reference": NONEXISTENT,
        "ambiguous_reference": AMBIGUOUS,
        "multiple_correct_answers": MULTIPLE + MULTIPLE_SUFFIXES,
        "contradictory_premise": PREMISES + NUMBER_PREMISES,
    }
    return len(STANDALONE.get(name) or banks[name])
