"""Question rewrites: candidates from a generator, kept only when every gate passes.

A rewrite transform asks its generator for candidates (offline: seeded templates filled
with the question's own parts; with a model: the model's rewrites), runs the three gates
on each in turn (length, semantic divergence, grammar) and keeps the first that passes.
When ``attempts`` candidates have failed, or none could be made, the transform raises
:class:`NotApplicable` with the reasons, so a caller can fall back to another transform;
a failed gate is never a silent pass.
"""

from __future__ import annotations

import abc
import difflib
from collections import Counter
from typing import Any, ClassVar

from ..model import GateScore, Plan, RewriteInfo, TokenEdit
from ..rewrites.offline import Candidate
from ..rewrites.slots import QuestionParts, parse_question
from .base import NotApplicable, QuestionTransform, TransformContext
from .params import Param

#: Version of the offline template banks: bump when templates change, so records say
#: which bank produced a rewrite.
OFFLINE_VERSION = "offline/templates-v1"


def question_parts(ctx: TransformContext) -> QuestionParts:
    """The sample's question taken apart, once per sample."""
    return ctx.inputs.derived(
        "question_parts", lambda: parse_question(ctx.sample.question, ctx.sample.options)
    )


class RewriteTransform(QuestionTransform):
    """A question transform whose output must pass the rewrite gates."""

    params: ClassVar[dict[str, Param]] = {
        "attempts": Param(8, "candidates tried before the transform gives up", low=1, high=50),
    }

    @abc.abstractmethod
    def candidates(self, ctx: TransformContext) -> list[Candidate]:
        """Rewrites to try, best first (a subclass: its transform's offline generator)."""

    def check(self, sample) -> str | None:  # type: ignore[override]
        if not sample.question.strip():
            return "the question is empty"
        return super().check(sample)

    def plan(self, ctx: TransformContext) -> Plan:
        from ..rewrites.gates import run_gates

        original = ctx.sample.question
        if not original.strip():
            raise NotApplicable("the question is empty")
        candidates = self.candidates(ctx)
        if not candidates:
            raise NotApplicable(self.no_candidate_reason(ctx))
        failures: Counter[str] = Counter()
        tried = 0
        for candidate in candidates[: self.config["attempts"]]:
            tried += 1
            results = run_gates(original, candidate.text, appended=candidate.appended)
            failed = [r for r in results if not r.passed]
            if failed:
                failures.update(f"{r.name}: {r.detail}" for r in failed[:1])
                continue
            return self._plan(ctx, candidate, results, tried, failures)
        common = "; ".join(f"{reason} (x{n})" for reason, n in failures.most_common(3))
        raise NotApplicable(f"no rewrite passed the gates in {tried} attempts: {common}")

    def no_candidate_reason(self, ctx: TransformContext) -> str:
        return "no template fits this question (no noun phrase or pattern to work with)"

    def _plan(
        self,
        ctx: TransformContext,
        candidate: Candidate,
        results: list[Any],
        tried: int,
        failures: Counter[str],
    ) -> Plan:
        original = ctx.sample.question
        plan = Plan(params=dict(self.config), question=candidate.text, mode="template")
        plan.rewrite = RewriteInfo(
            generator=OFFLINE_VERSION,
            template=candidate.template,
            attempts=tried,
            gates=[
                GateScore(
                    r.name, r.passed, None if r.score is None else round(r.score, 4), r.detail
                )
                for r in results
            ],
        )
        plan.edits.tokens.append(
            TokenEdit(
                old=original, new=candidate.text, where="question", start=0, end=len(original)
            )
        )
        plan.notes.append(f"template {candidate.template} (attempt {tried})")
        if failures:
            plan.notes.append(
                "earlier candidates failed: "
                + "; ".join(f"{reason} (x{n})" for reason, n in failures.most_common(3))
            )
        ratio = difflib.SequenceMatcher(a=original, b=candidate.text, autojunk=False).ratio()
        plan.intensity = 100.0 * (1.0 - ratio)
        return plan
