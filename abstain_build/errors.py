"""Errors that become per-sample error records instead of stopping a run."""

from __future__ import annotations

import errno
import sqlite3


class SampleError(Exception):
    """A problem with one sample. ``stage`` says where it happened, the message says what."""

    def __init__(self, stage: str, reason: str) -> None:
        super().__init__(reason)
        self.stage = stage
        self.reason = reason


class InputError(SampleError):
    """The sample's own files are unusable (corrupt, truncated, too large, out of range)."""

    def __init__(self, reason: str) -> None:
        super().__init__("validate", reason)


class ConfigError(ValueError):
    """The run as configured cannot start; nothing was written."""


class RunStopped(Exception):
    """The run cannot go on (e.g. the model refuses the key); what was committed is kept,
    and the same command resumes once the cause is fixed."""


class ResourceExhausted(RunStopped):
    """The machine ran out of what every sample needs (disk space, memory) or its disk
    failed. No sample is to blame, so none is recorded as failed: the samples in flight
    are simply not committed, and the next run builds them."""


_NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})
_RESUME = "then run the same command again to resume"


def environment_failure(exc: BaseException) -> RunStopped | None:
    """The run-stopping form of ``exc`` when it is the machine's failure, not the sample's.

    A full disk, exhausted memory or an I/O error would otherwise become a permanent error
    record for every sample tried while it lasts, and a resume would not retry them. A
    ``RunStopped`` raised inside a sample's work (the embedding model not installed) stops
    the run as it is."""
    if isinstance(exc, RunStopped):
        return exc
    if isinstance(exc, MemoryError) or (isinstance(exc, OSError) and exc.errno == errno.ENOMEM):
        return ResourceExhausted(f"out of memory: free memory or use fewer --workers, {_RESUME}")
    if isinstance(exc, sqlite3.OperationalError) and exc.sqlite_errorcode == sqlite3.SQLITE_FULL:
        return ResourceExhausted(f"no space left on the device (the model cache): {_RESUME}")
    if not isinstance(exc, OSError):
        return None
    where = f" (writing {exc.filename})" if exc.filename else ""
    if exc.errno in _NO_SPACE:
        return ResourceExhausted(f"no space left on the device{where}: free space, {_RESUME}")
    if exc.errno in (errno.EIO, errno.EINTR):
        return ResourceExhausted(
            f"I/O error{where}: {exc.strerror or exc}: check the disk, {_RESUME}"
        )
    return None


def raise_if_environmental(exc: BaseException) -> None:
    """Stop the run (``RunStopped``) when ``exc`` is the machine's failure or one already."""
    stopped = environment_failure(exc)
    if stopped is exc:
        raise exc
    if stopped is not None:
        raise stopped from exc
