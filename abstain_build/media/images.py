"""Image decoding with a pixel limit, deterministic PNG encoding, and brightness."""

from __future__ import annotations

import io
import warnings

import numpy as np
from PIL import Image, ImageOps

from ..errors import InputError

#: Images above this many pixels are refused before decoding (a 20000 x 20000 image is 400 M).
DEFAULT_MAX_PIXELS = 64_000_000

# We enforce our own limit before decoding; PIL's bomb check would raise a less clear error.
Image.MAX_IMAGE_PIXELS = None


def decode_image(data: bytes, what: str, max_pixels: int = DEFAULT_MAX_PIXELS) -> np.ndarray:
    """Decode to an array in L, LA, RGB or RGBA layout; refuse huge or broken images."""
    try:
        image = Image.open(io.BytesIO(data))
    except Exception as exc:
        raise InputError(f"{what}: not a readable image ({type(exc).__name__}: {exc})") from None
    width, height = image.size
    if width * height > max_pixels:
        raise InputError(
            f"{what}: {width}x{height} = {width * height:,} pixels is above the limit of "
            f"{max_pixels:,} (--max-pixels)"
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            image.load()
    except Exception as exc:
        raise InputError(f"{what}: image data is corrupt or truncated ({exc})") from None
    if _orientation(image) != 1:
        # What every viewer shows: a phone photo stored sideways with an EXIF turn.
        image = ImageOps.exif_transpose(image)
    return to_array(image)


#: Modes whose samples are 16 bits wide (PNG's 16-bit gray reads as I;16 or I).
_WIDE_MODES = ("I;16", "I;16B", "I;16L", "I")
_ORIENTATION_TAG = 0x0112


def _orientation(image: Image.Image) -> int:
    try:
        value = image.getexif().get(_ORIENTATION_TAG, 1)
    except Exception:  # unreadable EXIF: the pixels as stored
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def normalisation(data: bytes) -> str | None:
    """Why an image's pixels differ from its stored bytes as decoded naively (an EXIF
    turn, 16-bit samples scaled to 8), or None. The control is then written from the
    decoded pixels, so that it and its counterparts show the same picture."""
    try:
        image = Image.open(io.BytesIO(data))
    except Exception:
        return None
    reasons = []
    if _orientation(image) != 1:
        reasons.append(f"EXIF orientation {_orientation(image)} applied")
    if image.mode in _WIDE_MODES:
        reasons.append("16-bit samples scaled to 8-bit")
    return "; ".join(reasons) or None


def to_array(image: Image.Image) -> np.ndarray:
    """Normalise PIL modes to the four layouts the kernels handle (uint8, 2-D or H x W x C);
    an alpha channel that is opaque everywhere is dropped (LA -> L, RGBA -> RGB)."""
    if image.mode in ("L", "LA", "RGB", "RGBA"):
        converted = image
    elif image.mode in _WIDE_MODES:
        # Scaled, not clipped: PIL's convert("L") turns every value above 255 white.
        wide = np.asarray(image).astype(np.float64)
        top = 65535.0 if wide.max(initial=0) <= 65535 else float(wide.max())
        scaled = np.clip(np.rint(wide * 255.0 / top), 0, 255).astype(np.uint8)
        converted = Image.fromarray(scaled)
    elif image.mode in ("1", "F"):
        converted = image.convert("L")
    elif (image.mode == "P" and "transparency" in image.info) or image.mode == "PA":
        converted = image.convert("RGBA")
    else:
        converted = image.convert("RGB")
    if converted.mode in ("LA", "RGBA") and converted.getchannel("A").getextrema() == (255, 255):
        # Opaque everywhere: the same picture on any background, at 3/4 of the bytes, and
        # every kernel (masks, darkening) then has no alpha to keep.
        converted = converted.convert(converted.mode[:-1])
    return np.asarray(converted, dtype=np.uint8).copy()


#: zlib level for every PNG we write. Measured by bench/image_transforms.py on transformed
#: outputs: level 5 encodes 1.38 x faster than PIL's default 6 for files 7% larger; levels
#: 7-9 save 3-10% of size at 0.77-0.17 x the speed.
PNG_COMPRESS_LEVEL = 5


def encode_png(array: np.ndarray) -> bytes:
    """PNG bytes that depend only on the pixels (no timestamps, fixed compression)."""
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(array)).save(
        buffer, format="PNG", compress_level=PNG_COMPRESS_LEVEL
    )
    return buffer.getvalue()


def image_format(data: bytes) -> str:
    """Lower-case file extension for encoded image bytes ("png", "jpg", ...), "bin" if unknown."""
    try:
        fmt = (Image.open(io.BytesIO(data)).format or "").lower()
    except Exception:
        return "bin"
    return {"jpeg": "jpg", "mpo": "jpg"}.get(fmt, fmt or "bin")


def box_mean(array: np.ndarray, size: int, edges: str = "zeros") -> np.ndarray:
    """Mean over the ``size`` x ``size`` neighbourhood of each cell (``size`` odd), from one
    integral image: constant time per cell. Beyond the array: zeros, or with
    ``edges="repeat"`` its edge values."""
    pad = size // 2
    mode = "edge" if edges == "repeat" else "constant"
    padded = np.pad(array.astype(np.float64), pad, mode=mode)
    integral = np.zeros((padded.shape[0] + 1, padded.shape[1] + 1))
    integral[1:, 1:] = padded.cumsum(0).cumsum(1)
    rows, cols = array.shape
    total = (
        integral[size : size + rows, size : size + cols]
        - integral[:rows, size : size + cols]
        - integral[size : size + rows, :cols]
        + integral[:rows, :cols]
    )
    return total / (size * size)


def box_sums(array: np.ndarray, size: int) -> np.ndarray:
    """Integer sums over the ``size`` x ``size`` neighbourhood of each cell of an integer
    array (``size`` odd, edge values repeated beyond it): :func:`box_mean` times
    ``size * size``, exactly. Two running sums in int32 (int64 when the array's type lets a
    sum overflow), a third of the time of the float integral image on a page render."""
    pad = size // 2
    padded = np.pad(np.asarray(array), pad, mode="edge")
    limits = np.iinfo(padded.dtype)
    largest = max(limits.max, -limits.min) * size * max(padded.shape)
    kind = np.int32 if largest < 2**31 else np.int64
    down = np.cumsum(padded, axis=0, dtype=kind)
    rows = np.empty((array.shape[0], padded.shape[1]), dtype=kind)
    rows[0] = down[size - 1]
    rows[1:] = down[size:] - down[:-size]
    across = np.cumsum(rows, axis=1, dtype=kind)
    sums = np.empty(array.shape, dtype=kind)
    sums[:, 0] = across[:, size - 1]
    sums[:, 1:] = across[:, size:] - across[:, :-size]
    return sums


#: ITU-R BT.601 weights of red, green and blue in a pixel's brightness.
LUMA_WEIGHTS = (0.299, 0.587, 0.114)


def luma(pixels: np.ndarray) -> np.ndarray:
    """Brightness (float64) of pixels whose last axis is red, green, blue (more channels,
    such as alpha, are ignored).

    Products and sums element by element, never a matrix product: ``rgb @ weights`` goes
    through BLAS, whose kernel is chosen by the CPU and rounds differently from one
    machine to another, so a pixel on a threshold flipped and the same seed gave other
    bytes on another machine. Element-wise IEEE arithmetic is the same everywhere.
    """
    colour = np.asarray(pixels, dtype=np.float64)
    red, green, blue = LUMA_WEIGHTS
    return colour[..., 0] * red + colour[..., 1] * green + colour[..., 2] * blue
