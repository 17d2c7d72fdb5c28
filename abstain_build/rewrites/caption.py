"""Contradictory captions: a note appended to a document question that says something the
document's evidence contradicts (a different value, a different name than the gold answer).

The false claim comes from the sample: a number is the gold number moved 20-50% in its
own format; a name is another name printed on the evidence pages of the same shape
(another segment, another platform), or, failing that, the gold answer negated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ..qc.leak import answer_items
from ..transforms.functional.number_rewrite import wrong_quantity, wrong_year
from ..transforms.functional.numbers import find_numbers
from .offline import Candidate

NOTES = (
    ("reports", "Note: the document reports {wrong}."),
    ("gives", "Note: the report gives {wrong} here."),
    ("source_states", "(The source states {wrong}.)"),
    ("per_document", "Note: per the document, the answer is {wrong}."),
    ("figure_shows", "Caption: the figure shows {wrong}."),
    ("table_lists", "Note: the table lists {wrong}."),
    ("stated_as", "Note: this is stated as {wrong}."),
    ("according", "(According to the text: {wrong}.)"),
    ("corrected", "Note: the corrected figure is {wrong}."),
    ("summary", "Summary note: {wrong}."),
)
NEGATIONS = (
    ("not_gold", "Note: the document says it is not {gold}."),
    ("excludes", "Note: the report explicitly excludes {gold}."),
    ("never", "(The source never names {gold}.)"),
)
_NAME = re.compile(r"\b[A-Z][A-Za-z&'-]+(?:\s+[A-Z][A-Za-z&'-]+){0,3}\b")


#: The longest answer a note can deny outright ("... it is not <answer>.").
MAX_DENIED = 60


def contradictable(answer: str, answer_format: str | None) -> bool:
    """Whether a note can contradict this answer without the evidence pages: one of its
    items is a single number, or short enough to deny (names on the pages may add more)."""
    for item in answer_items(answer, answer_format):
        numbers = [t for t in find_numbers(item) if t.is_quantity or t.kind == "year"]
        if len(numbers) == 1 or 0 < len(item.strip().rstrip(".?!:;")) <= MAX_DENIED:
            return True
    return False


def _wrong_number(item: str, rng: np.random.Generator) -> str | None:
    tokens = [t for t in find_numbers(item) if t.is_quantity or t.kind == "year"]
    if len(tokens) != 1:
        return None
    token = tokens[0]
    rewrite = wrong_year(token, rng) if token.kind == "year" else wrong_quantity(token, rng)
    if rewrite is None:
        return None
    return item[: token.start] + rewrite.text + item[token.end :]


def alternative_names(gold: str, texts: Sequence[str]) -> list[str]:
    """Names printed on the evidence pages that could stand in for ``gold``: capitalised
    phrases of the same number of words, not the gold answer, not part of it."""
    words = len(gold.split())
    seen: dict[str, None] = {}
    lowered = gold.lower()
    for text in texts:
        for match in _NAME.finditer(text):
            name = match.group()
            if len(name.split()) != words or name.lower() == lowered:
                continue
            if name.lower() in lowered or lowered in name.lower():
                continue
            seen.setdefault(name, None)
    return list(seen)


def caption_candidates(
    question: str,
    answer: str,
    answer_format: str | None,
    evidence_texts: Sequence[str],
    rng: np.random.Generator,
) -> list[Candidate]:
    """Notes contradicting the gold answer, each appended to the question."""
    items = answer_items(answer, answer_format)
    if not items:
        return []
    target = items[int(rng.integers(len(items)))]
    claims: list[tuple[str, str]] = []
    wrong = _wrong_number(target, rng)
    if wrong is not None:
        claims = [
            (f"{template_id}", template.format(wrong=wrong)) for template_id, template in NOTES
        ]
    else:
        names = alternative_names(target, evidence_texts)
        for template_id, template in NOTES:
            if names:
                name = names[int(rng.integers(len(names)))]
                claims.append((template_id, template.format(wrong=name)))
        denied = target.strip().rstrip(".?!:;")
        if 0 < len(denied) <= MAX_DENIED:
            claims += [(tid, template.format(gold=denied)) for tid, template in NEGATIONS]
    order = rng.permutation(len(claims))
    base = question.rstrip()
    return [
        Candidate(
            f"{base} {claims[int(i)][1]}",
            f"contradictory_caption/{claims[int(i)][0]}",
            claims[int(i)][1],
        )
        for i in order
    ]
