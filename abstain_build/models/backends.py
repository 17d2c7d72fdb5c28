"""What a backend is, and how SDK exceptions become ``CallFailure``s (same for both SDKs)."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any, Protocol

from .cache import Reply
from .errors import CallFailure
from .request import Conversation
from .retry import parse_retry_after
from .spec import ModelSpec

#: Longest server message kept in a failure message.
MESSAGE_CHARS = 500


class Backend(Protocol):
    """Sends one conversation, once (no retries), and returns the reply or raises CallFailure."""

    #: Provider, model, base URL (query masked) and wire choices: part of the cache key
    #: (never the API key).
    identity: dict[str, Any]
    #: False when the provider refuses a temperature (it is then not sent, nor keyed).
    sends_temperature: bool

    def send(self, conversation: Conversation) -> Reply: ...

    def close(self) -> None: ...


def make_backend(spec: ModelSpec, api_key: str, timeout: float) -> Backend:
    """The SDK client for ``spec``; built without contacting the server."""
    if spec.provider == "openai":
        from .openai_backend import OpenAIBackend

        return OpenAIBackend(spec, api_key, timeout)
    from .anthropic_backend import AnthropicBackend

    return AnthropicBackend(spec, api_key, timeout)


def refuses_schema(failure: CallFailure, parameter: str) -> bool:
    """Could this failure be the server refusing the reply schema sent as ``parameter``?

    A 400 or 422 may be; so is any error naming the parameter (llama-cpp-python's server
    answers an unknown ``response_format`` type with HTTP 500 and a validation message)."""
    if failure.kind == "client_error" and failure.status in (400, 422):
        return True
    return failure.status is not None and parameter in failure.message


def status_kind(status: int) -> str:
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    if status == 408:
        return "timeout"
    if status == 429:
        return "rate_limited"
    if status >= 500:
        return "server_error"
    return "client_error"


def failure_from_sdk(exc: Exception, sdk: ModuleType) -> CallFailure | None:
    """The failure an SDK exception stands for; None for exceptions that are not ours to handle.

    The message is built from the status and the server's own message, never from the
    request (whose headers hold the key); the client redacts it again regardless.
    """
    if isinstance(exc, sdk.APITimeoutError):
        return CallFailure("timeout", "no reply within the timeout")
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__
        detail = f": {type(cause).__name__}: {cause}" if cause is not None else ""
        return CallFailure("connection", f"connection failed{detail}")
    if isinstance(exc, sdk.APIStatusError):
        status = exc.status_code
        kind = status_kind(status)
        message = server_message(exc.body) or "no message"
        hint = " (check the API key)" if kind == "auth" else ""
        return CallFailure(
            kind,
            f"HTTP {status} {kind.replace('_', ' ')}{hint}: {message}",
            status=status,
            retry_after=parse_retry_after(exc.response.headers),
        )
    if isinstance(exc, sdk.APIResponseValidationError):
        return CallFailure("bad_response", f"malformed reply body: {exc.message}")
    if isinstance(exc, json.JSONDecodeError):
        return CallFailure("bad_response", f"the reply body is not valid JSON ({exc.msg})")
    return None


def server_message(body: object) -> str:
    """The human-readable part of an error body (OpenAI and Anthropic shapes), shortened."""
    message: object = body
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message", error) if isinstance(error, dict) else error
    if message is None:
        return ""
    text = message if isinstance(message, str) else json.dumps(message, default=str)
    return shorten(text)


def shorten(text: str, limit: int = MESSAGE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def bad_body(what: str, body: object) -> CallFailure:
    return CallFailure("bad_response", f"the reply is not {what}: {shorten(repr(body), 200)}")


def as_int(value: object) -> int:
    return value if isinstance(value, int) and value >= 0 else 0
