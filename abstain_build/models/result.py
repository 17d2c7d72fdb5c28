"""What a call gives back: a parsed value, or a failure that says why, never a guess."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .errors import ModelError

T = TypeVar("T")


@dataclass(frozen=True)
class ModelResult(Generic[T]):
    """``ok`` with ``value``; or not ``ok`` with ``kind`` and ``error`` (and ``raw`` if any).

    ``raw`` is the last reply text (the unparseable one, on a parse failure). Token counts
    are summed over every reply this result used, whether fresh or from the cache.
    """

    ok: bool
    model: str
    purpose: str
    value: T | None = None
    raw: str | None = None
    error: str | None = None
    kind: str | None = None  # failure kind, see errors.RETRYABLE_KINDS / FATAL_KINDS
    status: int | None = None  # HTTP status of the last failed attempt
    cached: bool = False  # True when every reply used came from the cache
    calls: int = 0  # HTTP attempts made for this result (0 when all replies were cached)
    asks: int = 0  # replies obtained: 1 + re-asks after unparseable replies
    input_tokens: int = 0
    output_tokens: int = 0
    #: The parsed reply's tokens with their log-probabilities, when they were asked for and
    #: the server sent them.
    logprobs: tuple[tuple[str, float], ...] | None = None

    def unwrap(self) -> T:
        """The value, or ``ModelError`` with the failure message."""
        if not self.ok:
            raise ModelError(
                f"{self.model} ({self.purpose}): {self.error}",
                kind=self.kind or "error",
                model=self.model,
                purpose=self.purpose,
                status=self.status,
            )
        return self.value  # type: ignore[return-value]

    def to_json(self) -> dict[str, Any]:
        """The audit fields for a record (the value is the caller's to record)."""
        return {
            "ok": self.ok,
            "model": self.model,
            "purpose": self.purpose,
            "raw": self.raw,
            "error": self.error,
            "kind": self.kind,
            "status": self.status,
            "cached": self.cached,
            "calls": self.calls,
            "asks": self.asks,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }
