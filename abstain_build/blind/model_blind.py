"""The blind check with a model: the question and its options, no image, no document.

For a document question the model is told *which* document it is (its file name and the
opening of its first page), never its pages: a model under test is shown the whole
document, so it knows the document it is reading, and blind readers answered edited
10-Ks, papers and reports from what they remembered of those very documents (29 of 67
failed document readings). A model that recalls the answer from the document's identity
makes the sample knowledge-recoverable like any other.

The model is asked several times (``samples``, at a low temperature; each ask has its own
cache key, so a resumed build reuses every reply) and each reply is graded with ``eval``'s
graders against the gold. The sample is knowledge-recoverable when most replies are right.
The model may say it cannot tell, which is graded wrong: a lucky guess among ten options
is rare, and among four it is what the majority vote is for.
"""

from __future__ import annotations

import functools
from collections import Counter

from ..model import Sample
from ..models import ModelClient, ModelRequest
from ..scoring.answers import grade
from .verdict import EVIDENCE_NEEDED, KNOWLEDGE, BlindVerdict

#: Part of the cache key: change the wording, bump it.
PURPOSE = "blind/v2"
SAMPLES = 3
TEMPERATURE = 0.3
MAX_TOKENS = 200
MAX_QUESTION_CHARS = 6000
#: Characters of a document's first page that name it (its title block).
IDENTITY_CHARS = 300

SYSTEM = (
    "You answer exam questions from the text alone. The question mentions images or a"
    " document you cannot see (for a document, you are told which one it is); answer from"
    " the question and what you know, including what you remember of that document. If"
    " the answer depends on what they show and you do not know it, reply UNKNOWN."
)


@functools.lru_cache(maxsize=256)
def _first_page(path: str) -> str:
    import pymupdf

    try:
        with pymupdf.open(path) as document:
            text = document[0].get_text("text") if document.page_count else ""
    except (RuntimeError, ValueError, OSError):  # unreadable here: the name alone
        return ""
    return " ".join(text.split())[:IDENTITY_CHARS]


def document_identity(sample: Sample) -> list[str]:
    """Lines naming the sample's document (file name, opening of page 1); none for images."""
    if sample.document is None:
        return []
    lines = ["", f"The question is about the document {sample.document.doc_id!r}."]
    opening = _first_page(str(sample.document.path))
    if opening:
        lines.append(f"Its first page begins: {opening!r}")
    return lines


def build_blind_request(sample: Sample, index: int) -> ModelRequest:
    """Ask ``index`` (0-based) of the blind check for ``sample``: text only."""
    lines = ["Question:", sample.question.strip()[:MAX_QUESTION_CHARS], *document_identity(sample)]
    if sample.options:
        lines += ["", "Options:"]
        lines += [f"{chr(65 + i)}. {option}" for i, option in enumerate(sample.options[:26])]
        lines += ["", "Reply with the letter of your answer only, or UNKNOWN."]
    else:
        lines += [
            "",
            "Reply with the answer only (a number, a name or a short phrase), or UNKNOWN.",
        ]
    return ModelRequest(
        text="\n".join(lines),
        purpose=f"{PURPOSE}/{index + 1}",
        system=SYSTEM,
        max_tokens=MAX_TOKENS,
        temperature=TEMPERATURE,
    )


def ask_blind(client: ModelClient, sample: Sample, samples: int = SAMPLES) -> BlindVerdict | str:
    """The model's verdict, or the reason it could not be reached (a failed call)."""
    results = client.map([build_blind_request(sample, k) for k in range(samples)])
    failed = next((r for r in results if not r.ok), None)
    if failed is not None:
        return f"{failed.kind or 'error'}: {failed.error}"
    replies = [(r.value or "").strip() for r in results]
    graded = [
        grade(reply, sample.answer, answer_format=sample.answer_format, options=sample.options)
        for reply in replies
    ]
    correct = sum(g.correct for g in graded)
    read = [g.parsed or "UNKNOWN" for g in graded]
    agreement = Counter(read).most_common(1)[0][1] / len(read)
    evidence = [
        f"blind answer {k + 1}: {reply[:60]!r} ({'right' if g.correct else 'wrong'})"
        for k, (reply, g) in enumerate(zip(replies, graded, strict=True))
    ]
    return BlindVerdict(
        method=f"model:{client.label}",
        verdict=KNOWLEDGE if correct * 2 > len(graded) else EVIDENCE_NEEDED,
        evidence=evidence,
        accuracy=round(correct / len(graded), 4),
        agreement=round(agreement, 4),
    )
