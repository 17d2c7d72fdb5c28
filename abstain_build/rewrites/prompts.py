"""The instructions a model gets for each rewrite transform (LLM mode).

One prompt per transform: what kind of unanswerability to create, in the method's terms,
and what must not change. The reply format is shared and strict (:mod:`.llm` parses it).
A prompt's ``id`` (name and version) is recorded with every rewrite it produced and is
part of the model cache key: change the wording, bump the version.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Version of the shared frame (system text, rules, reply format); part of every prompt id.
FRAME_VERSION = 1


@dataclass(frozen=True)
class RewritePrompt:
    """What one transform asks of the model."""

    transform: str
    version: int
    goal: str
    #: "rewrite": the model returns whole questions; "note": a sentence appended to the
    #: question (the question itself is kept word for word).
    shape: str = "rewrite"
    #: The prompt shows the gold answer (only where the rewrite must contradict it).
    shows_answer: bool = False

    @property
    def id(self) -> str:
        return f"{self.transform}/v{self.version}.{FRAME_VERSION}"


SYSTEM = (
    "You write test items for a benchmark that checks whether vision-language models"
    " notice when a question cannot be answered from what they are shown. You receive an"
    " exam or document question with its image(s) and turn it into a version that the same"
    " image(s) cannot answer, in one specific way. The result must read like a natural"
    " question from the same field: never say or hint that it is unanswerable, never answer"
    " it, never explain the change. Reply with one JSON object and nothing else."
)

PROMPTS: dict[str, RewritePrompt] = {
    prompt.transform: prompt
    for prompt in (
        RewritePrompt(
            "image_question_mismatch",
            1,
            "Ask about a different phenomenon that the image(s) cannot address at all,"
            " while still naming the question's own subject: for example its sound, smell,"
            " price, owner, history before or after the picture, or its maker's opinions.",
        ),
        RewritePrompt(
            "missing_context",
            1,
            "Make the answer depend on comparative or outside information the image(s) do"
            " not contain: a previous period, a control group, a national or historical"
            " average, a second case that is not shown.",
        ),
        RewritePrompt(
            "impossible_visual_task",
            1,
            "Ask for something no image can settle: an exact physical measurement with no"
            " scale given (mass, temperature, distance in millimetres), a hidden or internal"
            " property, or a distinction finer than the image's resolution.",
        ),
        RewritePrompt(
            "nonexistent_reference",
            1,
            "Make the question refer to a specific element that does not appear in the"
            " image(s): a named label, panel, curve, region or object of the same kind as"
            " those shown, so the question has nothing to point to.",
        ),
        RewritePrompt(
            "multiple_correct_answers",
            1,
            "Add a conflicting constraint or a second convention (another sign convention,"
            " unit system, definition or reading of the question) so that two or more of"
            " the options become defensible and no single answer is correct.",
        ),
        RewritePrompt(
            "ambiguous_reference",
            1,
            "Make the question point at a fabricated element of the same domain as its"
            " subject (an 'other' curve, the 'second' cell, a 'shaded' region that the"
            " image does not single out), so the reader cannot tell which one is meant.",
        ),
        RewritePrompt(
            "contradictory_premise",
            1,
            "Add a premise that is inconsistent with the conditions the question already"
            " states: a second, different value for a given quantity, or a condition that"
            " rules out the situation described.",
        ),
        RewritePrompt(
            "contradictory_caption",
            2,
            "Write a short note to append after the question. It says, with the document's"
            " own authority, that a later revision or an erratum of this same document gives"
            " a different value for what the question asks (for example: 'According to a"
            " later revision of this document, ...'), of the same type as the gold answer: a"
            " number for a number, a date for a date, a name for a name. Never cite a third"
            " party (a press release, a summary, another source), which a reader would"
            " overrule, nor point to a place in the document. The note must not contain the"
            " gold answer.",
            shape="note",
            shows_answer=True,
        ),
    )
}


def prompt_for(transform: str) -> RewritePrompt:
    """The prompt of ``transform`` (KeyError for transforms without one)."""
    return PROMPTS[transform]
