"""Tesseract, found and run: the backend (``tesserocr`` in-process, else the ``tesseract``
CLI), its language data, the pixels it is given, and its words back as :class:`Word`.
:mod:`.ocr` caches what it reads."""

from __future__ import annotations

import io
import logging
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from abstain_build.textregions.words import Word

log = logging.getLogger(__name__)

os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # before tesserocr is imported (lazily, below)

LANG = "eng"

BACKEND_ENV = "ABSTAIN_BUILD_OCR"
BACKENDS = ("tesserocr", "cli")
CLI_TIMEOUT_SECONDS = 300

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


def resolve_backend(backend: str | None = None) -> str:
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
        resolve_backend(backend)
    except OcrUnavailable:
        return False
    return True


def engine_name(backend: str | None = None) -> str:
    """The engine and version that OCR uses, e.g. "tesserocr 2.13.0 / tesseract 5.5.4".

    Raises :class:`OcrUnavailable` when there is none.
    """
    name = resolve_backend(backend)
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


def run_tesserocr(pixels: np.ndarray, psm: int, dpi: int | None) -> list[Word]:
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


def run_cli(pixels: np.ndarray, psm: int, dpi: int | None) -> list[Word]:
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
