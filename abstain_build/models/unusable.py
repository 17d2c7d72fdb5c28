"""Replies in a row that could not be used: a model that answers, but never in the format
asked for (prose instead of JSON, a server that ignores ``response_format``).

Such a model passes the start-up probe and then fails every request after all its
re-asks; without a bound, a run spends its whole budget to produce nothing. One count per
client, over all its requests and threads, says when to stop.
"""

from __future__ import annotations

import threading

from .backends import shorten

#: Unusable replies in a row before a client stops asking (``ClientOptions``).
DEFAULT_LIMIT = 5
#: How much of the last reply the stop message quotes.
QUOTED_CHARS = 100


class UnusableStreak:
    """Counts fresh replies in a row that the caller's parser refused; a usable one starts
    the count again. ``limit`` 0: no bound."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self._count = 0
        self._lock = threading.Lock()

    def usable(self) -> None:
        with self._lock:
            self._count = 0

    def unusable(self, reply: str, error: str) -> str | None:
        """Count one refused reply; the stop message (quoting ``reply``, saying ``error``)
        when it is the one that reaches the limit, else None."""
        with self._lock:
            self._count += 1
            if not self.limit or self._count != self.limit:
                return None
        quoted = shorten(reply, QUOTED_CHARS) if reply.strip() else "(empty)"
        return (
            f"{self.limit} replies in a row were not in the format asked for;"
            f' the last: "{quoted}" ({error})'
        )
