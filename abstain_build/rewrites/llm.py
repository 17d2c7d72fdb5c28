"""LLM mode of the rewrite transforms: the request a model gets, and the strict reply parser.

The model sees the question, its options and the image(s) (for documents, the evidence
pages as images plus an excerpt of their text layer), and returns several candidates in
one JSON object; each candidate then goes through the same gates as an offline template.
When none passes, a second request lists the rejected candidates with the failing gate,
so the model can correct course; the number of requests is the transform's ``llm_calls``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from ..models import ModelRequest, object_schema
from ..models.images import ImageInput
from ..models.replies import json_reply
from .grammar import PLACEHOLDER
from .length import MAX_RATIO, note_cap
from .prompts import SYSTEM, RewritePrompt

#: Candidates asked for in one request.
CANDIDATES_PER_CALL = 3
#: Evidence text shown to the model (characters, over all evidence pages).
EVIDENCE_TEXT_CHARS = 3000
MAX_TOKENS = 900


@dataclass(frozen=True)
class RejectedCandidate:
    """A candidate of an earlier request and why the gates turned it down."""

    text: str
    reason: str


def character_limit(prompt: RewritePrompt, question: str) -> int:
    """The longest reply text the gates will accept (the length gate's rule, stated up front)."""
    base = len(question.strip())
    if prompt.shape == "note":
        return note_cap(question)
    return int(MAX_RATIO * base)


def build_request(
    prompt: RewritePrompt,
    question: str,
    options: Sequence[str] = (),
    *,
    images: Sequence[ImageInput] = (),
    answer: str | None = None,
    evidence_text: str = "",
    rejected: Sequence[RejectedCandidate] = (),
) -> ModelRequest:
    """The request for ``prompt`` on one question; ``rejected`` turns it into a retry."""
    key = "notes" if prompt.shape == "note" else "rewrites"
    limit = character_limit(prompt, question)
    placeholders = sorted({m.group(0) for m in PLACEHOLDER.finditer(question)})
    lines = [f"Task: {prompt.goal}", "", "Question:", question.strip()]
    if options:
        lines += ["", "Options:"]
        lines += [f"{chr(65 + i)}. {option}" for i, option in enumerate(options)]
    if prompt.shows_answer and answer is not None:
        lines += ["", f"Gold answer (for you only; the note must contradict it): {answer}"]
    if evidence_text.strip():
        excerpt = evidence_text.strip()[:EVIDENCE_TEXT_CHARS]
        lines += ["", "Text of the evidence pages (excerpt):", excerpt]
    lines += ["", "Rules:"]
    if prompt.shape == "note":
        lines.append(
            f"- Each note is one complete English sentence of at most {limit} characters; it"
            " will be appended after the question, which stays unchanged."
        )
    else:
        lines.append(
            f"- Each rewrite is at most {limit} characters, in English, one well-formed"
            " question (a short lead-in sentence before it is allowed)."
        )
        if placeholders:
            lines.append(
                "- Keep every image placeholder exactly as written: " + ", ".join(placeholders)
            )
        lines.append(
            "- Change the meaning, not only the wording: a paraphrase of the original is rejected."
        )
    if options:
        lines.append("- The options stay as they are; do not list them in your reply.")
    lines.append(f"- Give {CANDIDATES_PER_CALL} different candidates, best first.")
    if rejected:
        lines += ["", "These earlier candidates were rejected; do better:"]
        lines += [f"- {json.dumps(r.text, ensure_ascii=False)}: {r.reason}" for r in rejected]
    lines += ["", f'Reply with JSON only: {{"{key}": ["...", "...", "..."]}}']
    return ModelRequest(
        text="\n".join(lines),
        purpose=f"rewrite:{prompt.id}",
        system=SYSTEM,
        images=tuple(images),
        max_tokens=MAX_TOKENS,
        temperature=0.0,
        schema=object_schema(f"{key}_list", {key: {"type": "array", "items": {"type": "string"}}}),
    )


def reply_parser(prompt: RewritePrompt):
    """A strict parser for replies to ``prompt``: ValueError (and so a re-ask) on anything else."""
    key = "notes" if prompt.shape == "note" else "rewrites"

    def parse(reply: str) -> list[str]:
        data = json_reply(reply, f'{{"{key}": [...]}}')
        if not isinstance(data, dict) or not isinstance(data.get(key), list):
            raise ValueError(f'expected a JSON object with a "{key}" list')
        items = data[key]
        if not items or not all(isinstance(item, str) for item in items):
            raise ValueError(f'"{key}" must be a non-empty list of strings')
        cleaned = list(dict.fromkeys(" ".join(item.split()) for item in items))
        cleaned = [item for item in cleaned if item]
        if not cleaned:
            raise ValueError(f'every entry of "{key}" is empty')
        return cleaned[: 2 * CANDIDATES_PER_CALL]

    return parse
