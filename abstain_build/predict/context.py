"""What a method gets for one item (``Context``) and gives back (``Outcome``).

A method asks the model through ``Context.ask``, which records every step (its raw reply,
tokens, calls and whether it came from the cache) in a ``Trace``: the sidecar line of the
item. A step that fails ends the item with that failure; it is asked again on resume.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..errors import ConfigError
from ..models import ModelClient, ModelRequest, ModelResult
from ..scoring.abstention import AbstentionMatcher
from .prompts import Item, Reply

T = TypeVar("T")


class StepFailed(Exception):
    """A model step gave no usable reply; the item is failed (and retried on resume)."""


class NotAvailable(ConfigError):
    """The method cannot run with this endpoint at all (MaxProb without log-probabilities)."""


@dataclass
class Trace:
    """Every model step of one item, in order."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    #: Tokens of fresh (not cached) replies: what this item cost.
    billed_input_tokens: int = 0
    billed_output_tokens: int = 0

    def add(self, step: str, result: ModelResult[Any]) -> None:
        self.steps.append(
            {
                "step": step,
                "ok": result.ok,
                "raw": result.raw,
                "error": result.error,
                "calls": result.calls,
                "cached": result.cached,
                "input_tokens": result.input_tokens,
                "output_tokens": result.output_tokens,
            }
        )
        self.calls += result.calls
        self.input_tokens += result.input_tokens
        self.output_tokens += result.output_tokens
        if not result.cached:
            self.billed_input_tokens += result.input_tokens
            self.billed_output_tokens += result.output_tokens


@dataclass
class Context:
    """One item, the model, and how to tell an answer from an abstention (eval's matcher)."""

    record: dict[str, Any]
    item: Item
    client: ModelClient | None
    matcher: AbstentionMatcher
    condition: str
    clause: str
    seed: int = 0
    max_tokens: int = 1024
    temperature: float = 0.1
    trace: Trace = field(default_factory=Trace)

    @property
    def answers(self) -> list[str]:
        """Texts that are answers to this item (options, gold): quoted, not abstentions."""
        gold = self.record.get("answer") or self.record.get("original_answer")
        return [*self.item.options, *([str(gold)] if gold else [])]

    def ask(self, step: str, request: ModelRequest, parse: Callable[[str], T]) -> ModelResult[T]:
        """One model step; StepFailed when it gave no usable reply."""
        if self.client is None:
            raise ConfigError("this method needs --model")
        result = self.client.ask(request, parse)
        self.trace.add(step, result)
        if not result.ok:
            raise StepFailed(f"{step}: {result.error}")
        return result

    def abstained(self, reply: Reply) -> bool:
        """Whether ``reply`` abstains, read as ``eval`` reads it."""
        return self.matcher.match(reply.response, self.answers).abstained


@dataclass
class Outcome:
    """A method's result for one item: the predictions line's fields besides ``id``, and
    what the sidecar adds (rounds, votes, ...)."""

    response: str
    fields: dict[str, Any] = field(default_factory=dict)
    log: dict[str, Any] = field(default_factory=dict)

    def line(self, item_id: str, method: str) -> dict[str, Any]:
        return {"id": item_id, "response": self.response, **self.fields, "method": method}
