"""The one entry point: ``ModelClient.ask`` / ``ModelClient.map``.

A request becomes a conversation (images encoded once), each reply is looked up in the cache
before any call, calls go through a semaphore (``concurrency`` in flight across threads) and
are retried on transient failures; a reply the caller's ``parse`` rejects is re-asked with
the error in a follow-up turn. Per-request failures come back as ``ModelResult(ok=False)``.
A client that gets ``max_unusable_replies`` unusable replies in a row stops asking, as after
a refused key: ``fatal_error`` says why, quoting the last reply.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, overload

from ..errors import ConfigError, InputError, RunStopped
from .backends import Backend, make_backend, shorten
from .cache import Reply, ReplyCache, cache_key
from .errors import CallFailure
from .images import ENCODED
from .redact import MASK, Redactor
from .request import Conversation, ModelRequest, Turn
from .result import ModelResult
from .retry import RetryPolicy
from .spec import ModelSpec, parse_spec, resolve_api_key
from .stats import ModelStats
from .unusable import DEFAULT_LIMIT, UnusableStreak

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The follow-up turn after an unparseable reply. Part of the cache key of the re-ask, so a
#: change here means fresh re-asks (as it should).
REASK = (
    "Your reply could not be used: {error}\n"
    "Answer the same question again, following the required format exactly."
)
#: Stands in for an empty reply in the re-ask transcript (Anthropic refuses empty turns).
EMPTY_REPLY = "(empty reply)"


@dataclass(frozen=True)
class ClientOptions:
    """How a client behaves. Picklable: worker processes rebuild their own client from it."""

    #: SQLite file of cached replies (e.g. OUT/state/models.sqlite); None disables the cache.
    cache_path: Path | None = None
    concurrency: int = 4  # calls in flight at once, across all threads using the client
    timeout: float = 120.0  # seconds per HTTP attempt
    max_image_side: int = 1024  # images are shrunk to this longest side, never enlarged
    max_reasks: int = 2  # new replies asked for after an unparseable one
    #: Fresh replies in a row that fail to parse before the client stops asking (0: never);
    #: a usable reply starts the count again.
    max_unusable_replies: int = DEFAULT_LIMIT
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    #: Environment variable holding the key; default OPENAI_API_KEY / ANTHROPIC_API_KEY.
    api_key_env: str | None = None

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ConfigError(f"model concurrency must be at least 1, got {self.concurrency}")
        if self.timeout <= 0:
            raise ConfigError(f"model timeout must be positive, got {self.timeout}")
        if self.max_image_side < 16:
            raise ConfigError(f"max_image_side must be at least 16, got {self.max_image_side}")
        if self.max_reasks < 0:
            raise ConfigError(f"max_reasks must not be negative, got {self.max_reasks}")
        if self.max_unusable_replies < 0:
            raise ConfigError(
                f"max_unusable_replies must not be negative, got {self.max_unusable_replies}"
            )


def _text(reply: str) -> str:
    return reply


class ModelClient:
    """A chat model with images behind one interface; see the module docstring.

    Building one reads the key from the environment and opens the cache, but does not
    contact the server. The key is kept by the SDK client only and masked in every message.
    """

    def __init__(self, spec: ModelSpec | str, options: ClientOptions | None = None) -> None:
        self.spec = parse_spec(spec) if isinstance(spec, str) else spec
        if MASK in self.spec.endpoint:
            raise ConfigError(
                f"{self.spec.label}: this URL was read back as written, its query masked;"
                " give the model with its real URL"
            )
        self.options = options or ClientOptions()
        api_key, secret = resolve_api_key(self.spec, self.options.api_key_env)
        self.redact = Redactor.for_environment(api_key if secret else "", *self.spec.secrets)
        self.stats = ModelStats(self.spec.label)
        self.cache = ReplyCache(self.options.cache_path) if self.options.cache_path else None
        self._backend: Backend = make_backend(self.spec, api_key, self.options.timeout)
        self._slots = threading.BoundedSemaphore(self.options.concurrency)
        self._rng = random.Random()
        self._fatal: CallFailure | None = None
        self._unusable = UnusableStreak(self.options.max_unusable_replies)

    @property
    def label(self) -> str:
        return self.spec.label

    @property
    def fatal_error(self) -> str | None:
        """Set after an auth or not-found failure, or ``max_unusable_replies`` unusable
        replies in a row: no later call is made (cached replies are still read)."""
        return self._fatal.message if self._fatal else None

    def __repr__(self) -> str:
        return f"ModelClient({self.spec.label!r})"

    # -- asking ----------------------------------------------------------------------------

    @overload
    def ask(self, request: ModelRequest) -> ModelResult[str]: ...
    @overload
    def ask(self, request: ModelRequest, parse: Callable[[str], T]) -> ModelResult[T]: ...

    def ask(self, request: ModelRequest, parse: Callable[[str], Any] = _text) -> ModelResult[Any]:
        """One request to a result. ``parse`` raises ValueError on a malformed reply, which
        is then re-asked up to ``max_reasks`` times; any other exception is a bug and
        propagates. Never raises for network, HTTP or parse failures."""
        self.stats.add(requests=1)
        tally = _Tally()
        try:
            images = tuple(ENCODED.get(i, self.options.max_image_side) for i in request.images)
        except InputError as exc:
            return self._failed(request, tally, "input", exc.reason)
        turns = [Turn("user", request.text, images)]
        temperature = request.temperature if self._backend.sends_temperature else None
        error = ""
        for attempt in range(self.options.max_reasks + 1):
            if attempt:
                self.stats.add(reasks=1)
            conversation = Conversation(
                request.system,
                tuple(turns),
                request.max_tokens,
                temperature,
                request.schema,
                request.logprobs,
            )
            reply = self._reply(conversation, request.purpose, attempt, tally)
            if isinstance(reply, CallFailure):
                return self._failed(request, tally, reply.kind, reply.message, reply.status)
            try:
                value = parse(reply.text)
            except ValueError as exc:
                error = self.redact(shorten(str(exc) or type(exc).__name__, 300))
                log.info(
                    "%s (%s): unparseable reply (ask %d): %s",
                    self.label,
                    request.purpose,
                    attempt + 1,
                    error,
                )
                if tally.fresh_last and (stop := self._unusable.unusable(reply.text, error)):
                    self._fatal = CallFailure("unusable", stop)
                    return self._failed(request, tally, "unusable", stop)
                turns.append(Turn("assistant", reply.text if reply.text.strip() else EMPTY_REPLY))
                turns.append(Turn("user", REASK.format(error=error)))
                continue
            if tally.fresh_last:
                self._unusable.usable()
            return tally.result(
                self.label,
                request.purpose,
                ok=True,
                value=value,
                raw=reply.text,
                logprobs=reply.logprobs,
            )
        message = f"no parseable reply in {self.options.max_reasks + 1} asks; last error: {error}"
        return self._failed(request, tally, "unparseable", message)

    @overload
    def map(self, requests: Iterable[ModelRequest]) -> list[ModelResult[str]]: ...
    @overload
    def map(
        self, requests: Iterable[ModelRequest], parse: Callable[[str], T]
    ) -> list[ModelResult[T]]: ...

    def map(
        self, requests: Iterable[ModelRequest], parse: Callable[[str], Any] = _text
    ) -> list[ModelResult[Any]]:
        """``ask`` for each request on ``concurrency`` threads; results (failures included)
        in input order. Several threads may call ``map`` at once: the bound is shared."""
        items = list(requests)
        workers = min(len(items), self.options.concurrency)
        if workers <= 1:
            return [self.ask(r, parse) for r in items]
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="model") as pool:
            return list(pool.map(lambda r: self.ask(r, parse), items))

    def close(self) -> None:
        self._backend.close()
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> ModelClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one reply: cache, then calls with retries -----------------------------------------

    def _reply(
        self, conversation: Conversation, purpose: str, attempt: int, tally: _Tally
    ) -> Reply | CallFailure:
        key = cache_key(self._backend.identity, conversation, purpose, attempt)
        if self.cache is not None and (cached := self.cache.get(key)) is not None:
            self.stats.add(
                cache_hits=1,
                cached_input_tokens=cached.input_tokens,
                cached_output_tokens=cached.output_tokens,
            )
            tally.add(cached, cached=True)
            return cached
        reply = self._call(conversation, tally)
        if isinstance(reply, Reply):
            tally.add(reply, cached=False)
            if self.cache is not None:
                self.cache.put(key, reply, model=self.label, purpose=purpose, attempt=attempt)
        return reply

    def _call(self, conversation: Conversation, tally: _Tally) -> Reply | CallFailure:
        policy = self.options.retry
        previous: CallFailure | None = None
        for n in range(policy.max_attempts):
            if self._fatal is not None:
                return CallFailure(
                    "fatal",
                    f"not attempted after an earlier failure: {self._fatal.message}",
                    status=self._fatal.status,
                )
            try:
                with self._slots:
                    self.stats.add(calls=1)
                    tally.calls += 1
                    started = time.monotonic()
                    try:
                        reply = self._backend.send(conversation)
                    finally:
                        self.stats.call_time(time.monotonic() - started)
            except CallFailure as raw:
                failure = raw.redacted(self.redact)
            else:
                self.stats.add(input_tokens=reply.input_tokens, output_tokens=reply.output_tokens)
                return Reply(
                    self.redact(reply.text),
                    reply.input_tokens,
                    reply.output_tokens,
                    reply.stop_reason,
                    reply.logprobs,
                )
            self.stats.error(failure.kind)
            if failure.fatal:
                self._fatal = failure
            if not failure.retryable:
                return failure
            if _same_error_again(previous, failure):
                return CallFailure(
                    failure.kind,
                    f"the same error twice, not retried: {failure.message}",
                    status=failure.status,
                )
            previous = failure
            if n + 1 == policy.max_attempts:
                return CallFailure(
                    failure.kind,
                    f"gave up after {n + 1} attempts; last: {failure.message}",
                    status=failure.status,
                )
            wait = policy.delay(n, failure.retry_after, self._rng)
            self.stats.add(retries=1)
            log.info("%s: %s; retrying in %.2fs", self.label, failure.message, wait)
            time.sleep(wait)
        raise AssertionError("unreachable")

    def _failed(
        self,
        request: ModelRequest,
        tally: _Tally,
        kind: str,
        message: str,
        status: int | None = None,
    ) -> ModelResult[Any]:
        self.stats.add(failures=1)
        message = self.redact(message)
        log.warning("%s (%s): %s", self.label, request.purpose, message)
        return tally.result(
            self.label, request.purpose, ok=False, error=message, kind=kind, status=status
        )


def stop_if_unusable(clients: Iterable[ModelClient | None]) -> None:
    """``RunStopped`` when a client has a fatal error: every later request would fail the
    same way (a refused key, an unknown model, replies never in the format asked for), so a
    command stops rather than record a failure, or fall back to a heuristic, per item. What
    it has written stays; the same command resumes."""
    for client in clients:
        if client is not None and client.fatal_error:
            raise RunStopped(
                f"{client.label} cannot be used: {client.fatal_error}."
                " Fix the model settings and re-run the same command to resume."
            )


#: Statuses that say "later" by definition: the same body twice is still worth a wait.
WAIT_STATUSES = frozenset({408, 429, 502, 503, 504})


def _same_error_again(previous: CallFailure | None, failure: CallFailure) -> bool:
    """A server that answers the same error body twice (llama.cpp's HTTP 500 to every image
    request of a text-only model) is not having a transient fault: back-off would only
    waste minutes."""
    return (
        previous is not None
        and failure.status is not None
        and failure.status not in WAIT_STATUSES
        and (previous.status, previous.message) == (failure.status, failure.message)
    )


class _Tally:
    """What one ``ask`` used: replies (fresh or cached), calls, tokens, the last raw text."""

    def __init__(self) -> None:
        self.calls = 0
        self.asks = 0
        self.fresh = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.raw: str | None = None
        self.fresh_last = False  # whether the last reply was a fresh one (not from the cache)

    def add(self, reply: Reply, *, cached: bool) -> None:
        self.asks += 1
        self.fresh += 0 if cached else 1
        self.fresh_last = not cached
        self.input_tokens += reply.input_tokens
        self.output_tokens += reply.output_tokens
        self.raw = reply.text

    def result(self, model: str, purpose: str, *, ok: bool, **fields: Any) -> ModelResult[Any]:
        fields.setdefault("raw", self.raw)
        return ModelResult(
            ok=ok,
            model=model,
            purpose=purpose,
            cached=self.asks > 0 and self.fresh == 0,
            calls=self.calls,
            asks=self.asks,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            **fields,
        )
