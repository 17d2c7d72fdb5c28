"""Replies on disk, so that a re-run asks nothing twice.

SQLite in WAL mode: readers never wait for the writer, and several threads and worker
processes share one file. Each operation borrows a connection from a small pool; a
``database is locked`` that outlasts SQLite's own busy wait is retried with backoff.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..errors import ConfigError
from .request import Conversation

#: Bump when the key material or the meaning of stored rows changes.
KEY_VERSION = 1

R = TypeVar("R")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    purpose TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    text TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    stop_reason TEXT,
    created REAL NOT NULL
)
"""
#: Token log-probabilities, apart: rows of the table above keep their shape.
_LOGPROBS_SCHEMA = """
CREATE TABLE IF NOT EXISTS logprobs (key TEXT PRIMARY KEY, tokens TEXT NOT NULL)
"""


@dataclass(frozen=True)
class Reply:
    """A model's answer as stored: text, token usage, why it stopped."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    stop_reason: str | None = None
    #: Each generated token with its log-probability, when the request asked for them.
    logprobs: tuple[tuple[str, float], ...] | None = None


def cache_key(
    identity: dict[str, Any], conversation: Conversation, purpose: str, attempt: int
) -> str:
    """SHA-256 of everything that decides the reply: endpoint, model, every turn sent
    (images by the hash of the PNG bytes sent), limits, the purpose and the ask number.

    ``identity`` holds provider, model, base URL and backend wire options; never the key,
    nor the URL's query values (masked as in labels: a key there does not change a reply).
    """
    material = {
        "v": KEY_VERSION,
        **identity,
        "purpose": purpose,
        "attempt": attempt,
        "system": conversation.system,
        "turns": [
            {"role": t.role, "text": t.text, "images": [i.sha256 for i in t.images]}
            for t in conversation.turns
        ],
        "max_tokens": conversation.max_tokens,
        "temperature": conversation.temperature,
    }
    if conversation.schema is not None:  # keys of schema-free requests stay as they were
        material["schema"] = conversation.schema.as_json()
    if conversation.logprobs:  # likewise for requests without log-probabilities
        material["logprobs"] = True
    blob = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ReplyCache:
    """A SQLite table of replies by cache key; safe across threads and processes."""

    def __init__(self, path: Path, *, busy_seconds: float = 30.0, lock_retries: int = 8) -> None:
        self.path = Path(path)
        self.busy_seconds = busy_seconds
        self.lock_retries = lock_retries
        self._idle: list[sqlite3.Connection] = []
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._retrying(self._init_schema)
        except (OSError, sqlite3.DatabaseError) as exc:
            raise ConfigError(f"model cache {self.path}: cannot open ({exc})") from None

    def get(self, key: str) -> Reply | None:
        def read(conn: sqlite3.Connection) -> Reply | None:
            row = conn.execute(
                "SELECT r.text, r.input_tokens, r.output_tokens, r.stop_reason, l.tokens"
                " FROM replies r LEFT JOIN logprobs l ON l.key = r.key WHERE r.key = ?",
                (key,),
            ).fetchone()
            if not row:
                return None
            tokens = None if row[4] is None else tuple(map(tuple, json.loads(row[4])))
            return Reply(*row[:4], logprobs=tokens)

        return self._with_connection(read)

    def put(self, key: str, reply: Reply, *, model: str, purpose: str, attempt: int) -> None:
        row = (
            key,
            model,
            purpose,
            attempt,
            reply.text,
            reply.input_tokens,
            reply.output_tokens,
            reply.stop_reason,
            time.time(),
        )
        tokens = None if reply.logprobs is None else json.dumps(reply.logprobs)

        def write(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            if tokens is not None:
                conn.execute("INSERT OR REPLACE INTO logprobs VALUES (?, ?)", (key, tokens))

        self._with_connection(write)

    def __len__(self) -> int:
        return self._with_connection(
            lambda conn: conn.execute("SELECT COUNT(*) FROM replies").fetchone()[0]
        )

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for conn in self._all:
                conn.close()
            self._all.clear()
            self._idle.clear()

    # -- connections -----------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        # Autocommit (isolation_level=None): every statement is its own short transaction.
        conn = sqlite3.connect(
            self.path, timeout=self.busy_seconds, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _init_schema(self) -> None:
        with self._borrow() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)
            conn.execute(_LOGPROBS_SCHEMA)

    @contextmanager
    def _borrow(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._closed:
                raise RuntimeError(f"model cache {self.path} is closed")
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self._connect()
            with self._lock:
                self._all.append(conn)
        try:
            yield conn
        finally:
            with self._lock:
                if not self._closed:
                    self._idle.append(conn)

    def _with_connection(self, work: Callable[[sqlite3.Connection], R]) -> R:
        def attempt() -> R:
            with self._borrow() as conn:
                return work(conn)

        return self._retrying(attempt)

    def _retrying(self, work: Callable[[], R]) -> R:
        for n in range(self.lock_retries + 1):
            try:
                return work()
            except sqlite3.OperationalError as exc:
                text = str(exc).lower()
                if n == self.lock_retries or ("locked" not in text and "busy" not in text):
                    raise
                time.sleep(random.uniform(0, min(2.0, 0.05 * 2**n)))
        raise AssertionError("unreachable")
