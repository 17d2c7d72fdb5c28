"""Self-verification: the rewrite model tries to answer the perturbed item itself.

One call per item, before the judges: if the model says it can answer with MEDIUM or
HIGH confidence, the perturbation did not remove what it had to, and the item is
rejected (the sample moves on to its next routed transform). It sees exactly what a
judge sees: the question, the options, the perturbed images or pages.
"""

from __future__ import annotations

import json
from typing import Any

from ..models import ModelClient, ModelRequest, object_schema
from ..models.replies import json_reply
from .judges.base import CONFIDENCES, JudgeItem
from .judges.model_judge import question_lines

PROMPT_ID = "self-check/v1"
REJECTING = ("MEDIUM", "HIGH")
SYSTEM = (
    "Answer the question from the attached image(s). If the information needed is not"
    " there, or cannot be read, say that it cannot be answered instead of guessing."
    " Reply with one JSON object and nothing else."
)


SCHEMA = object_schema(
    "self_check",
    {
        "answerable": {"type": "boolean"},
        "answer": {"type": "string"},
        "confidence": {"type": "string", "enum": list(CONFIDENCES)},
    },
)


def self_check_request(item: JudgeItem) -> ModelRequest:
    lines = question_lines(item)
    lines += [
        "",
        'Reply with JSON only: {"answerable": true or false, "answer": "your answer, or an'
        ' empty string", "confidence": "LOW", "MEDIUM" or "HIGH"}',
    ]
    return ModelRequest(
        text="\n".join(lines),
        purpose=PROMPT_ID,
        system=SYSTEM,
        images=item.images,
        max_tokens=300,
        temperature=0.0,
        schema=SCHEMA,
    )


def parse_self_check(reply: str) -> dict[str, Any]:
    data = json_reply(reply, '{"answerable": ...}')
    if not isinstance(data, dict) or not isinstance(data.get("answerable"), bool):
        raise ValueError('"answerable" must be true or false')
    confidence = str(data.get("confidence", "")).strip().upper()
    if confidence not in CONFIDENCES:
        raise ValueError('"confidence" must be "LOW", "MEDIUM" or "HIGH"')
    answer = data.get("answer", "")
    return {
        "answerable": data["answerable"],
        "answer": answer if isinstance(answer, str) else json.dumps(answer),
        "confidence": confidence,
    }


def self_check(client: ModelClient, item: JudgeItem) -> dict[str, Any]:
    """The model's attempt and whether it rejects the item (a failed call does not)."""
    result = client.ask(self_check_request(item), parse_self_check)
    if not result.ok:
        return {"model": client.label, "rejects": False, "error": result.error}
    value = dict(result.value or {})
    value["model"] = client.label
    value["rejects"] = bool(value["answerable"] and value["confidence"] in REJECTING)
    return value
