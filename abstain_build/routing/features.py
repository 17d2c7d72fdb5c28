"""What routing knows about a sample: its question classes and what its evidence holds.

One :class:`Features` per sample, computed once before any transform runs. The question
parts are cheap (text patterns, the classifiers); the evidence parts read the evidence
pages of a document (words from the text layer or OCR, numbers, tables, figures) with the
same detectors the transforms use, so a constraint such as "no column merge without a
table" means what the transform itself would find.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..media.inputs import SampleInputs
    from ..model import Sample

#: Evidence pages analysed per sample (the first ones); enough to see tables and figures.
MAX_PAGES = 4

_NUMBER = re.compile(r"(?<![\w.])[-+]?\$?\d[\d,]*(?:\.\d+)?%?")
_FORMULA = re.compile(r"\$[^$]+\$|[=<>≤≥±×÷√∑∫^]|\b(?:sin|cos|tan|log|ln|exp)\b")
_STEPS = re.compile(
    r"\b(?:and then|then|after|before|if|assume|given|suppose|calculate|compute|determine|"
    r"estimate|difference|ratio|percentage|rate|compare|respectively|total|sum|average)\b",
    re.IGNORECASE,
)
_NUMERIC_FORMATS = ("int", "float", "integer")


@dataclass
class Features:
    """The routing feature vector of one sample (every field recorded with the choice)."""

    axis: str
    #: Image dependency class (image samples) and evidence type (document samples).
    dependency: str | None = None
    evidence_type: str | None = None
    classifier_mode: str = "heuristic"
    text_sufficiency: float = 0.0
    image_dependency: float = 0.0
    n_images: int = 0
    #: 0..1: words that point at a visual (chart, figure, colour, label...).
    visual_keywords: float = 0.0
    #: The question or its answer is a quantity (numbers, formulas, numeric answer).
    quantitative: bool = False
    time_reference: bool = False
    #: The question names a year, fiscal year or quarter with a year (what drift moves).
    question_years: bool = False
    #: The document's text layer mentions years (the period drift moves away from);
    #: None when the document was not read.
    document_period: bool | None = None
    #: 0..1: length, conditions and steps of the question.
    reasoning_complexity: float = 0.0
    answer_present: bool = True
    #: A note can contradict the answer (a single number, or short enough to deny).
    answer_contradictable: bool = True
    # -- evidence pages (document samples) ------------------------------------------------
    evidence_pages: int = 0
    cross_page: bool = False
    text_layer: bool = False
    has_table: bool = False
    has_figure: bool = False
    numbers_on_evidence: int = 0
    #: Pages that could not be read (no text layer and no OCR): their content is unknown.
    unread_pages: int = 0
    #: The blind check's verdict when it decides routing ("knowledge": answerable without
    #: the images or document; "contested": readers answer it otherwise; "evidence");
    #: None when it only records.
    blind: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def question_features(sample: Sample, llm: Any = None, images: Sequence[bytes] = ()) -> Features:
    """Everything that comes from the question (and answer) alone; ``llm`` (with the
    sample's ``images``) classifies the image dependency instead of the heuristic."""
    from ..content.timeref import find_years
    from ..questions.dependency import classify_dependency
    from ..questions.evidence_type import classify_evidence, has_time_reference
    from ..rewrites.caption import contradictable

    question = sample.question
    features = Features(axis=sample.axis, n_images=len(sample.images))
    features.time_reference = has_time_reference(question)
    features.question_years = bool(find_years(question))
    features.answer_present = bool(sample.answer.strip())
    features.answer_contradictable = contradictable(sample.answer, sample.answer_format)
    numeric_answer = (sample.answer_format or "").lower() in _NUMERIC_FORMATS
    features.quantitative = bool(
        numeric_answer or len(_NUMBER.findall(question)) >= 2 or _FORMULA.search(question)
    )
    features.reasoning_complexity = round(_complexity(question), 3)
    if sample.document is not None:
        evidence = classify_evidence(question)
        features.evidence_type = evidence.label
        features.classifier_mode = evidence.mode
        if evidence.label in ("Counting", "Aggregation", "Comparative"):
            features.quantitative = True
    dependency = classify_dependency(
        question,
        sample.options,
        len(sample.images),
        images=tuple(images),
        llm=llm if sample.document is None else None,
    )
    if sample.document is None:
        features.dependency = dependency.label
        features.classifier_mode = dependency.mode
    features.text_sufficiency = round(float(dependency.scores.get("text_sufficiency", 0.0)), 3)
    features.image_dependency = round(float(dependency.scores.get("image_dependency", 0.0)), 3)
    found = getattr(dependency.features, "visual_keywords", ()) or ()
    features.visual_keywords = round(min(1.0, len(found) / 2), 3)
    return features


def _complexity(question: str) -> float:
    """A rough 0..1 scale: long questions with conditions and several steps score high."""
    words = len(question.split())
    steps = len(_STEPS.findall(question))
    numbers = len(_NUMBER.findall(question))
    return min(1.0, words / 120 + 0.1 * steps + 0.05 * numbers)


def sample_features(sample: Sample, inputs: SampleInputs, llm: Any = None) -> Features:
    """The question features plus, for documents, what the evidence pages hold."""
    images = inputs.image_bytes() if llm is not None and sample.images else ()
    features = question_features(sample, llm, images)
    if sample.document is not None:
        add_evidence_features(features, sample, inputs)
    return features


def add_evidence_features(features: Features, sample: Sample, inputs: SampleInputs) -> None:
    """Tables, figures, numbers and text layer of the first :data:`MAX_PAGES` evidence pages."""
    from ..content.figures import find_figures
    from ..content.page_content import normalised_page, sample_page_content
    from ..content.page_numbers import page_numbers
    from ..content.timeref import coverage
    from ..textregions.pages import page_words
    from ..textregions.tables import find_tables

    features.document_period = coverage(inputs.page_texts()) is not None
    pages = sorted(set(sample.evidence_pages))
    features.evidence_pages = len(pages)
    features.cross_page = len(pages) > 1
    document = inputs.document()
    for number in pages[:MAX_PAGES]:
        with normalised_page(document, number) as page:
            # The transforms' own cache keys: on the same inputs, they reuse this analysis.
            words = inputs.derived(("page_words", number), lambda page=page: page_words(page))
            if words.source == "none":
                features.unread_pages += 1
                features.notes.append(f"page {number}: no words read ({words.reason})")
            else:
                features.text_layer |= words.source == "text_layer"
                found = inputs.derived(
                    ("page_numbers", number),
                    lambda page=page, words=words: page_numbers(page, words),
                )
                features.numbers_on_evidence += len(found)
                source_page = page if words.source == "text_layer" else None
                tables = inputs.derived(
                    ("tables", number),
                    lambda words=words, source_page=source_page: find_tables(
                        words.words, source_page
                    ),
                )
                features.has_table |= bool(tables)
            content = sample_page_content(inputs, page, number)
            features.has_figure |= bool(find_figures(page, content))
