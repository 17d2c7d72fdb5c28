"""One process at a time per key: workers that need the same costly result wait for it.

Two build workers often reach the same page together (two questions on one document).
Holding a lock file per key while the result is made lets the second wait and then find it
on disk instead of making it again. Locks are advisory (``fcntl.flock``) and released when
the holder ends, even by a crash; where ``fcntl`` is missing nobody waits (the result may
then be made twice, which costs only time).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def keyed_lock(directory: Path, key: str, wait: bool = True) -> Iterator[bool]:
    """Hold ``directory/.KEY.lock`` exclusively. The caller checks for the result again once
    inside (another holder may have made it meanwhile) and stores it before leaving.

    Yields whether the lock is held: always after waiting, and with ``wait=False`` only
    when nobody else holds it (a worker then turns to other work and comes back later)."""
    path = directory / f".{key}.lock"
    try:
        import fcntl

        directory.mkdir(parents=True, exist_ok=True)
        handle = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    except (ImportError, OSError):
        yield True
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        os.close(handle)
        yield False
        return
    try:
        yield True
    finally:
        # The result is on disk by now: whoever comes later finds it before any lock, and a
        # waiter holding the unlinked file finds it too. No lock files pile up.
        path.unlink(missing_ok=True)
        os.close(handle)  # releases the lock
