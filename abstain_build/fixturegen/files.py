"""Writing fixture files in one canonical byte form (UTF-8, LF, trailing newline)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` (creating folders) and skip the write when the bytes already match."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not (path.is_file() and path.read_bytes() == data):
        path.write_bytes(data)
    return path


def json_bytes(value: Any) -> bytes:
    """Pretty JSON as the MMLongBench-Doc release prints it, with a final newline."""
    return (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def jsonl_bytes(records: Iterable[dict[str, Any]]) -> bytes:
    """One compact JSON object per line, keys in insertion order, like the MMMU tool files."""
    lines = [json.dumps(record, ensure_ascii=False) for record in records]
    return ("\n".join(lines) + "\n").encode("utf-8")
