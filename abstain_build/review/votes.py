"""Votes, one append-only file per annotator: ``DIR/review/votes-<annotator>.jsonl``.

Each vote is appended and fsync'd before the browser hears it was saved, so closing the
page (or killing the server) loses nothing already acknowledged. Later lines win: a
changed vote is a new line, and ``vote: null`` retracts one (undo).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ANSWERABLE = "ANSWERABLE"
UNANSWERABLE = "UNANSWERABLE"
SKIP = "SKIP"
#: What an annotator can cast; ``None`` retracts the item's vote.
VOTES = (ANSWERABLE, UNANSWERABLE, SKIP)

REVIEW_DIR = "review"
_PREFIX, _SUFFIX = "votes-", ".jsonl"
#: Annotator names become file names: letters, digits, ``_ . -``, not starting with a dot.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


class AnnotatorError(ValueError):
    """An annotator name that cannot be used as a file name."""


def check_annotator(name: str) -> str:
    """The name itself when it is filename-safe; raises :class:`AnnotatorError` otherwise."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or ".." in name:
        raise AnnotatorError(
            f"annotator name {name!r}: use 1-64 letters, digits, '_', '.' or '-'"
            " (not starting with '.')"
        )
    return name


def private_folder(folder: Path) -> None:
    """``folder`` (made if missing) open to its owner only (0700): no other local user lists,
    reads or races for the review's secret and votes."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)


def votes_path(root: Path, annotator: str) -> Path:
    return root / REVIEW_DIR / f"{_PREFIX}{check_annotator(annotator)}{_SUFFIX}"


def _lock(path: Path) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(path.resolve(), threading.Lock())


def append_vote(root: Path, annotator: str, item: str, vote: str | None) -> dict[str, Any]:
    """Append one vote line and fsync it; returns the line as written."""
    if vote is not None and vote not in VOTES:
        raise ValueError(f"vote {vote!r}: expected one of {', '.join(VOTES)} or null")
    path = votes_path(root, annotator)
    line = {
        "item": item,
        "vote": vote,
        "annotator": annotator,
        "at": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    data = (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")
    with _lock(path):
        private_folder(path.parent)
        created = not path.exists()
        # 0600 from the first byte (O_CREAT's mode), never readable by other local users.
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(descriptor, "ab") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if created:
            _fsync_dir(path.parent)
    return line


def _fsync_dir(folder: Path) -> None:
    """Make a new file's directory entry durable too (POSIX; a no-op where unsupported)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """The file's vote lines in order; a torn last line (a crash mid-write) is ignored."""
    if not path.exists():
        return
    with path.open("rb") as handle:
        for raw in handle:
            if not raw.endswith(b"\n"):
                break
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if isinstance(line, dict) and isinstance(line.get("item"), str):
                yield line


def latest_votes(root: Path, annotator: str) -> dict[str, str]:
    """Item id -> the annotator's latest vote (retracted items are absent), in the order
    those latest votes were cast."""
    latest: dict[str, str | None] = {}
    for line in read_lines(votes_path(root, annotator)):
        vote = line.get("vote")
        latest.pop(line["item"], None)
        latest[line["item"]] = vote if vote in VOTES else None
    return {item: vote for item, vote in latest.items() if vote is not None}


def annotators(root: Path) -> list[str]:
    """Annotators with a votes file, sorted; files with unusable names are ignored."""
    found = []
    folder = root / REVIEW_DIR
    if not folder.is_dir():
        return found
    for path in folder.glob(f"{_PREFIX}*{_SUFFIX}"):
        name = path.name[len(_PREFIX) : -len(_SUFFIX)]
        try:
            found.append(check_annotator(name))
        except AnnotatorError:
            continue
    return sorted(found)
