"""What a document item shows the model: the evidence pages the record ships (``evidence``)
or the document's own pages rendered, up to a cap (``document``).

Under ``document``, a document longer than the cap is shown as a window of consecutive
pages around the evidence pages, so that an answerable item stays answerable. Only builds
whose counterparts were verified against the whole document (``context: document``, the
default of ``transform``) may be shown this way: a build verified on its evidence pages
alone (``context: pages``) has not checked the rest.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pymupdf

from ..errors import ConfigError

PAGE_MODES = ("evidence", "document")
MAX_PAGES = 20
#: Rendering resolution: a letter page becomes 850 x 1100 pixels, about what the model
#: client sends anyway (it shrinks images to 1024 pixels on the longest side).
DPI = 100


def page_window(count: int, evidence: list[int], cap: int) -> list[int]:
    """1-based page numbers to show: all when ``count <= cap``, else ``cap`` consecutive
    pages centred on the evidence pages (from the first of them when they span more)."""
    if count <= cap:
        return list(range(1, count + 1))
    inside = sorted(p for p in evidence if 1 <= p <= count)
    if not inside:
        return list(range(1, cap + 1))
    first, last = inside[0], inside[-1]
    span = last - first + 1
    start = first if span >= cap else first - (cap - span) // 2
    start = max(1, min(start, count - cap + 1))
    return list(range(start, start + cap))


class PageRenderer:
    """Rendered pages by (document, page), kept for the few most recent documents: the six
    cells of a grid and the rounds of a multi-agent run show the same pages again."""

    def __init__(self, root: Path, cap: int = MAX_PAGES, dpi: int = DPI, keep: int = 4) -> None:
        if cap < 1:
            raise ConfigError(f"--max-pages must be at least 1, got {cap}")
        self.root = root
        self.cap = cap
        self.dpi = dpi
        self.keep = keep
        self._documents: OrderedDict[str, dict[int, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def pages(self, record: dict[str, Any]) -> tuple[tuple[int, ...], tuple[bytes, ...]]:
        """The page numbers and PNG bytes to show for a document record."""
        relative = str(record["document"])
        path = self.root / relative
        with pymupdf.open(path) as document:
            numbers = page_window(
                document.page_count, list(record.get("evidence_pages") or []), self.cap
            )
            with self._lock:
                rendered = self._documents.setdefault(relative, {})
                self._documents.move_to_end(relative)
                while len(self._documents) > self.keep:
                    self._documents.popitem(last=False)
            images = []
            for number in numbers:
                png = rendered.get(number)
                if png is None:
                    png = document[number - 1].get_pixmap(dpi=self.dpi).tobytes("png")
                    rendered[number] = png
                images.append(png)
        return tuple(numbers), tuple(images)


def check_document_context(records: list[dict[str, Any]]) -> None:
    """``--pages document`` on a build that verified only the evidence pages is refused."""
    unchecked = [
        r["id"]
        for r in records
        if not r.get("answerable", True) and r.get("document") and r.get("context") != "document"
    ]
    if unchecked:
        raise ConfigError(
            f"--pages document: {len(unchecked)} counterpart(s) (first: {unchecked[0]}) were"
            " verified on their evidence pages only (context: pages), so the rest of their"
            " document may still answer them; use --pages evidence, or build with"
            " --context document"
        )
