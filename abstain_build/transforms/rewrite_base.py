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
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..model import MODALITY, GateScore, ModelUsage, Plan, RewriteInfo, TokenEdit
from ..rewrites.anchored import ImageFacts
from ..rewrites.offline import GENERATORS, OFFLINE_UNAVAILABLE, Candidate
from ..rewrites.slots import QuestionParts, parse_question
from .base import NotApplicable, QuestionTransform, TransformContext
from .params import Param

if TYPE_CHECKING:
    from ..models import ModelRequest, ModelResult
    from ..rewrites.llm import RejectedCandidate
    from ..rewrites.prompts import RewritePrompt

#: Version of the offline template banks: bump when templates change, so records say
#: which bank produced a rewrite.
OFFLINE_VERSION = "offline/templates-v3"


def image_facts(ctx: TransformContext) -> ImageFacts:
    """What the sample's images print (OCR) and which marker colours they show, once per
    sample; unchecked when the sample has no image or OCR is unavailable."""

    def read() -> ImageFacts:
        from ..rewrites.anchored import marker_colours
        from ..textregions.detect import image_words
        from ..textregions.ocr import OcrError

        if not ctx.sample.images:
            return ImageFacts()
        images = ctx.inputs.images()
        try:
            words = [w.text for image in images for w in image_words(image)]
        except OcrError:
            return ImageFacts(colours=marker_colours(images))
        return ImageFacts(" ".join(words).lower(), marker_colours(images), checked=True)

    return ctx.inputs.derived("image_facts", read)


def question_parts(ctx: TransformContext) -> QuestionParts:
    """The sample's question taken apart, once per sample."""
    return ctx.inputs.derived(
        "question_parts", lambda: parse_question(ctx.sample.question, ctx.sample.options)
    )


class RewriteTransform(QuestionTransform):
    """A question transform whose output must pass the rewrite gates.

    Offline (no model configured) the candidates are :meth:`candidates`; with a model in
    ``ctx.llm`` they come from the transform's prompt (:mod:`..rewrites.prompts`), in up
    to ``llm_calls`` requests, each retry told which candidates failed which gate.
    """

    #: The LLM-mode prompt; None: the built-in one of this name, if any
    #: (:data:`..rewrites.prompts.PROMPTS`). A plugin sets its own ``RewritePrompt``.
    prompt: ClassVar[RewritePrompt | None] = None

    params: ClassVar[dict[str, Param]] = {
        "attempts": Param(8, "candidates tried before the transform gives up", low=1, high=50),
        "llm_calls": Param(
            2, "LLM mode: requests for candidates before the transform gives up", low=1, high=5
        ),
    }

    @classmethod
    def expected_mode(cls, llm: bool) -> str:
        return "llm" if llm and cls.llm_prompt() is not None else "template"

    @abc.abstractmethod
    def candidates(self, ctx: TransformContext) -> list[Candidate]:
        """Rewrites to try, best first (a subclass: its transform's offline generator)."""

    def model_inputs(self, ctx: TransformContext) -> tuple[list[bytes], str]:
        """What the model sees besides the question: images, and evidence text (documents)."""
        return ctx.inputs.image_bytes() if ctx.sample.images else [], ""

    @classmethod
    def llm_prompt(cls) -> RewritePrompt | None:
        """The prompt this transform sends in LLM mode (None: offline only)."""
        from ..rewrites.prompts import PROMPTS

        return cls.prompt if cls.prompt is not None else PROMPTS.get(cls.name)

    @classmethod
    def info(cls) -> dict[str, Any]:
        out = super().info()
        prompt = cls.llm_prompt()
        out["rewrite"] = {
            "offline": OFFLINE_VERSION,
            "llm_prompt": None if prompt is None else {"id": prompt.id, "goal": prompt.goal},
        }
        return out

    def check(self, sample) -> str | None:  # type: ignore[override]
        if not sample.question.strip():
            return "the question is empty"
        return super().check(sample)

    def plan(self, ctx: TransformContext) -> Plan:
        if not ctx.sample.question.strip():
            raise NotApplicable("the question is empty")
        if ctx.llm is not None:
            return self._plan_with_model(ctx)
        candidates = self.candidates(ctx)
        if not candidates:
            raise NotApplicable(self.no_candidate_reason(ctx))
        trial = _Trial(ctx.sample.question, self.config["attempts"])
        for candidate in candidates:
            if trial.exhausted:
                break
            if trial.passes(candidate):
                return self._plan(ctx, trial, OFFLINE_VERSION, "template")
        raise NotApplicable(trial.failure())

    def model_request(
        self, ctx: TransformContext, rejected: Sequence[RejectedCandidate] = ()
    ) -> tuple[ModelRequest, Callable[[str], list[str]]] | None:
        """The request for candidates and its reply parser (None: no prompt for this transform)."""
        from ..rewrites.llm import build_request, reply_parser

        prompt = self.llm_prompt()
        if prompt is None:
            return None
        sample = ctx.sample
        images, evidence_text = ctx.inputs.derived(
            ("model_inputs", type(self).model_inputs), lambda: self.model_inputs(ctx)
        )
        request = build_request(
            prompt,
            sample.question,
            sample.options,
            images=images,
            answer=sample.answer,
            evidence_text=evidence_text,
            rejected=rejected,
        )
        return request, reply_parser(prompt)

    def _plan_with_model(self, ctx: TransformContext) -> Plan:
        from ..rewrites.llm import RejectedCandidate

        prompt = self.llm_prompt()
        if prompt is None:
            raise NotApplicable(f"{self.name} has no LLM prompt; run it without --llm")
        sample = ctx.sample
        trial = _Trial(sample.question, self.config["attempts"])
        usage = ModelUsage()
        rejected: list[RejectedCandidate] = []
        for _ in range(self.config["llm_calls"]):
            made = self.model_request(ctx, rejected)
            assert made is not None
            request, parse = made
            result = ask_once(ctx, request, parse)
            usage.requests += 1
            usage.input_tokens += result.input_tokens
            usage.output_tokens += result.output_tokens
            texts = result.unwrap()  # a ModelError is this sample's error record
            for text in texts:
                if trial.exhausted:
                    break
                candidate = _model_candidate(sample.question, text, prompt.shape, prompt.id)
                if trial.passes(candidate):
                    plan = self._plan(ctx, trial, f"llm:{ctx.llm.label}", "llm")
                    plan.rewrite.model = usage
                    return plan
                rejected.append(RejectedCandidate(text, trial.last_reason))
            if trial.exhausted:
                break
        raise NotApplicable(f"{ctx.llm.label}: {trial.failure()}")

    def no_candidate_reason(self, ctx: TransformContext) -> str:
        return "no template fits this question (no noun phrase or pattern to work with)"

    def _plan(self, ctx: TransformContext, trial: _Trial, generator: str, mode: str) -> Plan:
        original = ctx.sample.question
        candidate, results = trial.passed
        plan = Plan(params=dict(self.config), question=candidate.text, mode=mode)
        plan.rewrite = RewriteInfo(
            generator=generator,
            template=candidate.template,
            attempts=trial.tried,
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
        source = "prompt" if mode == "llm" else "template"
        plan.notes.append(f"{source} {candidate.template} (attempt {trial.tried})")
        if trial.failures:
            plan.notes.append(f"earlier candidates failed: {trial.common_failures()}")
        ratio = difflib.SequenceMatcher(a=original, b=candidate.text, autojunk=False).ratio()
        plan.intensity = 100.0 * (1.0 - ratio)
        return plan


def reply_key(request: ModelRequest) -> tuple[str, str, str]:
    """Where a sample's inputs keep a reply already asked for (see :func:`ask_once`)."""
    return ("model_reply", request.purpose, request.text)


def ask_once(ctx: TransformContext, request: ModelRequest, parse) -> ModelResult:
    """The model's reply to ``request``: one fetched ahead for this sample (the pipeline
    asks every rewrite transform's first request at once), or a new call."""
    assert ctx.llm is not None
    llm = ctx.llm
    return ctx.inputs.derived(reply_key(request), lambda: llm.ask(request, parse))


def _model_candidate(question: str, text: str, shape: str, prompt_id: str) -> Candidate:
    """A model's reply as a candidate: a whole rewrite, or a note appended to the question."""
    if shape == "note":
        note = text.strip()
        return Candidate(text=f"{question.strip()} {note}", template=prompt_id, appended=note)
    return Candidate(text=text.strip(), template=prompt_id)


class _Trial:
    """Candidates tried against the gates, up to a limit, with the reasons they failed."""

    def __init__(self, original: str, limit: int) -> None:
        self.original = original
        self.limit = limit
        self.tried = 0
        self.failures: Counter[str] = Counter()
        self.last_reason = ""
        self.passed: tuple[Candidate, list[Any]] | None = None

    @property
    def exhausted(self) -> bool:
        return self.tried >= self.limit

    def passes(self, candidate: Candidate) -> bool:
        from ..rewrites.gates import run_gates

        self.tried += 1
        results = run_gates(self.original, candidate.text, appended=candidate.appended)
        failed = [r for r in results if not r.passed]
        if not failed:
            self.passed = (candidate, results)
            return True
        self.last_reason = f"{failed[0].name}: {failed[0].detail}"
        self.failures[self.last_reason] += 1
        return False

    def common_failures(self) -> str:
        return "; ".join(f"{reason} (x{n})" for reason, n in self.failures.most_common(3))

    def failure(self) -> str:
        if not self.tried:
            return "no candidate to try"
        return f"no rewrite passed the gates in {self.tried} attempts: {self.common_failures()}"


class OfflineRewrite(RewriteTransform):
    """A question rewrite of an image item whose offline generator is a template of
    :mod:`..rewrites.offline` (with ``--llm``, the model writes it)."""

    axis = MODALITY
    target = "question"

    def candidates(self, ctx: TransformContext) -> list[Candidate]:
        if self.name in OFFLINE_UNAVAILABLE:
            return []  # no template to fill: no need to read the images
        return GENERATORS[self.name](question_parts(ctx), ctx.rng, image_facts(ctx))

    def no_candidate_reason(self, ctx: TransformContext) -> str:
        return OFFLINE_UNAVAILABLE.get(self.name) or (
            "no offline template fits this question: it names no image reference, given"
            " quantity or loosenable ask the templates can work with, or the image already"
            " shows what they would invent"
        )
