"""What a reader of one counterpart was shown, as one digest.

A blind reading speaks for the bytes the reader saw: the question and options as shown,
every image, and the document when the record ships it whole (its text layer comes from
those bytes). Two counterparts with the same digest are the same item to a reader, whatever
version of the transform made them, so a reading made of one counts for the other
(:mod:`.carry`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def shipped_digest(root: Path, record: Mapping[str, Any]) -> str:
    """The digest of what a reading kit of ``record`` (a counterpart of the dataset folder
    ``root``) shows: question, options, images in order, and the document when the record
    ships it whole (context "document")."""
    digest = hashlib.sha256()
    shown = {"question": str(record.get("question") or ""), "options": record.get("options") or []}
    digest.update(json.dumps(shown, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    for relative in record.get("images") or []:
        digest.update(b"\0image\0" + _file_digest(root / relative))
    document = record.get("document")
    if document is not None and record.get("context") == "document":
        digest.update(b"\0document\0" + _file_digest(root / document))
    return digest.hexdigest()[:32]


def _file_digest(path: Path) -> bytes:
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(block)
    return hasher.digest()
