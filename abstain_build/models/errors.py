"""How a model call fails: ``CallFailure`` inside the client, ``ModelError`` for callers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import SampleError

if TYPE_CHECKING:
    from .redact import Redactor

#: Failure kinds. Retried: timeout, connection, rate_limited, server_error, bad_response.
#: Not retried: auth, not_found, client_error (other 4xx), input (an unusable image),
#: unparseable (every re-ask failed to parse), unusable (the reply that made
#: ``max_unusable_replies`` unusable ones in a row), fatal (not attempted after an earlier
#: auth, not-found or unusable failure).
RETRYABLE_KINDS = frozenset(
    {"timeout", "connection", "rate_limited", "server_error", "bad_response"}
)
#: Failures that no other request to the same endpoint can avoid: later calls fail at once.
FATAL_KINDS = frozenset({"auth", "not_found"})


class CallFailure(Exception):
    """One HTTP attempt failed; raised by backends, handled (retried or reported) by the client."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE_KINDS

    @property
    def fatal(self) -> bool:
        return self.kind in FATAL_KINDS

    def redacted(self, redact: Redactor) -> CallFailure:
        return CallFailure(
            self.kind, redact(self.message), status=self.status, retry_after=self.retry_after
        )


class ModelError(SampleError):
    """A model call that gave no usable reply, for callers that want an exception.

    A ``SampleError`` so that the pipeline turns it into a per-sample error record.
    """

    def __init__(
        self, reason: str, *, kind: str, model: str, purpose: str, status: int | None = None
    ) -> None:
        super().__init__("model", reason)
        self.kind = kind
        self.model = model
        self.purpose = purpose
        self.status = status
