"""Errors that become per-sample error records instead of stopping a run."""

from __future__ import annotations


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
