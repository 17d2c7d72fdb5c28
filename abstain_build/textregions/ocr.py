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
import io
import json
import logging
import os
import re
import shutil
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from abstain_build.media.files import atomic_write
from abstain_build.media.locks import keyed_lock
from abstain_build.textregions.words import Word

os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # before tesserocr is imported (lazily, below)

log = logging.getLogger(__name__)

LANG = "eng"

# Tesseract page segmentation modes worth knowing here.
PSM_AUTO = 3  # full layout analysis: paragraphs, columns; also finds rotated axis labels
PSM_SINGLE_BLOCK = 6  # one uniform block of text (a cropped paragraph or table cell)
PSM_SINGLE_LINE = 7  # one line of text (a chart label cut out on its own)
PSM_SPARSE_TEXT = 11  # as much text as possible in no particular order (labels on a chart)

BACKEND_ENV = "ABSTAIN_BUILD_OCR"
CACHE_ENV = "ABSTAIN_BUILD_OCR_CACHE"
BACKENDS = ("tesserocr", "cli")
MEMORY_CACHE_SIZE = 256
CLI_TIMEOUT_SECONDS = 300
_CACHE_FORMAT = 1

INSTALL_HINT = (
    "install Tesseract with English data: `apt-get install tesseract-ocr tesseract-ocr-eng` "
    "(and optionally `pip install tesserocr` for the faster in-process engine); if "
    "eng.traineddata is somewhere else, point TESSDATA_PREFIX at its folder"
)

_TESSDATA_CANDIDATES = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
)


class OcrError(RuntimeError):
    """The OCR engine failed on an image."""


class OcrUnavailable(OcrError):
    """No OCR engine can run here (or the forced one cannot); the message says how to fix it."""


# --------------------------------------------------------------------------------------
# Backend discovery


def tessdata_dir() -> Path | None:
    """The folder holding ``eng.traineddata``: ``$TESSDATA_PREFIX`` first, then the usual places.

    ``TESSDATA_PREFIX`` may name the tessdata folder itself (Tesseract 4/5) or its parent
    (Tesseract 3 convention); both are accepted.
    """
    candidates: list[Path] = []
    prefix = os.environ.get("TESSDATA_PREFIX")
    if prefix:
        candidates += [Path(prefix), Path(prefix) / "tessdata"]
    candidates += [Path(c) for c in _TESSDATA_CANDIDATES]
    for candidate in candidates:
        if (candidate / f"{LANG}.traineddata").is_file():
            return candidate
    return None


_backend_lock = threading.Lock()
_backend_cache: dict[str, str | OcrUnavailable] = {}  # requested backend -> resolved or error
_versions: dict[str, str] = {}


def _requested_backend(backend: str | None) -> str:
    requested = (backend or os.environ.get(BACKEND_ENV) or "auto").strip().lower()
    if requested not in ("auto", *BACKENDS):
        raise ValueError(
            f"unknown OCR backend {requested!r} (from {'argument' if backend else BACKEND_ENV}); "
            f"use one of: auto, {', '.join(BACKENDS)}"
        )
    return requested


def _probe_tesserocr() -> str:
    """Version string of a working tesserocr, or raise OcrUnavailable saying why not."""
    try:
        import tesserocr
    except ImportError as error:
        raise OcrUnavailable(f"tesserocr is not importable ({error}); {INSTALL_HINT}") from error
    if tessdata_dir() is None:
        raise OcrUnavailable(f"tesserocr found no {LANG}.traineddata; {INSTALL_HINT}")
    _tesserocr_api()  # loads the model: fails here, not on the first image
    first_line = tesserocr.tesseract_version().splitlines()[0]  # "tesseract 5.5.4"
    return f"tesserocr {tesserocr.__version__} / {first_line.strip()}"


def _cli_path() -> str | None:
    return shutil.which("tesseract")


def _probe_cli() -> str:
    """Version string of a working ``tesseract`` command, or raise OcrUnavailable."""
    executable = _cli_path()
    if executable is None:
        raise OcrUnavailable(f"the `tesseract` command is not on PATH; {INSTALL_HINT}")
    try:
        completed = subprocess.run(
            [executable, "--version"], capture_output=True, text=True, timeout=30
        )
        listed = subprocess.run(
            [executable, "--list-langs", *_cli_tessdata_args()],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise OcrUnavailable(f"`tesseract` does not run ({error}); {INSTALL_HINT}") from error
    if completed.returncode != 0:
        raise OcrUnavailable(f"`tesseract --version` failed: {completed.stderr.strip()}")
    if LANG not in listed.stdout.split():
        raise OcrUnavailable(f"`tesseract` has no {LANG!r} language data; {INSTALL_HINT}")
    match = re.search(r"tesseract\s+v?(\S+)", completed.stdout + completed.stderr)
    return f"tesseract CLI {match.group(1) if match else 'unknown'}"


def _cli_tessdata_args() -> list[str]:
    # Only when TESSDATA_PREFIX is set: otherwise the command's own built-in path is right
    # for the command (a venv's tesserocr may bundle a different Tesseract than /usr/bin).
    if os.environ.get("TESSDATA_PREFIX"):
        found = tessdata_dir()
        if found is not None:
            return ["--tessdata-dir", str(found)]
    return []


def _resolve_backend(backend: str | None = None) -> str:
    """ "tesserocr" or "cli": the backend that will run; raises OcrUnavailable if none can."""
    requested = _requested_backend(backend)
    with _backend_lock:
        known = _backend_cache.get(requested)
    if isinstance(known, str):
        return known
    if isinstance(known, OcrUnavailable):
        raise OcrUnavailable(str(known))
    order = BACKENDS if requested == "auto" else (requested,)
    reasons: list[str] = []
    resolved: str | OcrUnavailable | None = None
    for name in order:
        try:
            version = _probe_tesserocr() if name == "tesserocr" else _probe_cli()
        except OcrUnavailable as error:
            reasons.append(f"{name}: {error}")
            continue
        with _backend_lock:
            _versions[name] = version
        resolved = name
        break
    if resolved is None:
        resolved = OcrUnavailable(
            "no OCR engine available (" + "; ".join(reasons) + f"). To fix: {INSTALL_HINT}"
            if requested == "auto"
            else f"OCR backend {requested!r} was requested but is unavailable: {reasons[0]}"
        )
    with _backend_lock:
        _backend_cache[requested] = resolved
    if isinstance(resolved, OcrUnavailable):
        raise resolved
    return resolved


def reset_ocr_backend() -> None:
    """Detect the engines again on next use (after installing one, or changing PATH,
    ``TESSDATA_PREFIX`` or ``ABSTAIN_BUILD_OCR``)."""
    with _backend_lock:
        _backend_cache.clear()
        _versions.clear()


def ocr_available(backend: str | None = None) -> bool:
    """Whether :func:`ocr_image` can run (with the given or the configured backend)."""
    try:
        _resolve_backend(backend)
    except OcrUnavailable:
        return False
    return True


def engine_name(backend: str | None = None) -> str:
    """The engine and version that OCR uses, e.g. "tesserocr 2.13.0 / tesseract 5.5.4".

    Raises :class:`OcrUnavailable` when there is none.
    """
    name = _resolve_backend(backend)
    with _backend_lock:
        return _versions[name]


# --------------------------------------------------------------------------------------
# Engines


_api_lock = threading.Lock()  # one PyTessBaseAPI per process; it is not thread-safe
_api: Any = None
_api_pid: int | None = None


def _tesserocr_api() -> Any:
    """The process's PyTessBaseAPI (created on first use; re-created after a fork)."""
    global _api, _api_pid
    with _api_lock:
        if _api is None or _api_pid != os.getpid():
            import tesserocr

            data = tessdata_dir()
            if data is None:
                raise OcrUnavailable(f"no {LANG}.traineddata found; {INSTALL_HINT}")
            try:
                _api = tesserocr.PyTessBaseAPI(path=str(data) + os.sep, lang=LANG)
            except RuntimeError as error:
                raise OcrUnavailable(f"tesserocr could not load {data}: {error}") from error
            _api_pid = os.getpid()
            _quiet_leptonica(tesserocr.__file__)
        return _api


def _quiet_leptonica(module_file: str) -> None:
    """Leptonica prints its internal warnings on the process's stderr ("Error in
    boxClipToRectangle" on some chart crops), in the middle of a build's progress; they
    change no result. Silence them in the copy tesserocr loaded (best effort)."""
    import ctypes
    import glob

    folder = Path(module_file).resolve().parent
    candidates = glob.glob(str(folder.parent / "tesserocr.libs" / "libleptonica*.so*"))
    candidates += glob.glob(str(folder / "libleptonica*.so*"))
    for path in candidates:
        try:
            ctypes.CDLL(path).setMsgSeverity(ctypes.c_int(6))  # L_SEVERITY_NONE
        except (OSError, AttributeError):
            continue
        log.debug("Leptonica's own stderr messages are silenced (%s)", Path(path).name)


def _run_tesserocr(pixels: np.ndarray, psm: int, dpi: int | None) -> list[Word]:
    from tesserocr import RIL, iterate_level

    api = _tesserocr_api()
    height, width = pixels.shape[:2]
    channels = 1 if pixels.ndim == 2 else pixels.shape[2]
    words: list[Word] = []
    with _api_lock:
        api.SetPageSegMode(psm)
        api.SetImageBytes(pixels.tobytes(), width, height, channels, width * channels)
        if dpi:
            api.SetSourceResolution(int(dpi))
        api.Recognize()
        iterator = api.GetIterator()
        if iterator is None:  # nothing recognised at all
            api.Clear()
            return words
        block = line = 0
        for result in iterate_level(iterator, RIL.WORD):
            if result.IsAtBeginningOf(RIL.BLOCK):
                block += 1
            if result.IsAtBeginningOf(RIL.TEXTLINE):
                line += 1
            try:
                text = result.GetUTF8Text(RIL.WORD)
            except RuntimeError:  # a non-text element (an image block) has no text to give
                continue
            box = result.BoundingBox(RIL.WORD)
            if not text or not text.strip() or box is None:
                continue
            x0, y0, x1, y1 = box
            words.append(
                Word(
                    text.strip(),
                    (float(x0), float(y0), float(x1), float(y1)),
                    float(result.Confidence(RIL.WORD)),
                    block,
                    line,
                    "ocr",
                )
            )
        api.Clear()
    return words


def _run_cli(pixels: np.ndarray, psm: int, dpi: int | None) -> list[Word]:
    executable = _cli_path()
    if executable is None:
        raise OcrUnavailable(f"the `tesseract` command is not on PATH; {INSTALL_HINT}")
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG", compress_level=1)
    command = [executable, "-", "-", *_cli_tessdata_args(), "-l", LANG, "--psm", str(psm)]
    if dpi:
        command += ["--dpi", str(int(dpi))]
    command.append("tsv")
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    try:
        completed = subprocess.run(
            command,
            input=buffer.getvalue(),
            capture_output=True,
            env=env,
            timeout=CLI_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired as error:
        raise OcrError(f"tesseract took longer than {CLI_TIMEOUT_SECONDS} s") from error
    except OSError as error:
        raise OcrUnavailable(f"`tesseract` does not run ({error}); {INSTALL_HINT}") from error
    if completed.returncode != 0:
        message = completed.stderr.decode("utf-8", "replace").strip()
        raise OcrError(f"tesseract failed (exit {completed.returncode}): {message[-500:]}")
    return parse_tsv(completed.stdout.decode("utf-8", "replace"))


def parse_tsv(tsv: str) -> list[Word]:
    """Words of Tesseract's TSV output, numbered like the tesserocr backend numbers them.

    ``block`` is Tesseract's block number; ``line`` counts text lines over the whole image
    (TSV's ``line_num`` restarts in every paragraph), so both backends agree.
    """
    words: list[Word] = []
    lines: dict[tuple[str, str, str], int] = {}
    for row in tsv.splitlines()[1:]:
        fields = row.split("\t", 11)
        if len(fields) < 11 or fields[0] != "5":
            continue
        _, _, block, paragraph, line, _, left, top, width, height, conf = fields[:11]
        line_id = lines.setdefault((block, paragraph, line), len(lines) + 1)
        text = fields[11].strip() if len(fields) > 11 else ""
        if not text:
            continue
        x0, y0 = float(left), float(top)
        words.append(
            Word(
                text,
                (x0, y0, x0 + float(width), y0 + float(height)),
                float(conf),
                int(block),
                line_id,
                "ocr",
            )
        )
    return words


# --------------------------------------------------------------------------------------
# Pixels


def prepare_pixels(image: np.ndarray) -> np.ndarray:
    """The image as Tesseract gets it: uint8 gray (H x W) or RGB (H x W x 3), C-contiguous.

    Accepts gray, gray+alpha (LA), RGB and RGBA; alpha is composited on white, so text drawn
    on a transparent background reads as dark-on-white instead of vanishing.
    """
    array = np.asarray(image)
    if array.dtype != np.uint8:
        raise ValueError(f"OCR needs a uint8 image, got {array.dtype}")
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    if array.ndim == 2:
        return np.ascontiguousarray(array)
    if array.ndim != 3 or array.shape[2] not in (2, 3, 4):
        raise ValueError(f"OCR needs H x W (x 1|2|3|4) pixels, got shape {array.shape}")
    if array.shape[2] == 3:
        return np.ascontiguousarray(array)
    colour = array[:, :, :-1].astype(np.uint16)
    alpha = array[:, :, -1:].astype(np.uint16)
    blended = (colour * alpha + 255 * (255 - alpha) + 127) // 255
    out = blended.astype(np.uint8)
    return np.ascontiguousarray(out[:, :, 0] if out.shape[2] == 1 else out)


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
    name = _resolve_backend(backend)
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
    found = _run_tesserocr(pixels, psm, dpi) if name == "tesserocr" else _run_cli(pixels, psm, dpi)
    elapsed = time.perf_counter() - started
    with _cache_lock:
        _stats["engine_calls"] += 1
        _stats["engine_seconds"] += elapsed
        _stats["engine_pixels"] += array.shape[0] * array.shape[1]
    return tuple(w for w in found if w.conf >= min_conf)
