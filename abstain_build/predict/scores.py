"""The prompts and numbers of the baselines that ask the model: P(True), CoT-abstention,
self-consistency's sampling, and MaxProb's answer probability from token log-probabilities.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from ..models import ModelRequest, object_schema
from .fields import reply_fields
from .prompts import ABSTAIN, MAX_TOKENS, TEMPERATURE, Item, Reply, answer_field, candidate_lines

SELF_CONSISTENCY_SAMPLES = 10
SELF_CONSISTENCY_TEMPERATURE = 0.7
COT_ABSTENTION = "cot-abstention"
PTRUE_PURPOSE = "predict/p-true/v1"
COT_ABSTENTION_PURPOSE = "predict/cot-abstention/v1"

PTRUE_SYSTEM = (
    "You judge whether a proposed answer to a question about the attached image(s) or"
    " document page(s) is correct. Use what they show and what any reader of the field"
    " knows. Reply with one JSON object:"
    ' {"probability": a number from 0 to 1, the chance that the proposed answer is correct}.'
)


def ptrue_request(item: Item, candidate: Reply, temperature: float = TEMPERATURE) -> ModelRequest:
    lines = [*item.lines(), *candidate_lines(candidate)]
    lines += ["", "How likely is the proposed answer to be correct?"]
    return ModelRequest(
        text="\n".join(lines),
        purpose=PTRUE_PURPOSE,
        system=PTRUE_SYSTEM,
        images=item.images,
        max_tokens=64,
        temperature=temperature,
        schema=object_schema(
            "self_evaluation", {"probability": {"type": "number", "minimum": 0, "maximum": 1}}
        ),
    )


def parse_ptrue(text: str) -> float:
    data = reply_fields(text, '{"probability": 0.7}', {"probability": "probability"})
    value = data.get("probability") if isinstance(data, dict) else None
    if isinstance(value, str):  # "0.7", "70%"
        number = value.strip()
        try:
            value = float(number.removesuffix("%")) / (100 if number.endswith("%") else 1)
        except ValueError:
            value = None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError('"probability" must be a number from 0 to 1')
    if not 0 <= value <= 1:
        raise ValueError(f'"probability" must be from 0 to 1, got {value!r}')
    return float(value)


COT_ABSTENTION_SYSTEM = (
    "You are shown one question with the image(s) or document page(s) it is about. Before"
    " answering, take stock of the evidence: what the question needs, which of it the"
    " image(s) or pages show legibly, and what is missing, cut off, unreadable or"
    " contradicted. Answer only if what is shown is enough; otherwise the answer is"
    f" exactly: {ABSTAIN} Reply with one JSON object:"
    ' {"needed": "...", "shown": "...", "missing": "...", "answer": "..."}.'
)


def cot_abstention_request(
    item: Item, max_tokens: int = MAX_TOKENS, temperature: float = TEMPERATURE
) -> ModelRequest:
    lines = item.lines()
    if item.options:
        lines += ["", "Give the letter of the option as the answer (or abstain as told)."]
    properties = {name: {"type": "string"} for name in ("needed", "shown", "missing", "answer")}
    return ModelRequest(
        text="\n".join(lines),
        purpose=COT_ABSTENTION_PURPOSE,
        system=COT_ABSTENTION_SYSTEM,
        images=item.images,
        max_tokens=max_tokens,
        temperature=temperature,
        schema=object_schema("evidence_check", properties),
    )


#: The plain labels of an evidence check (``MISSING - the legend``, ``FINAL ANSWER - B``).
EVIDENCE_LABELS = {
    "needed": "needed",
    "shown": "shown",
    "missing": "missing",
    "final answer": "answer",
    "answer": "answer",
}


def parse_cot_abstention(text: str) -> Reply:
    data = reply_fields(
        text,
        '{"needed": ..., "shown": ..., "missing": ..., "answer": ...}',
        EVIDENCE_LABELS,
        prose=("needed", "shown", "missing"),
    )
    if not isinstance(data, dict):
        raise ValueError('expected a JSON object with "needed", "shown", "missing", "answer"')
    answer = answer_field(data)
    parts = []
    for name in ("needed", "shown", "missing"):
        value = data.get(name)
        if isinstance(value, str) and value.strip():
            parts.append(f"{name.capitalize()}: {' '.join(value.split())}")
    return Reply(" ".join(parts), answer, None)


def answer_probability(
    raw: str, tokens: Sequence[tuple[str, float]], answer: str
) -> tuple[float, str]:
    """The summed log-probability of the tokens that spell the reply's ``answer`` value, and
    which span was used: "answer" when the value was found in the JSON reply the tokens
    spell, else "reply" (every token: the reply was not the tokens' text)."""
    text = "".join(token for token, _ in tokens)
    start = _value_start(text, answer) if text == raw else -1
    if start < 0:
        return sum(value for _, value in tokens), "reply"
    end = start + len(json.dumps(answer, ensure_ascii=False)[1:-1])
    total, offset = 0.0, 0
    for token, value in tokens:
        if offset < end and offset + len(token) > start:
            total += value
        offset += len(token)
    return total, "answer"


def _value_start(text: str, answer: str) -> int:
    """Where the ``"answer"`` key's string value begins in ``text``; -1 if not found."""
    key = text.find('"answer"')
    if key < 0:
        return -1
    for form in (json.dumps(answer, ensure_ascii=False)[1:-1], answer):
        found = text.find(form, key + len('"answer"'))
        if found >= 0:
            return found
    return -1
