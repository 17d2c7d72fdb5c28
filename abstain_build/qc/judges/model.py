"""Model judges: a vision-language model decides from the perturbed item alone.

The judge sees the question, its options and the images (for documents, the evidence
pages as rendered), never the original, the gold answer or which transform was applied.
It must reply with one JSON object::

    {"verdict": "ANSWERABLE" | "UNANSWERABLE", "confidence": "LOW" | "MEDIUM" | "HIGH",
     "justification": "..."}

A reply in any other shape is asked again (the model layer's re-asks), then the verdict
is ``ERROR``: the item gets ``qc_error``, never acceptance.
"""

from __future__ import annotations

from typing import Any

from ...models import ClientOptions, ModelClient, ModelRequest, object_schema
from ...models.replies import json_reply
from .base import ANSWERABLE, CONFIDENCES, ERROR, UNANSWERABLE, Judge, JudgeItem, Verdict

PROMPT_ID = "judge/v1"
SYSTEM = (
    "You check test items for a benchmark. For each item you get a question and the"
    " image(s) it refers to. Decide whether the question can be answered from what the"
    " images show (together with ordinary knowledge of the field), or whether the"
    " information needed is missing, hidden, unreadable, contradicted or does not exist."
    " Do not guess: an answer you would only be guessing at means UNANSWERABLE. Reply with"
    " one JSON object and nothing else."
)


def question_lines(item: JudgeItem) -> list[str]:
    """The item's question and lettered options, as a test-taker reads them."""
    lines = ["Question:", item.question.strip()]
    if item.options:
        lines += ["", "Options:"]
        lines += [f"{chr(65 + i)}. {option}" for i, option in enumerate(item.options[:26])]
    return lines


SCHEMA = object_schema(
    "answerability_verdict",
    {
        "verdict": {"type": "string", "enum": [ANSWERABLE, UNANSWERABLE]},
        "confidence": {"type": "string", "enum": list(CONFIDENCES)},
        "justification": {"type": "string"},
    },
)


def judge_request(item: JudgeItem, purpose: str = PROMPT_ID) -> ModelRequest:
    """The question for one item: what a test-taker would see, nothing more."""
    lines = question_lines(item)
    if item.pages:
        pages = ", ".join(str(p) for p in item.pages)
        lines += [
            "",
            f"The attached images are pages {pages} of the document the question is about.",
        ]
    lines += [
        "",
        "Can this question be answered from the attached image(s)? If it can, give the"
        " answer in the justification.",
        'Reply with JSON only: {"verdict": "ANSWERABLE" or "UNANSWERABLE",'
        ' "confidence": "LOW", "MEDIUM" or "HIGH", "justification": "one or two sentences"}',
    ]
    return ModelRequest(
        text="\n".join(lines),
        purpose=purpose,
        system=SYSTEM,
        images=item.images,
        max_tokens=400,
        temperature=0.0,
        schema=SCHEMA,
    )


def parse_verdict(reply: str) -> dict[str, str]:
    """The reply's three fields; ValueError (and so a re-ask) for anything else."""
    data = json_reply(reply, '{"verdict": ...}')
    if not isinstance(data, dict):
        raise ValueError('expected a JSON object with "verdict", "confidence", "justification"')
    verdict = str(data.get("verdict", "")).strip().upper()
    confidence = str(data.get("confidence", "")).strip().upper()
    justification = data.get("justification")
    if verdict not in (ANSWERABLE, UNANSWERABLE):
        raise ValueError('"verdict" must be "ANSWERABLE" or "UNANSWERABLE"')
    if confidence not in CONFIDENCES:
        raise ValueError('"confidence" must be "LOW", "MEDIUM" or "HIGH"')
    if not isinstance(justification, str) or not justification.strip():
        raise ValueError('"justification" must be a non-empty string')
    return {"verdict": verdict, "confidence": confidence, "justification": justification.strip()}


class ModelJudge(Judge):
    """A judge backed by a chat model (``openai:MODEL[@URL]``, ``anthropic:MODEL[@URL]``)."""

    kind = "model"

    def __init__(self, spec: str, options: ClientOptions | None = None) -> None:
        self.client = ModelClient(spec, options)
        self.name = f"model:{self.client.label}"  # type: ignore[misc]

    def judge(self, item: JudgeItem) -> Verdict:
        result = self.client.ask(judge_request(item), parse_verdict)
        if not result.ok:
            return self.verdict(ERROR, "", f"no verdict: {result.error}")
        value: dict[str, Any] = result.value  # type: ignore[assignment]
        return self.verdict(value["verdict"], value["confidence"], value["justification"])

    def close(self) -> None:
        self.client.close()
