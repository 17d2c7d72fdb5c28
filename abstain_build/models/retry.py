"""When to try again: exponential backoff with full jitter, and the server's retry-after."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

from ..errors import ConfigError


@dataclass(frozen=True)
class RetryPolicy:
    """``max_attempts`` HTTP attempts per reply; waits drawn from [0, base * 2**n], capped."""

    max_attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    #: A server asking for a longer pause than this gets this long (it could ask for hours).
    retry_after_cap: float = 60.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigError(f"max_attempts must be at least 1, got {self.max_attempts}")
        if min(self.base_delay, self.max_delay, self.retry_after_cap) < 0:
            raise ConfigError("retry delays must not be negative")

    def delay(self, retry: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number ``retry`` (0 for the first retry)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.retry_after_cap)
        return rng.uniform(0.0, min(self.max_delay, self.base_delay * 2.0**retry))


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date), if any."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
