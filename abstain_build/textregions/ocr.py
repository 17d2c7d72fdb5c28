"""OCR of an image into word boxes, with one shared cache per run.

Backends, best first:

* ``tesserocr`` (Tesseract linked in-process): no process start-up, no PNG round trip, and
  the model is loaded once per process.
* the ``tesseract`` command line (``tesseract - - --psm N tsv``, PNG on stdin), parsed from
  its TSV output.

``ABSTAIN_BUILD_OCR=cli|tesserocr`` (or the ``backend`` argument) forces one; a forced
backend that does not work raises :class:`OcrUnavailable` instead of falling back.

Tesseract is run with ``OMP_THREAD_LIMIT=1``: its OpenMP threads make a single image slower,
not faster, on small machines (measured 3x slower for the CLI on two cores), and parallelism
belongs to the pipeline's worker processes anyway.

Results are cached under a content hash of the pixels plus every setting that changes the
output (page segmentation mode, minimum confidence, dpi hint, engine and version): an
in-memory LRU per process and, when :func:`configure_ocr_cache` names a directory, one JSON
file per image shared by the worker processes of a run and by a resumed run. A worker that
needs an image another worker is reading waits for that reading (a lock file per image in
the cache directory) instead of reading it a second time.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from abstain_build.media.files import atomic_write
from abstain_build.media.locks import keyed_lock
from abstain_build.textregions.words import Word

from .ocr_engine import (
    BACKEND_ENV,
    LANG,
    OcrError,
    OcrUnavailable,
    engine_name,
    ocr_available,
    prepare_pixels,
    reset_ocr_backend,
    resolve_backend,
    run_cli,
    run_tesserocr,
)

# Tesseract page segmentation modes worth knowing here.
PSM_AUTO = 3  # full layout analysis: paragraphs, columns; also finds rotated axis labels
PSM_SINGLE_BLOCK = 6  # one uniform block of text (a cropped paragraph or table cell)
PSM_SINGLE_LINE = 7  # one line of text (a chart label cut out on its own)
PSM_SPARSE_TEXT = 11  # as much text as possible in no particular order (labels on a chart)
CACHE_ENV = "ABSTAIN_BUILD_OCR_CACHE"
MEMORY_CACHE_SIZE = 256
_CACHE_FORMAT = 1


# --------------------------------------------------------------------------------------
# Cache


_cache_lock = threading.Lock()
_memory: OrderedDict[str, tuple[Word, ...]] = OrderedDict()
_disk_dir: Path | None = None
_disk_configured = False
_stats: dict[str, float] = {}


def reset_ocr_stats() -> None:
    """Zero this process's counters."""
    with _cache_lock:
        _stats.update(
            engine_calls=0, memory_hits=0, disk_hits=0, engine_seconds=0.0, engine_pixels=0
        )


reset_ocr_stats()


def ocr_stats() -> dict[str, float]:
    """This process's counters: ``engine_calls``, ``memory_hits``, ``disk_hits``,
    ``engine_pixels`` (pixels the engine read: what a page reading costs) and
    ``engine_seconds`` (wall time spent inside the engine)."""
    with _cache_lock:
        return dict(_stats)


def clear_memory_cache() -> None:
    """Forget the in-memory results (the disk cache, if any, is kept)."""
    with _cache_lock:
        _memory.clear()


def configure_ocr_cache(directory: Path | str | None) -> None:
    """Keep OCR results in ``directory`` (one JSON file per image), or stop doing so (None).

    The directory is also exported as ``$ABSTAIN_BUILD_OCR_CACHE`` so that worker processes
    started afterwards (the pipeline spawns them) use the same directory without being told.
    """
    global _disk_dir, _disk_configured
    with _cache_lock:
        if directory is None:
            _disk_dir = None
            os.environ.pop(CACHE_ENV, None)
        else:
            _disk_dir = Path(directory)
            _disk_dir.mkdir(parents=True, exist_ok=True)
            os.environ[CACHE_ENV] = str(_disk_dir)
        _disk_configured = True


def ocr_cache_dir() -> Path | None:
    """The disk cache in use: the configured one, else ``$ABSTAIN_BUILD_OCR_CACHE``, else None."""
    with _cache_lock:
        if _disk_configured:
            return _disk_dir
    from_env = os.environ.get(CACHE_ENV)
    return Path(from_env) if from_env else None


def cache_key(image: np.ndarray, *, psm: int, min_conf: float, dpi: int | None, engine: str) -> str:
    """sha256 over the pixels (shape, dtype, bytes) and every setting that changes the result."""
    array = np.ascontiguousarray(image)
    digest = hashlib.sha256()
    settings = {
        "format": _CACHE_FORMAT,
        "shape": list(array.shape),
        "dtype": str(array.dtype),
        "psm": int(psm),
        "min_conf": float(min_conf),
        "dpi": int(dpi) if dpi else None,
        "engine": engine,
        "lang": LANG,
    }
    digest.update(json.dumps(settings, sort_keys=True).encode())
    digest.update(memoryview(array).cast("B"))
    return digest.hexdigest()


def _memory_get(key: str) -> tuple[Word, ...] | None:
    with _cache_lock:
        words = _memory.get(key)
        if words is not None:
            _memory.move_to_end(key)
        return words


def _memory_put(key: str, words: tuple[Word, ...]) -> None:
    with _cache_lock:
        _memory[key] = words
        _memory.move_to_end(key)
        while len(_memory) > MEMORY_CACHE_SIZE:
            _memory.popitem(last=False)


def _disk_path(directory: Path, key: str) -> Path:
    return directory / f"{key}.json"


def _disk_get(directory: Path, key: str) -> tuple[Word, ...] | None:
    path = _disk_path(directory, key)
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        return tuple(
            Word(text, (x0, y0, x1, y1), conf, block, line, "ocr")
            for text, x0, y0, x1, y1, conf, block, line in payload["words"]
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return None  # torn or foreign file: recompute (and overwrite it)


def _disk_put(directory: Path, key: str, words: tuple[Word, ...], engine: str) -> None:
    payload = {
        "format": _CACHE_FORMAT,
        "engine": engine,
        "words": [[w.text, *w.bbox, w.conf, w.block, w.line] for w in words],
    }
    try:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        atomic_write(_disk_path(directory, key), data)
    except OSError:
        pass  # a cache that cannot be written only costs time


# --------------------------------------------------------------------------------------
# Entry point


def ocr_image(
    image: np.ndarray,
    *,
    psm: int = PSM_AUTO,
    min_conf: float = 0.0,
    dpi: int | None = None,
    backend: str | None = None,
    use_cache: bool = True,
) -> list[Word]:
    """Words Tesseract reads in ``image``, boxes in pixels (x0, y0, x1, y1), source "ocr".

    ``image``: uint8 H x W (gray), H x W x 2 (gray+alpha), x 3 (RGB) or x 4 (RGBA).

    ``psm``: Tesseract page segmentation mode. The default, :data:`PSM_AUTO` (3), runs full
    layout analysis: right for document pages and scans, and it is also what finds rotated
    text such as a chart's vertical y-axis title. :data:`PSM_SPARSE_TEXT` (11) looks for
    scattered words in no particular order and picks up isolated chart labels (ticks,
    legend entries, data labels) that layout analysis can merge or skip, but it does not
    read vertical text. Use 11 for a second pass on charts, 6 for a cropped text block.

    ``min_conf``: words below this Tesseract confidence (0..100) are dropped. The default
    keeps everything; legend swatches and bar edges come back as low-confidence junk
    ("Mm", "lm"), so callers placing boxes usually filter at 30-60.

    ``dpi``: the image's resolution if known (a rendered PDF page); without it Tesseract
    estimates one from the text height.

    Whitespace-only words are dropped. ``block`` is Tesseract's block number and ``line``
    a text-line number running over the whole image. Results are cached (see module doc).
    Raises :class:`OcrUnavailable` if no engine works, :class:`OcrError` if the engine fails.
    """
    name = resolve_backend(backend)
    array = np.asarray(image)
    if array.dtype != np.uint8:
        raise ValueError(f"OCR needs a uint8 image, got {array.dtype}")
    if array.ndim < 2 or array.shape[0] == 0 or array.shape[1] == 0:
        if array.ndim in (2, 3):
            return []
        raise ValueError(f"OCR needs H x W (x C) pixels, got shape {array.shape}")
    if not use_cache:
        return list(_read(array, name, psm, min_conf, dpi))
    engine = engine_name(name)
    key = cache_key(array, psm=psm, min_conf=min_conf, dpi=dpi, engine=engine)
    return _kept(key, lambda: _read(array, name, psm, min_conf, dpi), engine)


def cached_words(key: str, read: Callable[[], Sequence[Word]]) -> list[Word]:
    """What ``read`` returns, kept under ``key`` (a digest of everything that makes it) in
    the run's caches as :func:`ocr_image` keeps its results: for a reading made of many
    engine calls (the label pass's crops), so a page read again by another sample, worker
    or resumed run is not read again."""
    return _kept(key, read, engine_name())


def _kept(key: str, read: Callable[[], Sequence[Word]], engine: str) -> list[Word]:
    """The words kept under ``key`` in memory or on disk, else ``read()``'s, kept in both.
    One worker reads a key at a time (a lock file); the others wait and take its result."""
    cached = _memory_get(key)
    if cached is not None:
        with _cache_lock:
            _stats["memory_hits"] += 1
        return list(cached)
    directory = ocr_cache_dir()
    if directory is not None:
        cached = _from_disk(directory, key)
        if cached is not None:
            return list(cached)
    if directory is None:
        words = tuple(read())
        _memory_put(key, words)
        return list(words)
    with keyed_lock(directory, key):
        cached = _from_disk(directory, key)  # read by another worker while this one waited
        if cached is not None:
            return list(cached)
        words = tuple(read())
        _memory_put(key, words)
        _disk_put(directory, key, words, engine)
        return list(words)


def _from_disk(directory: Path, key: str) -> tuple[Word, ...] | None:
    """The result kept on disk, counted and copied to memory; None when there is none."""
    cached = _disk_get(directory, key)
    if cached is not None:
        with _cache_lock:
            _stats["disk_hits"] += 1
        _memory_put(key, cached)
    return cached


def _read(
    array: np.ndarray, name: str, psm: int, min_conf: float, dpi: int | None
) -> tuple[Word, ...]:
    """Run the engine on ``array``: its words at ``min_conf`` or above."""
    pixels = prepare_pixels(array)
    started = time.perf_counter()
    found = run_tesserocr(pixels, psm, dpi) if name == "tesserocr" else run_cli(pixels, psm, dpi)
    elapsed = time.perf_counter() - started
    with _cache_lock:
        _stats["engine_calls"] += 1
        _stats["engine_seconds"] += elapsed
        _stats["engine_pixels"] += array.shape[0] * array.shape[1]
    return tuple(w for w in found if w.conf >= min_conf)


__all__ = [
    "BACKEND_ENV",
    "PSM_AUTO",
    "PSM_SINGLE_BLOCK",
    "PSM_SINGLE_LINE",
    "PSM_SPARSE_TEXT",
    "OcrError",
    "OcrUnavailable",
    "cached_words",
    "clear_memory_cache",
    "configure_ocr_cache",
    "engine_name",
    "ocr_available",
    "ocr_cache_dir",
    "ocr_image",
    "ocr_stats",
    "prepare_pixels",
    "reset_ocr_backend",
    "reset_ocr_stats",
]
