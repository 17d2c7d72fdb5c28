"""How one item is answered: the standalone model, the two multi-agent systems, and the
abstention baselines. Each method is ``Context -> Outcome``; ``METHODS`` names them.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable
from typing import Any

from ..models import ModelResult
from ..scoring.answers import grade
from ..scoring.predictions import ANCHORS
from .agents import (
    ABSTAIN_DECISION,
    APPROVE,
    ROUNDS,
    Rounds,
    abstention_reply,
    review_parser,
    verifier_request,
)
from .context import Context, NotAvailable, Outcome
from .prompts import ABSTAIN, Reply, build_request, parse_reply
from .scores import (
    COT_ABSTENTION,
    SELF_CONSISTENCY_SAMPLES,
    SELF_CONSISTENCY_TEMPERATURE,
    answer_probability,
    cot_abstention_request,
    parse_cot_abstention,
    parse_ptrue,
    ptrue_request,
)

Method = Callable[[Context], Outcome]

#: Baselines that ask the model.
MODEL_BASELINES = ("self-consistency", "ptrue", COT_ABSTENTION, "maxprob")
#: ``verbal-confidence`` is the vconf condition: eval's threshold sweep scores it.
BASELINES = (*ANCHORS, "verbal-confidence", *MODEL_BASELINES)


def _reply(ctx: Context, step: str, **changes: Any) -> ModelResult[Reply]:
    """The standalone prompt for this item, under the run's condition and clause unless
    ``changes`` says otherwise (a baseline's fixed base/standard cell, a temperature)."""
    condition = changes.pop("condition", ctx.condition)
    clause = changes.pop("clause", ctx.clause)
    changes.setdefault("temperature", ctx.temperature)
    request = build_request(
        ctx.item.question,
        ctx.item.options,
        ctx.item.images,
        condition=condition,
        clause=clause,
        pages=ctx.item.pages,
        max_tokens=ctx.max_tokens,
        **changes,
    )
    return ctx.ask(step, request, lambda text: parse_reply(text, condition))


def standalone(ctx: Context) -> Outcome:
    """One model, one call, under the run's condition and clause."""
    reply = _reply(ctx, "answer").value
    fields = {} if reply.confidence is None else {"confidence": reply.confidence}
    return Outcome(reply.response, fields)


def multi_agent(rounds: int) -> Method:
    """A Reasoner and a Verifier for up to ``rounds`` rounds (1: sequential)."""

    def run(ctx: Context) -> Outcome:
        state = Rounds(decisions=[], feedback=[])
        feedback: str | None = None
        for number in range(1, rounds + 1):
            # Round 1 is the standalone request (its cached reply is shared with a standalone
            # run); later rounds are new requests even when the feedback repeats itself.
            variant = f"round-{number}" if number > 1 else ""
            candidate = _reply(ctx, f"reasoner-{number}", feedback=feedback, variant=variant).value
            if ctx.abstained(candidate):
                state.decisions.append("REASONER_ABSTAINED")
                state.reasoner_answered = False
                return _mas_outcome(candidate, state)
            state.reasoner_answered = True
            final_round = number == rounds
            review = ctx.ask(
                f"verifier-{number}",
                verifier_request(
                    ctx.item,
                    candidate,
                    final_round=final_round,
                    round=number,
                    temperature=ctx.temperature,
                ),
                review_parser(final_round),
            ).value
            state.decisions.append(review.decision)
            state.feedback.append(review.feedback)
            if review.decision == APPROVE:
                return _mas_outcome(candidate, state)
            if review.decision == ABSTAIN_DECISION:
                state.overridden = True
                return _mas_outcome(abstention_reply(review), state, candidate.confidence)
            feedback = review.feedback
        raise AssertionError("the last round's Verifier can only approve or abstain")

    return run


def _mas_outcome(reply: Reply, state: Rounds, confidence: float | None = None) -> Outcome:
    confidence = reply.confidence if confidence is None else confidence
    fields: dict[str, object] = {"mas": state.to_line()}
    if confidence is not None:
        fields["confidence"] = confidence
    return Outcome(reply.response, fields, {"feedback": state.feedback})


# -- degenerate anchors ------------------------------------------------------------------


def _rng(ctx: Context, purpose: str) -> random.Random:
    """A generator per item and seed: the same draw whatever the order or the resume."""
    digest = hashlib.sha256(f"{ctx.seed}\0{purpose}\0{ctx.record['id']}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def guess(ctx: Context) -> str:
    """An answer without a model: a random option's letter, or '0' for an open question
    (chance-level accuracy, never an abstention phrase)."""
    options = ctx.item.options[:26]
    if options:
        return chr(65 + _rng(ctx, "guess").randrange(len(options)))
    return "0"


def always_abstain(ctx: Context) -> Outcome:
    return Outcome(f"Answer: {ABSTAIN}")


def never_abstain(ctx: Context) -> Outcome:
    return Outcome(f"Answer: {guess(ctx)}")


def random_abstain(ctx: Context) -> Outcome:
    """Abstain with probability 1/2, else guess."""
    if _rng(ctx, "abstain").random() < 0.5:
        return always_abstain(ctx)
    return never_abstain(ctx)


# -- baselines that ask the model --------------------------------------------------------


def self_consistency(ctx: Context) -> Outcome:
    """N samples at T=0.7 under base/standard; the answer a strict majority gives, or an
    abstention. Answers are the same when eval's grader says so (with the first of a group
    as the gold); abstentions are one more group, so a majority of abstentions abstains."""
    samples = []
    for index in range(SELF_CONSISTENCY_SAMPLES):
        reply = _reply(
            ctx,
            f"sample-{index + 1}",
            condition="base",
            clause="standard",
            temperature=SELF_CONSISTENCY_TEMPERATURE,
            variant=f"sample-{index + 1}",
        ).value
        samples.append(reply)
    groups: list[list[int]] = []
    abstentions: list[int] = []
    answer_format = ctx.record.get("answer_format")
    options = list(ctx.item.options) or None
    for index, reply in enumerate(samples):
        if ctx.abstained(reply):
            abstentions.append(index)
            continue
        for group in groups:
            head = samples[group[0]].answer
            if grade(reply.response, head, answer_format=answer_format, options=options).correct:
                group.append(index)
                break
        else:
            groups.append([index])
    biggest = max(groups, key=len, default=[])
    votes: dict[str, Any] = {"samples": len(samples), "abstained": len(abstentions)}
    votes["groups"] = sorted((len(g) for g in groups), reverse=True)
    if len(biggest) * 2 > len(samples):
        chosen = samples[biggest[0]]
        votes["majority"] = len(biggest)
        return Outcome(chosen.response, {"votes": votes})
    votes["majority"] = len(abstentions) if len(abstentions) * 2 > len(samples) else 0
    reason = "The sampled answers did not agree: no answer has a strict majority."
    return Outcome(f"{reason}\nAnswer: {ABSTAIN}", {"votes": votes})


def ptrue(ctx: Context) -> Outcome:
    """The base answer (T=0.1, standard clause), then the model's probability that it is
    right, as ``probability``: eval sweeps the threshold below which it abstains."""
    reply = _reply(ctx, "answer", condition="base", clause="standard").value
    if ctx.abstained(reply):
        return Outcome(reply.response)
    request = ptrue_request(ctx.item, reply, ctx.temperature)
    rating = ctx.ask("p-true", request, parse_ptrue).value
    return Outcome(reply.response, {"probability": rating})


def cot_abstention(ctx: Context) -> Outcome:
    """One call that first lists the evidence needed, shown and missing, then decides."""
    request = cot_abstention_request(ctx.item, ctx.max_tokens, ctx.temperature)
    reply = ctx.ask("answer", request, parse_cot_abstention).value
    return Outcome(reply.response)


def maxprob(ctx: Context) -> Outcome:
    """The base answer (T=0.1, standard clause) with token log-probabilities; the answer's
    probability (the product over its tokens) as ``probability``."""
    if ctx.client is not None and ctx.client.spec.provider == "anthropic":
        raise NotAvailable(
            "maxprob needs token log-probabilities, which Anthropic's API does not return:"
            " not available for this model"
        )
    result = _reply(ctx, "answer", condition="base", clause="standard", logprobs=True)
    reply = result.value
    if not result.logprobs:
        raise NotAvailable(
            f"maxprob: {ctx.client.label if ctx.client else 'the model'} sent no token"
            " log-probabilities (the OpenAI-compatible `logprobs` option): not available"
            " for this endpoint"
        )
    if ctx.abstained(reply):
        return Outcome(reply.response)
    logprob, span = answer_probability(result.raw or "", result.logprobs, reply.answer)
    return Outcome(reply.response, {"probability": round(math.exp(logprob), 6)}, {"span": span})


def method_for(system: str, baseline: str | None) -> Method:
    """The method a run names with --system / --baseline."""
    if baseline:
        return {
            "always-abstain": always_abstain,
            "never-abstain": never_abstain,
            "random-abstain": random_abstain,
            "verbal-confidence": standalone,
            "self-consistency": self_consistency,
            "ptrue": ptrue,
            COT_ABSTENTION: cot_abstention,
            "maxprob": maxprob,
        }[baseline]
    return {
        "standalone": standalone,
        "mas-sequential": multi_agent(1),
        "mas-iterative": multi_agent(ROUNDS),
    }[system]
