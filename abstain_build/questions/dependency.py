"""The image-dependency classifier of image questions (A-MMMU routing).

Four classes: Decorative (the text alone answers it; the image illustrates), Partial (the
image helps but the text carries most of what is needed), Essential (the deciding
information is only in the image; the text sets the task), Exclusive (the question is
the image: the text adds no context of its own).

Two modes. With a model client, one call (question, options, images) returns the class
and two scores (:mod:`.prompts`); without one, or when the call fails, the heuristic
decides, and ``mode`` says which (``"llm:<model>"``, ``"heuristic"``,
``"heuristic (llm failed: ...)"``).

The heuristic scores two things from the text:

- *text sufficiency* rises with the density of numeric values given as data (years, ages
  and labels such as "Table 7" or "medium 2" are not data), with formulas (LaTeX,
  equations, chemical formulas, arithmetic) and with the length of the problem statement;
- *image dependency* rises with visual words ("graph", "shown", "label", ...), pointers
  to what only the image holds ("this painting", "member BC", "at B"), data deferred to
  the image ("the tasks are as follows: <image 1>"), a placeholder standing for a noun
  ("Which is not a <image 1>?"), options that are images or bare letters, a short text.

Exclusive: at most ``EXCLUSIVE_WORDS`` content words besides the placeholders, a
placeholder in a noun's place, or image options; else Decorative when sufficiency is at
least ``DECORATIVE_TEXT`` and dependency at most ``DECORATIVE_IMAGE``; else Partial when
sufficiency is at least ``PARTIAL_TEXT`` and at least the dependency; else Essential.
The thresholds were chosen on the 1,730 MMMU-Pro questions and a hand-checked sample of
them (``tests/data/routing_handcheck.json``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from .records import PLACEHOLDER

if TYPE_CHECKING:
    from ..models import ModelClient
    from ..models.images import ImageInput

DEPENDENCY_CLASSES: tuple[str, ...] = ("Decorative", "Partial", "Essential", "Exclusive")

#: Heuristic thresholds (scores are in [0, 1]).
DECORATIVE_TEXT = 0.6
DECORATIVE_IMAGE = 0.35
#: Partial needs at least this much text sufficiency (and no less than image dependency).
PARTIAL_TEXT = 0.35
#: At most this many content words besides the placeholders: the question is the image.
EXCLUSIVE_WORDS = 2
#: A numeric density (values per word) at which the numeric signal is full.
DENSITY_FULL = 0.08
#: Words at which the length signal is full; at or below ``SHORT_TEXT`` the text is short.
LENGTH_FULL = 80
SHORT_TEXT = 12

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d+(?:[.,]\d+)*")
_NUMBER = re.compile(
    r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w.]*[A-Za-z]{2,})(?:\s?%)?"
    r"|(?<![\w.])\.\d+"
)
_YEAR = re.compile(r"^(?:1[6-9]|20)\d\d$")
_AGE_AFTER = re.compile(r"[\s-]?(?:years?|yrs?|months?|weeks?|days?)[\s-]old\b", re.IGNORECASE)
_UNIT_AFTER = re.compile(
    r"\s?(?:%|percent\b|°|[kMGmµnc]?(?:m|g|s|Pa|N|J|W|V|A|Hz|L|mol|Ω|ohms?)\b|K\b|kWh\b"
    r"|bp\b|ft\b|in\.|lb|psi\b|mi\b|mph\b|h\b|hr|min\b|days?\b|weeks?\b|months?\b"
    r"|years?\b|units?\b|dollars?\b|cents?\b|million|billion|thousand)"
)
_LABEL_BEFORE = re.compile(
    r"(?:table|figure|fig|chapter|section|problem|question|exercise|example|equation|eq"
    r"|bar|step|part|individual|item|case|page|image|panel|exhibit|appendix|no)\.?\s*$",
    re.IGNORECASE,
)
_FORMULA = tuple(
    re.compile(p)
    for p in (
        r"\$[^$]+\$",  # inline LaTeX
        r"\\[A-Za-z]+",  # LaTeX commands
        r"[A-Za-z0-9)\]}]\s*(?:=|≥|≤|≠|≈|<=|>=|→)\s*[-+(\[$\\A-Za-z0-9]",  # relations
        r"[A-Za-z0-9)\]}]\^[-+({A-Za-z0-9]|_\{",  # LaTeX super/subscripts
        r"[∑∫√±×÷∞∂∆πθλμσΩ]",  # math symbols
        r"\b(?=[A-Z]\w*\d)(?:[A-Z][a-z]?\d*){2,}\b",  # chemical formulas: H2O, CO2, CH3OH
        r"\b[A-Za-z]\([A-Za-z0-9, ]+\)",  # f(x), P(A)
        r"\d\s*[-+*/]\s*\d",  # arithmetic
    )
)

#: Visual words and their weight; a plural or -ed form counts as the word.
_VISUAL: dict[str, float] = {
    **dict.fromkeys(
        (
            "graph",
            "diagram",
            "figure",
            "fig",
            "chart",
            "image",
            "picture",
            "photo",
            "photograph",
            "map",
            "plot",
            "table",
            "label",
            "labeled",
            "labelled",
            "shown",
            "depicted",
            "pictured",
            "illustrated",
            "drawing",
            "painting",
            "sketch",
            "cartoon",
            "circuit",
            "curve",
            "arrow",
            "shaded",
            "highlighted",
            "displayed",
            "micrograph",
            "scan",
            "x-ray",
            "radiograph",
            "pedigree",
            "schematic",
            "sculpture",
            "artwork",
        ),
        1.0,
    ),
    **dict.fromkeys(
        (
            "show",
            "shows",
            "see",
            "seen",
            "visible",
            "above",
            "below",
            "following",
            "left",
            "identify",
            "marked",
            "indicated",
            "observe",
            "observed",
            "look",
        ),
        0.5,
    ),
}
_VISUAL_WORD = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, _VISUAL), key=len, reverse=True)) + r")(?:s|es)?\b",
    re.IGNORECASE,
)
_DEICTIC = re.compile(
    r"\b(?:this|these|those|the\s+(?:given|accompanying|following|above|below))\s+"
    r"(?!(?:is|are|was|were|question|statement|problem|case|one|ones|of|to|in|that)\b)"
    r"[a-z]+",
    re.IGNORECASE,
)
#: Data introduced by the text and left to the image ("are as follows: <image 1>",
#: "These are the balances: <image 1>").
_DEFERRED = re.compile(
    r"(?:as\s+follows|(?<!of\s)the\s+following|given\s+(?:below|in)|shown\s+below|below)"
    r"[^.?!<]{0,80}[:.,]?\s*<image\s*\d+>"
    r"|:\s*<image\s*\d+>",
    re.IGNORECASE,
)
#: A placeholder in a noun's place: "Which is not a <image 1>?", "<image 1> is a symbol of".
_PLACEHOLDER_NOUN = re.compile(
    r"\b(?:a|an)\s+<image\s*\d+>|^\s*<image\s*\d+>\s+(?:is|are|was|were|of)\b"
)
_LETTER_OPTION = re.compile(r"^\s*\(?[A-Za-z]\)?\.?\s*$")
#: Labelled parts of a drawing the text points at: "at B", "member BC", "points A and D".
_PART_LABEL = re.compile(
    r"\b(?:[Aa]t|[Pp]oints?|[Mm]embers?|[Rr]ods?|[Jj]oints?|[Pp]ins?|[Nn]odes?|[Ll]inks?"
    r"|[Cc]ables?|[Ss]ections?|[Ss]upports?|[Cc]orners?|[Vv]ertex|[Vv]ertices|[Ww]ires?"
    r"|[Bb]ars?|[Ss]prings?|[Bb]locks?|[Pp]ulleys?|[Gg]ears?|[Rr]egions?|[Cc]urves?|[Ll]ines?)"
    r"\s+(?:[A-Z]{1,2}(?:\s*(?:,|and|to)\s*[A-Z]{1,2})*)\b(?![a-z'’])"
)
_STOP_WORDS = """a an the of in on at to for from by with and or but not no is are was were be been
    being am do does did has have had it its this that these those there their they them
    he she his her we you your our i me my as if then than so such which what who whom
    whose when where why how whether can could would should will shall may might must
    following above below true false following about into over under between each any
    all some most more less one two three best statement statements question answer
    choose select option options correct incorrect given refer based according regarding
    shown show shows"""
_STOP = frozenset(_STOP_WORDS.split())


@dataclass(frozen=True)
class DependencyFeatures:
    """What the heuristic measured (recorded with every heuristic result)."""

    words: int
    content_words: int
    numbers: int
    numeric_density: float
    formulas: int
    visual_keywords: tuple[str, ...]
    pointers: tuple[str, ...]
    deferred: bool
    placeholder_noun: bool
    image_options: bool
    n_images: int

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["visual_keywords"] = list(self.visual_keywords)
        data["pointers"] = list(self.pointers)
        return data


@dataclass(frozen=True)
class DependencyResult:
    """A question's image dependency: class, scores, how it was decided and why."""

    label: str
    scores: dict[str, float]
    mode: str
    reasons: tuple[str, ...] = ()
    features: DependencyFeatures | None = None
    #: In LLM mode, the model call's audit fields (ModelResult.to_json()).
    model: dict[str, Any] | None = field(default=None)

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "mode": self.mode,
            "scores": dict(self.scores),
            "reasons": list(self.reasons),
            "features": self.features.to_json() if self.features else None,
            "model": self.model,
        }


def _strip_placeholders(text: str) -> str:
    return " ".join(PLACEHOLDER.sub(" ", text).split())


def _numbers(text: str) -> int:
    """Numeric values given as data: decimals, amounts with a unit, % or currency, and
    other numbers from 10 up; years and labels ("Table 7", "medium 2") are not data."""
    count = 0
    for match in _NUMBER.finditer(text):
        raw = match.group(0)
        value = raw.rstrip("% ").replace(",", "")
        if _YEAR.match(value) or _LABEL_BEFORE.search(text[: match.start()]):
            continue
        if _AGE_AFTER.match(text, match.end()):
            continue
        money = text[max(0, match.start() - 1) : match.start()] in ("$", "€", "£")
        unit = "%" in raw or _UNIT_AFTER.match(text, match.end()) is not None
        if "." in value or money or unit or float(value) >= 10:
            count += 1
    return count


def _image_options(options: Sequence[str]) -> bool:
    """Options that are images, or bare letters naming parts of the image."""
    if not options:
        return False
    return all(
        PLACEHOLDER.fullmatch(o.strip()) or _LETTER_OPTION.match(o) for o in options if o.strip()
    )


def measure(question: str, options: Sequence[str] = (), n_images: int = 1) -> DependencyFeatures:
    """The heuristic's features of one question."""
    text = _strip_placeholders(question)
    words = _WORD.findall(text)
    content = [w for w in words if w.lower() not in _STOP and w.lower() not in _VISUAL]
    numbers = _numbers(text)
    keywords = tuple(dict.fromkeys(m.group(1).lower() for m in _VISUAL_WORD.finditer(text)))
    pointers = tuple(
        dict.fromkeys(
            " ".join(m.group(0).split())
            for pattern in (_DEICTIC, _PART_LABEL)
            for m in pattern.finditer(text)
        )
    )
    return DependencyFeatures(
        words=len(words),
        content_words=len(content),
        numbers=numbers,
        numeric_density=round(numbers / len(words), 4) if words else 0.0,
        formulas=sum(len(p.findall(question)) for p in _FORMULA),
        visual_keywords=keywords,
        pointers=pointers,
        deferred=bool(_DEFERRED.search(question)),
        placeholder_noun=bool(_PLACEHOLDER_NOUN.search(question)),
        image_options=_image_options(options),
        n_images=n_images,
    )


def heuristic_scores(features: DependencyFeatures) -> dict[str, float]:
    """Text sufficiency and image dependency in [0, 1]."""
    f = features
    numeric = min(1.0, f.numeric_density / DENSITY_FULL) if f.numbers >= 2 else 0.0
    formula = min(1.0, f.formulas / 3)
    length = min(1.0, f.words / LENGTH_FULL)
    text = 0.45 * numeric + 0.35 * formula + 0.20 * length
    weight = sum(_VISUAL.get(k, 1.0) for k in f.visual_keywords)
    image = (
        0.15
        + 0.45 * min(1.0, weight / 2)
        + 0.25 * min(1.0, len(f.pointers) / 2)
        + 0.20 * f.deferred
        + 0.20 * (f.words <= SHORT_TEXT)
        + 0.30 * f.placeholder_noun
        + 0.30 * f.image_options
    )
    return {
        "text_sufficiency": round(min(1.0, text), 3),
        "image_dependency": round(min(1.0, image), 3),
    }


def classify_heuristic(
    question: str, options: Sequence[str] = (), n_images: int = 1
) -> DependencyResult:
    """The heuristic class, with its scores, features and the reasons for the class."""
    f = measure(question, options, n_images)
    scores = heuristic_scores(f)
    text, image = scores["text_sufficiency"], scores["image_dependency"]
    reasons: list[str] = []
    if f.content_words <= EXCLUSIVE_WORDS:
        reasons.append(f"{f.content_words} content word(s) besides the image placeholders")
    if f.placeholder_noun:
        reasons.append("an image placeholder stands in a noun's place")
    if f.image_options and f.words <= LENGTH_FULL:
        reasons.append("the options are images or letters of the image")
    if reasons:
        return DependencyResult("Exclusive", scores, "heuristic", tuple(reasons), f)
    if text >= DECORATIVE_TEXT and image <= DECORATIVE_IMAGE:
        label = "Decorative"
        reasons.append(f"text sufficiency {text} >= {DECORATIVE_TEXT}, image dependency {image}")
    elif text >= max(image, PARTIAL_TEXT):
        label = "Partial"
        reasons.append(f"text sufficiency {text} >= image dependency {image}")
    else:
        label = "Essential"
        reasons.append(f"image dependency {image} > text sufficiency {text}")
    if f.visual_keywords:
        reasons.append("visual words: " + ", ".join(f.visual_keywords))
    if f.deferred:
        reasons.append("data deferred to the image")
    return DependencyResult(label, scores, "heuristic", tuple(reasons), f)


def classify_dependency(
    question: str,
    options: Sequence[str] = (),
    n_images: int = 1,
    *,
    images: Sequence[ImageInput] = (),
    llm: ModelClient | None = None,
) -> DependencyResult:
    """The image dependency of one question: the model's verdict when ``llm`` is given and
    answers in the required format, else the heuristic's (saying why the model's was not used).
    """
    if llm is None:
        return classify_heuristic(question, options, n_images)
    from .prompts import build_dependency_request, parse_dependency_reply

    request = build_dependency_request(question, options, n_images, images=images)
    result = llm.ask(request, parse_dependency_reply)
    if not result.ok or result.value is None:
        fallback = classify_heuristic(question, options, n_images)
        reason = " ".join(str(result.error or "no value").split())[:300]
        return DependencyResult(
            fallback.label,
            fallback.scores,
            f"heuristic (llm failed: {reason})",
            fallback.reasons,
            fallback.features,
            model=result.to_json(),
        )
    verdict = result.value
    return DependencyResult(
        verdict.label,
        verdict.scores,
        f"llm:{llm.label}",
        (verdict.reason,) if verdict.reason else (),
        None,
        model=result.to_json(),
    )
