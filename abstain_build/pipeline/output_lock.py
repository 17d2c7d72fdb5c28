"""One run at a time per output folder.

Two builds writing one ``--out`` both appended records and both rewrote the manifest: 30
lines for 22 samples, eight of them twice, and counts no re-run repaired. Every command
that writes an output folder (``transform``, ``qc``, ``review --finalize``, ``export``,
which reads it whole) holds ``state/lock`` exclusively while it works. The lock is the
kernel's (``fcntl.flock``): it goes with its holder, even one killed with SIGKILL, so a
lock is never stale; the file names the holder for the message the next run prints.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import ConfigError

LOCK_FILE = "state/lock"


class OutputLock:
    """The lock on one output folder, held from :meth:`acquire` to :meth:`release`."""

    def __init__(self, root: Path, command: str, create: bool = False) -> None:
        self.root = root
        self.command = command
        #: Make the folder when it does not exist (a new build); otherwise a missing folder
        #: is left for the command to report, and nothing is created there.
        self.create = create
        self._handle: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise :class:`ConfigError` naming the run that holds it."""
        try:
            import fcntl
        except ImportError:  # no advisory locks here: nothing to hold
            return
        if not self.create and not self.root.is_dir():
            return
        path = self.root / LOCK_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(handle, 300).decode("utf-8", "replace").strip() or "another run"
            os.close(handle)
            raise ConfigError(
                f"{self.root} is in use by {holder}; wait for it to finish or choose another folder"
            ) from None
        os.ftruncate(handle, 0)
        os.write(handle, f"abstain-build {self.command} (pid {os.getpid()})".encode())
        self._handle = handle

    def release(self) -> None:
        if self._handle is not None:
            os.close(self._handle)  # the kernel drops the lock with the descriptor
            self._handle = None


@contextmanager
def locked_output(root: Path, command: str, create: bool = False) -> Iterator[None]:
    """Hold ``root``'s lock for the block (see :class:`OutputLock`)."""
    lock = OutputLock(root, command, create)
    lock.acquire()
    try:
        yield
    finally:
        lock.release()
