"""A page's whole reading kept on disk, shared by the workers of a run and by later runs.

The OCR cache keys each result by its pixels, so even a page read before must be rendered
again to find its result (a photo spread at 200 dpi: a third of a second, every sample of
the document, in every worker). Here the unit is the page: its reading (text layer, OCR,
picture OCR, what could not be read) is kept under the page's content (content stream,
image and font streams, size, rotation) and every setting that changes it. A worker that
needs a page another worker is reading waits for that reading (:mod:`..media.locks`).

Lives next to the OCR cache (``state/ocr/pages`` in a build); without an OCR cache
directory nothing is kept on disk.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pymupdf

from ..media.files import atomic_write
from ..media.locks import keyed_lock
from ..textregions import ocr
from ..textregions.words import Word

if TYPE_CHECKING:
    from .reading import PageReadings

#: Bumped when a reading's content or its file layout changes.
FORMAT = 1


def page_key(page: pymupdf.Page, digest: str, settings: dict[str, Any]) -> str:
    """The page's content digest, its fonts (the text layer depends on them) and the
    reading's settings."""
    document = page.parent
    key = hashlib.sha256(f"{FORMAT}:{digest}:{json.dumps(settings, sort_keys=True)}".encode())
    for font in page.get_fonts(full=True):
        xref = font[0]
        if xref > 0:
            key.update(hashlib.sha256(document.xref_stream_raw(xref) or b"").digest())
            key.update(str(font[3:5]).encode())  # base font name and encoding
    return key.hexdigest()


def cache_dir() -> Path | None:
    directory = ocr.ocr_cache_dir()
    return directory / "pages" if directory is not None else None


def cached_reading(
    page: pymupdf.Page,
    digest: str,
    settings: dict[str, Any],
    read: Callable[[], PageReadings],
    wait: bool = True,
) -> PageReadings | None:
    """The page's reading from disk, else ``read()`` (once across workers) kept on disk.
    With ``wait=False``, None while another worker is reading the page."""
    directory = cache_dir()
    if directory is None:
        return read()
    key = page_key(page, digest, settings)
    found = _load(directory, key)
    if found is not None:
        return found
    with keyed_lock(directory, key, wait) as held:
        if not held:
            return None
        found = _load(directory, key)  # read by another worker while this one waited
        if found is not None:
            return found
        readings = read()
        if not readings.unread:  # a reading missing a channel is not worth keeping
            _store(directory, key, readings)
        return readings


def _to_json(readings: PageReadings) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "page": readings.page,
        "digest": readings.digest,
        "unread": readings.unread,
        "has_text_layer": readings.has_text_layer,
        "size": list(readings.size),
        "reduced": readings.reduced,
        "readings": [
            {
                "channel": r.channel,
                "region": list(r.region) if r.region is not None else None,
                "words": [[w.text, *w.bbox, w.conf, w.block, w.line, w.source] for w in r.words],
            }
            for r in readings.readings
        ],
    }


def _from_json(payload: dict[str, Any]) -> PageReadings:
    from .reading import PageReadings, Reading

    page = int(payload["page"])
    readings = [
        Reading(
            page,
            item["channel"],
            tuple(
                Word(text, (x0, y0, x1, y1), conf, block, line, source)
                for text, x0, y0, x1, y1, conf, block, line, source in item["words"]
            ),
            tuple(item["region"]) if item["region"] is not None else None,
        )
        for item in payload["readings"]
    ]
    return PageReadings(
        page,
        readings,
        digest=payload["digest"],
        unread=payload["unread"],
        has_text_layer=bool(payload["has_text_layer"]),
        size=tuple(payload["size"]),
        reduced=list(payload["reduced"]),
    )


def _load(directory: Path, key: str) -> PageReadings | None:
    try:
        payload = json.loads((directory / f"{key}.json").read_text(encoding="utf-8"))
        if payload.get("format") != FORMAT:
            return None
        return _from_json(payload)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return None  # torn or foreign file: read the page again (and overwrite it)


def _store(directory: Path, key: str, readings: PageReadings) -> None:
    data = json.dumps(_to_json(readings)).encode("ascii")  # escaped: lone surrogates survive
    with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
        atomic_write(directory / f"{key}.json", data)
