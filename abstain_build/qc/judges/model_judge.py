"""Model judges: a vision-language model tries to answer the perturbed item.

The judge sees what a model under test will see: the question, its options and the
images; for a document, the text layer of every page and the rendered evidence and
edited pages (:mod:`.document_view`). It never sees the original, the gold answer or
which transform was applied. It is asked to *answer*, not only to rule on answerability,
and must reply with one JSON object::

    {"answer": "..." | "none", "verdict": "ANSWERABLE" | "UNANSWERABLE",
     "confidence": "LOW" | "MEDIUM" | "HIGH", "justification": "..."}

The answer is graded against the gold by ``eval``'s graders in
:func:`..verify.graded_answer`: a judge that reaches the gold has read it on the item,
whatever verdict it states. A reply in any other shape is asked again (the model layer's
re-asks), then the verdict is ``ERROR``: the item gets ``qc_error``, never acceptance.
"""

from __future__ import annotations

from typing import Any

from ...models import ClientOptions, ModelClient, ModelRequest, object_schema
from ...models.replies import json_reply
from .base import ANSWERABLE, CONFIDENCES, ERROR, UNANSWERABLE, Judge, JudgeItem, Verdict
from .document_view import document_view

PROMPT_ID = "judge/v2"
SYSTEM = (
    "You check test items for a benchmark. For each item you get a question and what it"
    " refers to: image(s), or a document's text and page images. First try hard to answer"
    " the question as a careful test-taker would: read every page, combine statements,"
    " compute from parts, use ordinary knowledge of the field. Then decide whether the"
    " question can be answered from what you were given, or whether the information"
    " needed is missing, hidden, unreadable, contradicted or does not exist. An answer you"
    " would only be guessing at means UNANSWERABLE. Reply with one JSON object and"
    " nothing else."
)
#: What a judge writes in ``answer`` when it has none.
NO_ANSWER = "none"


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
        "answer": {"type": "string"},
        "verdict": {"type": "string", "enum": [ANSWERABLE, UNANSWERABLE]},
        "confidence": {"type": "string", "enum": list(CONFIDENCES)},
        "justification": {"type": "string"},
    },
)


def judge_request(item: JudgeItem, purpose: str = PROMPT_ID) -> ModelRequest:
    """The question for one item: what a test-taker would see, nothing more."""
    lines = question_lines(item)
    images = item.images
    if item.document is not None:
        view = document_view(item.document, item.pages, item.images, item.transform)
        images = view.images
        shown = ", ".join(str(p) for p in view.image_pages)
        lines += [
            "",
            f"The question is about a document of {view.pages} pages. Its text layer"
            " follows, page by page (a page with no text layer may be an image). The"
            f" attached images are pages {shown}.",
        ]
        if view.omitted:
            lines.append(f"(The text of {len(view.omitted)} pages did not fit and is left out.)")
        lines += ["", view.text]
    elif item.pages:
        pages = ", ".join(str(p) for p in item.pages)
        lines += [
            "",
            f"The attached images are pages {pages} of the document the question is about.",
        ]
    lines += [
        "",
        "Answer the question if you can, then say whether it can be answered from what you"
        f' were given. Put your answer in "answer" (the answer alone), or "{NO_ANSWER}" when'
        " you would only be guessing.",
        'Reply with JSON only: {"answer": "...", "verdict": "ANSWERABLE" or "UNANSWERABLE",'
        ' "confidence": "LOW", "MEDIUM" or "HIGH", "justification": "one or two sentences"}',
    ]
    return ModelRequest(
        text="\n".join(lines),
        purpose=purpose,
        system=SYSTEM,
        images=images,
        max_tokens=500,
        temperature=0.0,
        schema=SCHEMA,
    )


def parse_verdict(reply: str) -> dict[str, str]:
    """The reply's four fields; ValueError (and so a re-ask) for anything else."""
    data = json_reply(reply, '{"answer": ..., "verdict": ...}')
    if not isinstance(data, dict):
        raise ValueError(
            'expected a JSON object with "answer", "verdict", "confidence", "justification"'
        )
    if "answer" not in data:
        raise ValueError('"answer" is missing: the answer alone, or "none"')
    answer = data.get("answer")
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        answer = str(answer)
    if isinstance(answer, list):
        answer = ", ".join(str(a) for a in answer)
    if answer is None:
        answer = NO_ANSWER
    if not isinstance(answer, str):
        raise ValueError('"answer" must be a string (the answer alone, or "none")')
    verdict = str(data.get("verdict", "")).strip().upper()
    confidence = str(data.get("confidence", "")).strip().upper()
    justification = data.get("justification")
    if verdict not in (ANSWERABLE, UNANSWERABLE):
        raise ValueError('"verdict" must be "ANSWERABLE" or "UNANSWERABLE"')
    if confidence not in CONFIDENCES:
        raise ValueError('"confidence" must be "LOW", "MEDIUM" or "HIGH"')
    if not isinstance(justification, str) or not justification.strip():
        raise ValueError('"justification" must be a non-empty string')
    return {
        "answer": answer.strip() or NO_ANSWER,
        "verdict": verdict,
        "confidence": confidence,
        "justification": justification.strip(),
    }


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
        return self.verdict(
            value["verdict"], value["confidence"], value["justification"], answer=value["answer"]
        )

    def close(self) -> None:
        self.client.close()
