"""Inferential impossibility: ask about a period the document does not cover."""

from __future__ import annotations

import difflib

from ...model import EVIDENCE, Plan, TokenEdit
from ...routing.scoring import NEEDS_PERIOD, NEEDS_TIME
from ..base import NotApplicable, QuestionTransform, TransformContext
from ..functional.timeref import coverage, find_years, mentions_quarter, replace_years
from ..params import Param
from ..registry import register_transform


@register_transform
class TemporalDrift(QuestionTransform):
    name = "temporal_drift"
    family = "inferential_impossibility"
    constraints = (NEEDS_TIME, NEEDS_PERIOD)
    axis = EVIDENCE
    target = "question"
    description = (
        "Shift the question's years / fiscal years (and quarters with them) to a period outside"
        " every year mentioned in the document's text, keeping their notation (FY15, 2015)."
    )
    params = {
        "min_gap": Param(1, "fewest years beyond the document's coverage", low=1, high=50),
        "max_gap": Param(4, "most years beyond the document's coverage", low=1, high=100),
        "direction": Param(
            "any", "move after, before, or either way", choices=("any", "after", "before")
        ),
    }
    intensity_doc = "100 * share of the question's characters that changed."

    def plan(self, ctx: TransformContext) -> Plan:
        question = ctx.sample.question
        mentions = find_years(question)
        if not mentions:
            if mentions_quarter(question):
                raise NotApplicable("the question names a quarter but no year to move")
            raise NotApplicable("the question has no year, fiscal year or quarter with a year")
        texts = ctx.inputs.page_texts()
        if not any(text.strip() for text in texts):
            raise NotApplicable(
                "the document has no text layer, so the period it covers cannot be read"
            )
        covered = coverage(texts)
        if covered is None:
            raise NotApplicable("the document's text mentions no year, so its period is unknown")
        first, last = covered.first, covered.last
        low_gap, high_gap = (
            self.config["min_gap"],
            max(self.config["min_gap"], self.config["max_gap"]),
        )
        gap = int(ctx.rng.integers(low_gap, high_gap + 1))
        direction = self.config["direction"]
        if direction == "any":
            direction = "after" if ctx.rng.random() < 0.5 else "before"
        asked = [m.year for m in mentions]
        shift = last + gap - min(asked) if direction == "after" else first - gap - max(asked)
        new_question, changes = replace_years(question, mentions, shift)
        plan = Plan(
            params={
                **self.config,
                "coverage": [first, last],
                "direction_used": direction,
                "gap_years": gap,
                "shift_years": shift,
            },
            question=new_question,
            mode="rule",
        )
        for mention, new in changes:
            plan.edits.tokens.append(
                TokenEdit(
                    old=mention.text,
                    new=new,
                    where="question",
                    start=mention.start,
                    end=mention.end,
                )
            )
        plan.notes.append(
            f"document text covers {first}-{last}; question years {sorted(set(asked))}"
            f" moved {shift:+d} to {sorted({y + shift for y in asked})}"
        )
        if covered.outliers:
            plan.notes.append(f"far-off years ignored for coverage: {list(covered.outliers)}")
        ratio = difflib.SequenceMatcher(a=question, b=new_question, autojunk=False).ratio()
        plan.intensity = 100.0 * (1.0 - ratio)
        return plan
