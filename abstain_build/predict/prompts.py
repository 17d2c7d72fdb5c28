"""The prompt of one prediction: a system prompt (task, reply format, condition, clause)
and a user turn (question, options, the item's images). Written for this project; the
structure follows the method: one fixed reply schema, a condition instruction and an
abstention clause.

``PURPOSE`` is part of the model cache key: change the wording, bump it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..models import ModelRequest, object_schema
from ..models.images import ImageInput
from .fields import reply_fields

PURPOSE = "predict/v1"
CONDITIONS = ("base", "vconf", "cot")
CLAUSES = ("standard", "extreme")
#: What the model answers when it abstains; ``eval`` counts it as an abstention.
ABSTAIN = "I cannot answer this question."
TEMPERATURE = 0.1
MAX_TOKENS = 1024

TASK = (
    "You are shown one question with the image(s) or document page(s) it is about. Answer"
    " it from what they show, with the knowledge any reader of the field has."
)
FORMAT = {
    False: 'Reply with one JSON object: {"explanation": "...", "answer": "..."}.',
    True: 'Reply with one JSON object: {"explanation": "...", "answer": "...", "confidence": 1-5}.',
}
INSTRUCTION = {
    "base": "In the explanation, say in one or two sentences what your answer rests on.",
    "vconf": "In the explanation, say in one or two sentences what your answer rests on."
    " Then rate how sure you are that the answer is right, from 1 (a guess) to 5"
    " (certain), as confidence.",
    "cot": "In the explanation, work step by step: what the question needs, what the"
    " image(s) or pages show of it, whether that is enough, and only then the answer.",
}
CLAUSE = {
    "standard": f"If what is shown does not let you answer, the answer is exactly: {ABSTAIN}",
    "extreme": "Answer only when what is shown settles the answer beyond doubt. If anything"
    " the answer needs is missing, unreadable, contradicted or ambiguous, the answer is"
    f" exactly: {ABSTAIN} A wrong answer costs far more than no answer.",
}


#: Appended to the system prompt in a later round of the iterative multi-agent system.
FEEDBACK = (
    "A reviewer rejected your previous answer to this question and said: {feedback}"
    " Take that into account."
)


def system_prompt(condition: str, clause: str, feedback: str | None = None) -> str:
    parts = [TASK, FORMAT[condition == "vconf"], INSTRUCTION[condition], CLAUSE[clause]]
    if feedback:
        said = " ".join(feedback.split())
        parts.append(
            FEEDBACK.format(feedback=said if said.endswith((".", "!", "?")) else said + ".")
        )
    return " ".join(parts)


@dataclass(frozen=True)
class Item:
    """What every prompt shows of one item."""

    question: str
    options: tuple[str, ...] = ()
    images: tuple[ImageInput, ...] = ()
    #: The document's page numbers of the images, for document items.
    pages: tuple[int, ...] = ()

    def lines(self) -> list[str]:
        """Question, lettered options and which pages the images are."""
        lines = ["Question:", self.question.strip()]
        if self.options:
            lines += ["", "Options:"]
            lines += [f"{chr(65 + i)}. {option}" for i, option in enumerate(self.options[:26])]
        if self.pages:
            lines += [
                "",
                f"The attached images are pages {', '.join(map(str, self.pages))} of the document.",
            ]
        return lines


def candidate_lines(candidate: Reply) -> list[str]:
    """A proposed answer and its reasoning, as the Verifier and P(True) are shown them."""
    return [
        "",
        "Proposed answer:",
        candidate.answer,
        "",
        "Its reasoning:",
        candidate.explanation or "(none given)",
    ]


def build_request(
    question: str,
    options: Sequence[str],
    images: Sequence[ImageInput],
    *,
    condition: str,
    clause: str,
    pages: Sequence[int] = (),
    max_tokens: int = MAX_TOKENS,
    temperature: float = TEMPERATURE,
    feedback: str | None = None,
    variant: str = "",
    logprobs: bool = False,
) -> ModelRequest:
    """The request for one item under one condition and clause.

    ``feedback``: a reviewer's, from the previous round (multi-agent). ``variant`` tells
    apart requests whose text is the same but whose replies must not be (the samples of
    self-consistency); it is part of the cache key only.
    """
    item = Item(question, tuple(options), tuple(images), tuple(pages))
    lines = item.lines()
    if options:
        lines += ["", "Give the letter of the option as the answer (or abstain as told)."]
    properties: dict[str, object] = {
        "explanation": {"type": "string"},
        "answer": {"type": "string"},
    }
    if condition == "vconf":
        properties["confidence"] = {"type": "integer", "enum": [1, 2, 3, 4, 5]}
    return ModelRequest(
        text="\n".join(lines),
        purpose=f"{PURPOSE}/{condition}/{clause}" + (f"/{variant}" if variant else ""),
        system=system_prompt(condition, clause, feedback),
        images=tuple(images),
        max_tokens=max_tokens,
        temperature=temperature,
        schema=object_schema("prediction", properties),
        logprobs=logprobs,
    )


@dataclass(frozen=True)
class Reply:
    explanation: str
    answer: str
    confidence: float | None

    @property
    def response(self) -> str:
        """What ``eval`` reads: the explanation, then the answer as a final statement."""
        head = self.explanation.strip()
        return f"{head}\nAnswer: {self.answer.strip()}" if head else f"Answer: {self.answer}"


#: The plain labels of a reply (``FINAL ANSWER - A``), when a server ignores the JSON format.
REPLY_LABELS = {
    "explanation": "explanation",
    "final answer": "answer",
    "answer": "answer",
    "confidence": "confidence",
}
#: A confidence in words: "4", "4/5", "4 out of 5".
CONFIDENCE_TEXT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:/\s*5|out\s+of\s+5)?", re.IGNORECASE)


def parse_reply(text: str, condition: str) -> Reply:
    """The reply's fields, from its JSON object or its labelled lines; ValueError (a re-ask)
    when it is in neither format."""
    data = reply_fields(
        text, '{"explanation": ..., "answer": ...}', REPLY_LABELS, prose=("explanation",)
    )
    if not isinstance(data, dict):
        raise ValueError('expected a JSON object with "explanation" and "answer"')
    answer = answer_field(data)
    explanation = data.get("explanation", "")
    if not isinstance(explanation, str):
        raise ValueError('"explanation" must be a string')
    confidence = None
    if condition == "vconf":
        value = data.get("confidence")
        if isinstance(value, str) and (number := CONFIDENCE_TEXT.fullmatch(value.strip())):
            value = float(number[1])
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError('"confidence" must be a number from 1 to 5')
        if not math.isfinite(value) or not 1 <= value <= 5:
            raise ValueError(f'"confidence" must be from 1 to 5, got {value!r}')
        confidence = float(value)
    return Reply(" ".join(explanation.split()), answer, confidence)


def answer_field(data: dict[str, Any]) -> str:
    """A reply's ``answer``: a non-empty string (a bare number is one), spaces collapsed;
    ValueError otherwise."""
    answer = data.get("answer")
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        answer = str(answer)
    if not isinstance(answer, str) or not answer.strip():
        raise ValueError('"answer" must be a non-empty string')
    return " ".join(answer.split())
