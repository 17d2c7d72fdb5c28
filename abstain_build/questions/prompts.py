"""LLM mode of the image-dependency classifier: the request and the strict reply parser.

The model sees the question, its options and the images when they are available (a
question-only file has none, and the prompt says so), and replies with one JSON object::

    {"class": "Essential", "text_sufficiency": 0.2, "image_dependency": 0.9,
     "reason": "the values are only in the table"}

``class`` is one of ``DEPENDENCY_CLASSES`` (any letter case), both scores are numbers in
[0, 1], ``reason`` is optional. Anything else raises ValueError, which makes the client
ask again with the error. ``PURPOSE`` is part of the cache key: change the wording, bump it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..models import ModelRequest, object_schema
from ..models.images import ImageInput
from ..models.replies import json_reply
from .dependency import DEPENDENCY_CLASSES

PURPOSE = "dependency/v1"
MAX_TOKENS = 300
MAX_REASON_CHARS = 300
#: Question and option text shown to the model (characters).
MAX_QUESTION_CHARS = 6000

_KEYS = {"class", "text_sufficiency", "image_dependency", "reason"}
#: Scores in tenths: an enumeration every schema-constrained decoder enforces (llama.cpp's
#: grammars ignore a number's minimum and maximum; a 135M model then says 2.5).
_SCORE = {"type": "number", "enum": [round(k / 10, 1) for k in range(11)]}
SCHEMA = object_schema(
    "dependency_verdict",
    {
        "class": {"type": "string", "enum": list(DEPENDENCY_CLASSES)},
        "text_sufficiency": _SCORE,
        "image_dependency": _SCORE,
        "reason": {"type": "string"},
    },
)
SYSTEM = (
    "You annotate exam questions that come with one or more images, for a benchmark that"
    " perturbs whichever channel a question really relies on. For each question you judge"
    " how much of what is needed to answer it is in the text and how much only in the"
    " image(s). You do not answer the question. Reply with one JSON object and nothing else."
)

_DEFINITIONS = (
    "Classes:",
    "- Decorative: the text alone, with ordinary knowledge of the field, answers the question;"
    " the image only illustrates it.",
    "- Partial: the image gives helpful cues, but the text holds most of what is needed.",
    "- Essential: information that decides the answer (values, shapes, labels, what is"
    " depicted) is only in the image; the text states the task and its context.",
    "- Exclusive: the question is the image itself; the text adds no context of its own"
    ' (e.g. "<image 1> What is shown?" or an image placeholder in place of the subject).',
    "",
    "Scores, each from 0 to 1:",
    "- text_sufficiency: how far the text alone settles the answer.",
    "- image_dependency: how far the answer needs the image(s).",
)


@dataclass(frozen=True)
class DependencyVerdict:
    """A parsed reply."""

    label: str
    scores: dict[str, float]
    reason: str = ""


def build_dependency_request(
    question: str,
    options: Sequence[str] = (),
    n_images: int = 1,
    *,
    images: Sequence[ImageInput] = (),
) -> ModelRequest:
    """The classification request for one question."""
    lines = ["Judge how much this question depends on its image(s).", "", "Question:"]
    lines.append(question.strip()[:MAX_QUESTION_CHARS])
    if options:
        lines += ["", "Options:"]
        lines += [f"{chr(65 + i)}. {option}" for i, option in enumerate(options[:26])]
    lines.append("")
    if images:
        lines.append(f"The question's {len(images)} image(s) are attached, in order.")
    else:
        lines.append(
            f"The question refers to {max(n_images, 1)} image(s), which are not available"
            " here: judge from the text how much an image must contribute."
        )
    lines += ["", *_DEFINITIONS, ""]
    lines.append(
        'Reply with JSON only: {"class": "Decorative|Partial|Essential|Exclusive",'
        ' "text_sufficiency": 0.0, "image_dependency": 0.0, "reason": "one short sentence"}'
    )
    return ModelRequest(
        text="\n".join(lines),
        purpose=PURPOSE,
        system=SYSTEM,
        images=tuple(images),
        max_tokens=MAX_TOKENS,
        temperature=0.0,
        schema=SCHEMA,
    )


def _score(data: dict[str, object], key: str) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f'"{key}" must be a number from 0 to 1')
    number = float(value)
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise ValueError(f'"{key}" must be from 0 to 1, got {value!r}')
    return round(number, 3)


def parse_dependency_reply(reply: str) -> DependencyVerdict:
    """The verdict in ``reply``; ValueError (and so a re-ask) on anything outside the format."""
    data = json_reply(reply, '{"class": ...}')
    if not isinstance(data, dict):
        raise ValueError('expected a JSON object with "class" and the two scores')
    extra = sorted(set(data) - _KEYS)
    if extra:
        raise ValueError(f"unexpected key(s): {', '.join(extra)}")
    label = data.get("class")
    canonical = {c.lower(): c for c in DEPENDENCY_CLASSES}
    if not isinstance(label, str) or label.strip().lower() not in canonical:
        raise ValueError(f'"class" must be one of {", ".join(DEPENDENCY_CLASSES)}')
    reason = data.get("reason", "")
    if not isinstance(reason, str):
        raise ValueError('"reason" must be a string')
    scores = {
        "text_sufficiency": _score(data, "text_sufficiency"),
        "image_dependency": _score(data, "image_dependency"),
    }
    reason = " ".join(reason.split())[:MAX_REASON_CHARS]
    return DependencyVerdict(canonical[label.strip().lower()], scores, reason)
