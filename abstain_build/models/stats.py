"""Call and token counts per model, for the run manifest."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable
from typing import Any

_COUNTERS = (
    "requests",  # ask() calls
    "calls",  # HTTP attempts sent, including retried ones
    "cache_hits",  # replies served from the cache
    "retries",  # attempts repeated after a retryable failure
    "reasks",  # follow-up asks after an unparseable reply (answered fresh or from the cache)
    "failures",  # requests that ended without a usable value
    "input_tokens",  # fresh calls only
    "output_tokens",
    "cached_input_tokens",  # tokens of replies replayed from the cache (not paid again)
    "cached_output_tokens",
)


class ModelStats:
    """Thread-safe counters for one model; ``errors`` counts failed attempts by kind.

    ``stats["calls"]`` reads a counter, ``stats["timeout"]`` an error kind.
    """

    def __init__(self, model: str) -> None:
        self.model = model
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._errors: Counter[str] = Counter()
        self._call_seconds = 0.0

    def add(self, **counts: int) -> None:
        unknown = set(counts) - set(_COUNTERS)
        if unknown:
            raise KeyError(f"unknown counters {sorted(unknown)}")
        with self._lock:
            self._counts.update(counts)

    def error(self, kind: str) -> None:
        with self._lock:
            self._errors[kind] += 1

    def call_time(self, seconds: float) -> None:
        with self._lock:
            self._call_seconds += seconds

    def __getitem__(self, name: str) -> int:
        with self._lock:
            return self._counts[name] if name in _COUNTERS else self._errors[name]

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            out: dict[str, Any] = {"model": self.model}
            out.update({name: self._counts[name] for name in _COUNTERS})
            out["errors"] = dict(sorted(self._errors.items()))
            out["call_seconds"] = round(self._call_seconds, 3)
            return out


def merge_stats(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sum ``to_json()`` dicts (e.g. from worker processes) per model, in first-seen order."""
    merged: dict[str, dict[str, Any]] = {}
    for item in items:
        into = merged.setdefault(
            item["model"],
            {
                "model": item["model"],
                **dict.fromkeys(_COUNTERS, 0),
                "errors": {},
                "call_seconds": 0.0,
            },
        )
        for name in _COUNTERS:
            into[name] += int(item.get(name, 0))
        for kind, count in item.get("errors", {}).items():
            into["errors"][kind] = into["errors"].get(kind, 0) + int(count)
        into["call_seconds"] = round(into["call_seconds"] + float(item.get("call_seconds", 0)), 3)
    for into in merged.values():
        into["errors"] = dict(sorted(into["errors"].items()))
    return list(merged.values())


def stats_delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What happened between two ``to_json()`` snapshots of the same model's stats."""
    out: dict[str, Any] = {"model": after["model"]}
    out.update({name: after[name] - before.get(name, 0) for name in _COUNTERS})
    errors = {
        kind: count - before.get("errors", {}).get(kind, 0)
        for kind, count in after.get("errors", {}).items()
    }
    out["errors"] = {kind: count for kind, count in errors.items() if count}
    out["call_seconds"] = round(after["call_seconds"] - before.get("call_seconds", 0.0), 3)
    return out
