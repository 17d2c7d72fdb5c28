"""The offline blind check: cues that a question is answerable without its evidence.

Each cue reads the question, its options and its gold, never the images or the document.
They were chosen and tuned on one half of 171 hand-labelled shared questions (150
MMMU-Pro questions and the 21 shared MMMU/AI2D items, each labelled by answering it blind
before looking at the key) and measured on the other half; ``bench/blind_cues.py`` gives
their precision and recall on the labelled set. The cues are deliberately narrow: a cue
that fires claims that removing the evidence would change nothing.

- ``definition``: the question asks for a term by its definition ("which term refers to
  words that help the reader understand an unknown word").
- ``vignette``: a clinical case told at length ("A 32-year-old woman ... Which inherited
  disorder ..."): the case, not the picture, names the disease.
- ``givens``: a worked problem stating four or more quantities with units and pointing at
  no table or data elsewhere: every number the answer needs is in the text.
- ``self_contained``: the ask stands alone: the image placeholder only opens or closes
  it, nothing points into the image (no "shown", "this", "labelled", "point A", no
  imperative task such as "identify" or "calculate"), and the options are words, not
  letters, labels or images ("<image 1> Which part of the body secretes pancreatic
  juice?").
- ``nearest_option``: the gold option is the one nearest the question in meaning (the
  MiniLM embedder), by a clear margin.
- ``textbook_problem``: the question names a textbook problem by chapter and number ("Fig.
  P2.79", "Figure P4-7", "Problem 3.12", "Prob. 5-23", "Example 7.4"). Numbered problems of
  the standard textbooks are printed with their answers and solved online, so a reader may
  recall the figure's data and the answer from the number alone. A plain figure reference
  ("Figure 2", "Fig. 6-1", "Figure 3.17", "the figure") names a picture, not a problem, and
  does not count. Readers differ here: a blind reader of a built counterpart answered P2.79,
  the labelled reading of the same question did not, and no labelled question this cue
  fires on is marked answerable (``bench/blind_cues.py`` gives its figures).
- ``sum_of_parts``: the question asks for a whole ("capacity", "total", "overall",
  "combined", "sum"), every option is a sum of indexed parts ("E1", "E2 + E3", "E1 + 2E2 +
  E3"), and the gold takes each part exactly once. The options then settle the answer from
  what the whole means in the field (a multiple-effect evaporator's capacity is the sum over
  its effects), whatever the figure draws. A question that singles out some parts ("beam
  AB", "the marked effects") does not count. It fires on one MMMU-Pro question. Options
  that are statements about a named concept, or "all of the above", are not enough: the
  first are the ``self_contained`` case when nothing points into the image, and the second
  is a test-taker's guess, not knowledge.
- ``quotes_answer`` (documents): the question prints its own open answer and offers no
  alternative to it. The other cues stay off for documents: their questions ask about the
  document ("What is the name of the governor mentioned on the first page?"); what a
  reader of the field knows about them is for the model path to find.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..media.files import atomic_write
from ..model import Sample
from ..text.sentences import split_sentences

PLACEHOLDER = re.compile(r"<\s*image\s*\d+\s*>", re.IGNORECASE)
#: Where derived numbers that depend only on text are kept between runs.
CACHE_ENV = "ABSTAIN_BUILD_CACHE"
#: Cosine margin by which the gold option must be the nearest to the question.
NEAREST_MARGIN = 0.05
#: Quantities with units a worked problem must state to count as self-sufficient.
MIN_GIVENS = 4
#: A vignette is a case told at some length (characters, placeholders removed).
MIN_VIGNETTE_CHARS = 120

_DEFINITION = re.compile(
    r"\b(?:defined as|which term|what term|refers? to|is called|are called|known as|"
    r"can be termed|termed as|describes? the practice|the name (?:of|for) the)\b",
    re.IGNORECASE,
)
_CASE = re.compile(r"\b\d+[- ]year[- ]old\b|\bpatient\b", re.IGNORECASE)
_QUANTITY = re.compile(
    r"(?<![A-Za-z])\d+(?:\.\d+)?\s*(?:kPa|MPa|Pa|kg|g|K|°C|°|m|cm|mm|kJ|J|W|kW|V|A|Ω|s|min|"
    r"ft|in|lbf|kip|mol|L|%)(?![A-Za-z])"
)
_DATA_ELSEWHERE = re.compile(
    r"\b(?:following|table|data|listed|given below|as follows|case [A-Z0-9])\b", re.IGNORECASE
)
#: Words that point into the image, or at something only the image shows.
_POINTS_IN = re.compile(
    r"\b(?:shown|depicted|illustrated|pictured|displayed|accompanying|"
    r"provided (?:image|figure|diagram|table|data)|"
    r"(?:figure|diagram|table|image|graph|chart|map|cartoon|example|score|data|sketch|"
    r"circuit)s? (?:above|below)|(?:as|the|given|listed) (?:above|below)|below:|as follows|"
    r"the following (?!is\b|are\b|options?\b|statements?\b|best\b|would\b|could\b|most\b)\w+|"
    r"this|these|those|here|figures?|melody|model|"
    r"the (?:image|figure|fig\.?|diagram|picture|graph|chart|map|table|photo|painting|"
    r"drawing|slide|film|cartoon|score|circuit|sketch|data|plot|curve|system|beam|"
    r"structure|object|work)s?|"
    r"labell?ed|marked|letter|point [A-Z]|fig|table \d+(?:\.\d+)?|data set|"
    r"\((?:left|right|top|bottom)\))\b|\((?:left|right|top|bottom)\)|"
    r"\bthe following\W*$",
    re.IGNORECASE,
)
#: Tasks done on the image ("identify the 170 structure", "calculate the current").
_TASK = re.compile(
    r"^(?:determine|calculate|find|compute|estimate|identify|select|give|name|derive|rank|"
    r"tick|express|label|draw|use|refer|examine|look|consider|choose|circle|maximi[sz]e|"
    r"minimi[sz]e|solve)\b",
    re.IGNORECASE,
)
_TASK_AFTER_COMMA = re.compile(
    r", (?:determine|calculate|find|compute|estimate|identify|select|name)\b", re.IGNORECASE
)
#: A part named by letters, which only a figure can place ("beam AB", "point C").
_NAMED_PART = re.compile(
    r"\b(?:beam|gate|rod|panel|member|point|bar|link|plate|wire|cable|section|arm|joint|"
    r"node|curve|line|region|event)s? [A-Z]{1,3}\b"
)
#: A field of a form or a record named in title case ("the Date of Event"): only the
#: pictured form holds its value.
_FIELD = re.compile(r"\bthe [A-Z][a-z]+ (?:of|for) [A-Z][a-z]+\b")
#: Options that speak of the pictured case ("this case", "these cells").
_POINTS_IN_OPTION = re.compile(r"\b(?:this|these|here|shown|pictured)\b", re.IGNORECASE)
#: A textbook problem named by chapter and number: a problem figure ("Fig. P2.79", "Figure
#: P4-7"), a problem ("Problem 3.12", "Prob. 5-23", "Problems 16.37") or a worked example or
#: exercise ("Example 7.4"; not "for example 2.5 m").
_TEXTBOOK_PROBLEM = re.compile(
    r"(?<![\w.])(?:(?i:fig(?:ure)?s?)\.?\s*P\s*|(?i:prob(?:lem)?s?)\.?\s+|"
    r"(?<![Ff]or )(?:Example|Exercise)s?\s+)\d{1,2}(?:[.\-–]\d{1,3})+(?!\d)"
)
#: A whole that is the sum of its parts ("the capacity of the evaporator", "the total").
_WHOLE = re.compile(r"\b(?:capacity|total|overall|combined|sum)\b", re.IGNORECASE)
#: One term of a sum of parts: a whole multiplier and a part named by letters and an index
#: ("E1", "2E2", "Q_3", "R_{2}").
_PART_TERM = re.compile(r"^(\d*)\s*([A-Za-z]{1,3})_?\{?(\d{1,2})\}?$")
#: Words that single out some of the pictured parts: which parts add up is then the figure's.
_SOME_PARTS = re.compile(
    r"\b(?:labell?ed|marked|shaded|highlighted|circled|selected|between|except)\b", re.IGNORECASE
)
#: Fewest options a sum of parts must be picked from: with two, nothing is settled.
MIN_SUM_OPTIONS = 3
_LEADING = re.compile(r"^\s*(?:\(?<\s*image\s*\d+\s*>\)?[\s,.:]*)+", re.IGNORECASE)
_TRAILING = re.compile(r"(?:[\s:,]*\(?<\s*image\s*\d+\s*>\)?\s*)+$", re.IGNORECASE)


@dataclass(frozen=True)
class Cue:
    """One reason to think the question needs no evidence; ``check`` returns what it saw."""

    name: str
    check: Callable[[Sample], str | None]
    #: Which samples it reads: "image" (MMMU-style) or "document".
    kind: str = "image"


def _text(sample: Sample) -> str:
    return re.sub(r"\s+", " ", PLACEHOLDER.sub(" ", sample.question)).strip()


def gold_option(sample: Sample) -> str | None:
    """The gold option's text, when the gold is a letter among the options."""
    letter = sample.answer.strip().strip("()").upper()
    if len(letter) == 1 and "A" <= letter <= "Z":
        index = ord(letter) - ord("A")
        if index < len(sample.options):
            return sample.options[index]
    return None


def definition(sample: Sample) -> str | None:
    found = _DEFINITION.search(_text(sample))
    return f"asks for a term by its definition ({found.group(0)!r})" if found else None


def vignette(sample: Sample) -> str | None:
    text = _text(sample)
    found = _CASE.search(text)
    if found and len(text) >= MIN_VIGNETTE_CHARS:
        return f"a clinical case told in the question ({found.group(0)!r}, {len(text)} characters)"
    return None


def givens(sample: Sample) -> str | None:
    text = _text(sample)
    quantities = _QUANTITY.findall(text)
    if len(quantities) >= MIN_GIVENS and not _DATA_ELSEWHERE.search(text):
        shown = ", ".join(q.strip() for q in quantities[:4])
        return f"states {len(quantities)} quantities with units ({shown}) and no data elsewhere"
    return None


def _label_options(options: tuple[str, ...]) -> bool:
    """Letters, numbers or labels ("A", "Indifference curve 7"): pointers into the image."""
    if all(len(option.strip()) <= 3 for option in options):
        return True
    words = [set(re.findall(r"[a-z]+", option.lower())) for option in options]
    shared = set.intersection(*words)
    return bool(shared) and all(not (w - shared) for w in words)


def self_contained(sample: Sample) -> str | None:
    if not sample.options or any(PLACEHOLDER.search(o) for o in sample.options):
        return None
    if _label_options(sample.options):
        return None
    question = sample.question.strip()
    leading = _LEADING.match(question)
    body = question[leading.end() :] if leading else question
    if leading and body and not body[0].isupper():
        return None  # "<image 1> sees education as ...": the image is the subject
    trailing = _TRAILING.search(body)
    body = body[: trailing.start()] if trailing else body
    if not body.strip() or PLACEHOLDER.search(body) or _POINTS_IN.search(body):
        return None
    sentences = split_sentences(body)
    if any(_TASK.match(s) for s in sentences) or _TASK_AFTER_COMMA.search(body):
        return None
    if _NAMED_PART.search(body) or _FIELD.search(body):
        return None
    if any(_POINTS_IN_OPTION.search(option) for option in sample.options):
        return None  # "This is very unlikely to have resulted from ...": about the picture
    return "the question stands alone: nothing in it points into the image"


def nearest_option(sample: Sample) -> str | None:
    gold = gold_option(sample)
    if gold is None or len(sample.options) < 2 or not _text(sample):
        return None
    texts = [_text(sample), *(PLACEHOLDER.sub(" ", o).strip() or "-" for o in sample.options)]
    similarity = option_similarities(texts)
    index = sample.options.index(gold)
    others = [s for i, s in enumerate(similarity) if i != index]
    margin = float(similarity[index] - max(others))
    if margin >= NEAREST_MARGIN:
        return f"the gold option is the nearest to the question in meaning (margin {margin:.2f})"
    return None


def textbook_problem(sample: Sample) -> str | None:
    found = _TEXTBOOK_PROBLEM.search(_text(sample))
    if found:
        return f"names a textbook problem ({found.group(0)!r}) whose data and answer are in print"
    return None


def _parts(option: str) -> dict[str, int] | None:
    """An option read as a sum of indexed parts, each with its multiplier; None if it is
    anything else ("E1 + 2E2" -> {"E1": 1, "E2": 2})."""
    parts: dict[str, int] = {}
    for term in option.replace("$", "").split("+"):
        found = _PART_TERM.match(term.strip())
        if not found:
            return None
        name = found.group(2) + found.group(3)
        parts[name] = parts.get(name, 0) + int(found.group(1) or 1)
    return parts


def sum_of_parts(sample: Sample) -> str | None:
    gold, text = gold_option(sample), _text(sample)
    whole = _WHOLE.search(text)
    if gold is None or whole is None or len(sample.options) < MIN_SUM_OPTIONS:
        return None
    if _NAMED_PART.search(text) or _SOME_PARTS.search(text):
        return None  # "the total load on beam AB": which parts count is drawn, not known
    sums = [_parts(option) for option in sample.options]
    if any(parts is None for parts in sums):
        return None
    every = {name for parts in sums if parts for name in parts}
    full = dict.fromkeys(every, 1)
    if len(every) < 2 or _parts(gold) != full or sums.count(full) != 1:
        return None
    return (
        f"the gold ({gold.strip()!r}) takes every part once: a {whole.group(0).lower()} is the"
        " sum over its parts, whatever the figure draws"
    )


def option_similarities(texts: list[str]) -> list[float]:
    """Cosine of each option (``texts[1:]``) to the question (``texts[0]``), cached on disk
    by content: loading the embedder costs about 2 s per process, the same questions come
    back in every rebuild, and the numbers never change."""
    key = hashlib.sha256("\x1f".join(texts).encode("utf-8", "surrogatepass")).hexdigest()
    path = cache_dir() / "option-similarity" / f"{key[:2]}" / f"{key}.json"
    try:
        cached = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(cached, list) and len(cached) == len(texts) - 1:
            return [float(v) for v in cached]
    except (OSError, ValueError):
        pass
    from ..text.embeddings import embed

    vectors = embed(texts)
    values = [float(v) for v in vectors[1:] @ vectors[0]]
    with contextlib.suppress(OSError):  # a read-only cache only costs the time
        atomic_write(path, json.dumps(values).encode())
    return values


def cache_dir() -> Path:
    """``ABSTAIN_BUILD_CACHE``, else ``$XDG_CACHE_HOME/abstain-build`` (``~/.cache/...``)."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "abstain-build"


def quotes_answer(sample: Sample) -> str | None:
    gold = sample.answer.strip()
    if len(gold) < 4 or sample.options or gold.lower() in ("yes", "no", "not answerable"):
        return None
    text = _text(sample)
    if re.search(r"\bor\b", text, re.IGNORECASE):
        return None  # "A or B?": a choice, not a quotation
    pattern = r"(?<!\w)" + re.escape(gold) + r"(?!\w)"
    if re.search(pattern, text, re.IGNORECASE):
        return f"the question prints its own answer ({gold!r})"
    return None


#: A question whether something is there: "Is there a signature...", "Does X apply Y?".
_PRESENCE = re.compile(
    r"^(?:is|are|was|were) there\b"
    r"|^(?:does|do|did|is|are|was|were|has|have)\b.*\b(?:present|exists?|appears?|applie[sd]|"
    r"apply|use[sd]?|includes?|included|contains?|contained|mentions?|mentioned|shows?|"
    r"shown|signed)\b",
    re.IGNORECASE,
)


def absence(sample: Sample) -> str | None:
    """The gold is "no" to whether something is there: a page without the evidence says
    "no" too. A blank signature page was read as "not signed", the gold."""
    if sample.options or sample.answer.strip().strip(".").lower() != "no":
        return None
    if _PRESENCE.search(_text(sample)):
        return "the gold is 'no' to whether something is there: without the evidence, absence"
    return None


CUES: tuple[Cue, ...] = (
    Cue("definition", definition),
    Cue("vignette", vignette),
    Cue("givens", givens),
    Cue("self_contained", self_contained),
    Cue("nearest_option", nearest_option),
    Cue("textbook_problem", textbook_problem),
    Cue("sum_of_parts", sum_of_parts),
    Cue("quotes_answer", quotes_answer, kind="document"),
    Cue("absence", absence, kind="document"),
)


def blind_cues(sample: Sample) -> list[str]:
    """Every cue that fires on ``sample``, as ``"name: what it saw"``."""
    kind = "document" if sample.document is not None else "image"
    found = []
    for cue in CUES:
        if cue.kind != kind:
            continue
        seen = cue.check(sample)
        if seen:
            found.append(f"{cue.name}: {seen}")
    return found
