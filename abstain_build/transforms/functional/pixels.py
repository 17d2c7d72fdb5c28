"""Pixel kernels on uint8 arrays (H x W, or H x W x C with optional alpha last).

Every kernel returns a new array and leaves its input alone (inputs are shared read-only
between the transforms applied to one sample). Alpha is never painted: a mask makes
colour black, not transparent, so the result looks the same on any background.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from itertools import pairwise

import numpy as np
from PIL import Image, ImageFilter

try:  # optional SIMD byte translation
    import stringzilla as _stringzilla
except ImportError:  # pragma: no cover - depends on the environment
    _stringzilla = None

Rect = tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels, half-open


def has_alpha(image: np.ndarray) -> bool:
    return image.ndim == 3 and image.shape[2] in (2, 4)


def colour_channels(image: np.ndarray) -> int:
    """Number of colour channels (alpha excluded)."""
    if image.ndim == 2:
        return 1
    return image.shape[2] - (1 if has_alpha(image) else 0)


def _lut(image: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Apply a 256-entry table to colour channels only.

    A byte-translation is the fastest way to run a lookup table: StringZilla's SIMD
    ``translate`` when it is installed (as albumentations does), else ``bytearray.translate``
    (a plain C loop, still 3-5 x faster than numpy's ``table[image]``). Same result either
    way. Alpha is translated too, then put back.
    """
    if image.dtype != np.uint8:
        return _lut_numpy(image, table)
    table_bytes = table.astype(np.uint8)
    if _stringzilla is not None and has_alpha(image):
        return _lut_keep_alpha(np.ascontiguousarray(image), table_bytes)
    if _stringzilla is not None:
        source = np.ascontiguousarray(image).reshape(-1)
        out = np.empty(image.shape, dtype=np.uint8)
        # one pass: read the source, write the result (no copy first)
        _stringzilla.translate(
            memoryview(source), memoryview(table_bytes), out=memoryview(out.reshape(-1))
        )
    else:
        # From a flat view bytearray() is one memcpy (it copies a 3-D buffer element by element).
        flat = np.ascontiguousarray(image).reshape(-1)
        translated = bytearray(flat.data).translate(table_bytes.tobytes())
        out = np.frombuffer(translated, dtype=np.uint8).reshape(image.shape)
    if has_alpha(image):
        out[..., -1] = image[..., -1]
    return out


#: Pixels per block in :func:`_lut_keep_alpha`: a block of source and result stays in L2.
LUT_BLOCK_PIXELS = 1 << 16


def _lut_keep_alpha(image: np.ndarray, table: np.ndarray) -> np.ndarray:
    """:func:`_lut` for images with alpha, block by block while the block is in cache:
    translate every byte, then put alpha back a pixel word at a time (colour bits from the
    result, alpha bits from the source). Copying the alpha bytes back with a strided copy
    costs twice the translation."""
    channels = image.shape[2]
    word = np.uint16 if channels == 2 else np.uint32
    alpha_bits = np.array([0] * (channels - 1) + [255], dtype=np.uint8).view(word)[0]
    colour_bits = ~alpha_bits
    out = np.empty(image.shape, dtype=np.uint8)
    source_bytes, out_bytes = image.reshape(-1), out.reshape(-1)
    source_words, out_words = source_bytes.view(word), out_bytes.view(word)
    scratch = np.empty(LUT_BLOCK_PIXELS, dtype=word)
    table_view = memoryview(table)
    for start in range(0, source_words.size, LUT_BLOCK_PIXELS):
        stop = min(source_words.size, start + LUT_BLOCK_PIXELS)
        _stringzilla.translate(
            memoryview(source_bytes[start * channels : stop * channels]),
            table_view,
            out=memoryview(out_bytes[start * channels : stop * channels]),
        )
        block, alpha = out_words[start:stop], scratch[: stop - start]
        np.bitwise_and(source_words[start:stop], alpha_bits, out=alpha)
        np.bitwise_and(block, colour_bits, out=block)
        np.bitwise_or(block, alpha, out=block)
    return out


def _lut_numpy(image: np.ndarray, table: np.ndarray) -> np.ndarray:
    if has_alpha(image):
        out = image.copy()
        out[..., :-1] = table[image[..., :-1]]
        return out
    return table[image]


@functools.lru_cache(maxsize=64)
def _darken_table(divisor: float) -> np.ndarray:
    return np.rint(np.arange(256, dtype=np.float64) / divisor).clip(0, 255).astype(np.uint8)


@functools.lru_cache(maxsize=64)
def _overlay_table(alpha: float, gray: int) -> np.ndarray:
    return np.rint(np.arange(256) * (1.0 - alpha) + gray * alpha).clip(0, 255).astype(np.uint8)


def darken(image: np.ndarray, divisor: float) -> np.ndarray:
    """Divide every colour value by ``divisor`` (rounded to nearest); alpha is kept."""
    return _lut(image, _darken_table(float(divisor)))


def clip_rect(rect: Iterable[float], width: int, height: int) -> Rect | None:
    """Round a rectangle to whole pixels inside the image; ``None`` if nothing is left."""
    x0, y0, x1, y1 = rect
    left, top = max(0, math.floor(x0)), max(0, math.floor(y0))
    right, bottom = min(width, math.ceil(x1)), min(height, math.ceil(y1))
    if right <= left or bottom <= top:
        return None
    return left, top, right, bottom


#: Images from this size on are painted band by band when rectangles overlap (_fill_banded):
#: below it the planning costs more than the overdraw (bench/image_transforms.py, 20 holes
#: of 15%: 1024 px images paint 12% faster banded, 512 px ones 40% slower).
BANDED_FILL_BYTES = 2 << 20


def fill_rects(image: np.ndarray, rects: Iterable[Iterable[float]], value: int = 0) -> np.ndarray:
    """Paint rectangles opaque ``value`` (black by default) on the colour channels."""
    height, width = image.shape[:2]
    boxes = [box for rect in rects if (box := clip_rect(rect, width, height)) is not None]
    painted = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes)
    if len(boxes) > 1 and painted > height * width and image.nbytes >= BANDED_FILL_BYTES:
        return _fill_banded(image, boxes, value)
    out = image.copy()
    for x0, y0, x1, y1 in boxes:
        # Whole pixels (alpha too, put back below): filling out[..., :-1] writes runs of 1 or
        # 3 bytes, 30 x slower than a whole-pixel fill.
        out[y0:y1, x0:x1] = value
    if boxes and has_alpha(image):
        left, top, right, bottom = _bounding_box(boxes)
        out[top:bottom, left:right, -1] = image[top:bottom, left:right, -1]
    return out


def _bounding_box(boxes: list[Rect]) -> Rect:
    return (
        min(box[0] for box in boxes),
        min(box[1] for box in boxes),
        max(box[2] for box in boxes),
        max(box[3] for box in boxes),
    )


def _fill_banded(image: np.ndarray, boxes: list[Rect], value: int) -> np.ndarray:
    """:func:`fill_rects` writing every pixel once: the union of the boxes is cut into
    horizontal bands of merged spans; spans are painted, the gaps copied from ``image``.

    Painting box after box writes the overlaps again (20 boxes of 15% of the area: 3 x the
    image), on top of a whole copy; this costs one copy, plus ~0.1 ms of planning.
    """
    image = np.ascontiguousarray(image)
    out = np.empty(image.shape, dtype=image.dtype)
    # With alpha, a pixel is one 16- or 32-bit word: painting a span is then one pass,
    # out = (image & alpha bits) | colour bits, instead of a fill and a strided alpha copy.
    alpha = has_alpha(image)
    words = _pixel_words(image, value) if alpha and image.dtype == np.uint8 else None
    bands = _union_bands(boxes)
    first, last = bands[0][0], bands[-1][1]
    out[:first] = image[:first]
    out[last:] = image[last:]
    for top, bottom, spans in bands:
        done = 0
        for x0, x1 in spans:
            if x0 > done:
                out[top:bottom, done:x0] = image[top:bottom, done:x0]
            if words is None:
                out[top:bottom, x0:x1] = value
                if alpha:
                    out[top:bottom, x0:x1, -1] = image[top:bottom, x0:x1, -1]
            else:
                source, keep_alpha, colour = words
                span = out.view(source.dtype)[top:bottom, x0:x1, 0]
                np.bitwise_and(source[top:bottom, x0:x1, 0], keep_alpha, out=span)
                if colour:
                    span |= colour
            done = x1
        out[top:bottom, done:] = image[top:bottom, done:]
    return out


def _pixel_words(image: np.ndarray, value: int) -> tuple[np.ndarray, np.generic, np.generic]:
    """``image`` (C-contiguous uint8, 2 or 4 channels) as one word a pixel, the mask of its
    alpha byte and the word of colour ``value`` with alpha 0."""
    channels = image.shape[2]
    word = np.uint16 if channels == 2 else np.uint32
    keep_alpha = np.array([0] * (channels - 1) + [255], dtype=np.uint8).view(word)[0]
    colour = np.array([value] * (channels - 1) + [0], dtype=np.uint8).view(word)[0]
    return image.view(word), keep_alpha, colour


def _union_bands(boxes: list[Rect]) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """The union of ``boxes`` as (top, bottom, sorted disjoint x spans), bands top to bottom;
    neighbouring bands with the same spans are merged."""
    edges = sorted({y for box in boxes for y in (box[1], box[3])})
    by_left = sorted(boxes)  # once, not per band
    bands: list[tuple[int, int, list[tuple[int, int]]]] = []
    for top, bottom in pairwise(edges):
        spans: list[tuple[int, int]] = []
        for x0, y0, x1, y1 in by_left:
            if y0 > top or y1 < bottom:
                continue
            if spans and x0 <= spans[-1][1]:
                if x1 > spans[-1][1]:
                    spans[-1] = (spans[-1][0], x1)
            else:
                spans.append((x0, x1))
        if bands and bands[-1][2] == spans:
            bands[-1] = (bands[-1][0], bottom, spans)
        else:
            bands.append((top, bottom, spans))
    return bands


def rect_mask(shape: tuple[int, int], rects: Iterable[Iterable[float]]) -> np.ndarray:
    """Boolean H x W mask, True inside any of ``rects``."""
    height, width = shape
    mask = np.zeros((height, width), dtype=bool)
    for rect in rects:
        clipped = clip_rect(rect, width, height)
        if clipped is not None:
            x0, y0, x1, y1 = clipped
            mask[y0:y1, x0:x1] = True
    return mask


def coverage(shape: tuple[int, int], rects: Iterable[Iterable[float]]) -> float:
    """Share of the image area inside the union of ``rects`` (overlaps counted once)."""
    height, width = shape
    if height * width == 0:
        return 0.0
    return float(rect_mask(shape, rects).mean())


#: From this radius on, a blur runs at 1/f of the size (:func:`_blur_factor`) and is scaled
#: back: the result differs from the full-size blur by 0.1-0.3 levels on average, at most 2
#: away from the borders and 5 at them on the bench images (10 in the corners of a
#: black-and-white checkerboard), at 1/3 to 1/4 of the cost; its PNG is also smaller and
#: faster to encode. Below it the full-size blur is cheap and the detail it keeps matters.
DOWNSAMPLED_BLUR_FROM = 9.0


def _blur_factor(radius: float) -> int:
    """The downsampling factor for ``radius``: 4 for 18, 5 for 25; 1 (none) below 9."""
    return int(radius // 4.5) if radius >= DOWNSAMPLED_BLUR_FROM else 1


def gaussian_blur(image: np.ndarray, radius: float) -> np.ndarray:
    """Gaussian blur of the colour channels; alpha is kept.

    PIL's Gaussian (three extended box passes, radius = standard deviation), whose cost does
    not grow with the radius. Large radii blur a downsampled copy (see
    :data:`DOWNSAMPLED_BLUR_FROM`): a blur that wide has no detail finer than the grid.
    Small radii blur each colour channel as its own 8-bit plane: PIL blurs RGB as 4 bytes a
    pixel (with padding), so three planes are ~20% less work, with exactly the same result.
    """
    if radius <= 0:
        return image.copy()
    factor = _blur_factor(radius)
    height, width = image.shape[:2]
    if factor > 1 and image.dtype == np.uint8 and min(height, width) >= 2 * factor:
        alpha = has_alpha(image)
        colour = image[..., :-1] if alpha else image
        blurred = _blur_downsampled(colour, radius, factor)
        if not alpha:
            return blurred
        out = image.copy()
        out[..., :-1] = blurred
        return out
    if image.ndim == 2:
        return np.array(_blur_plane(image, radius))
    colours = colour_channels(image)
    out = image.copy() if has_alpha(image) else np.empty_like(image)
    for channel in range(colours):
        out[..., channel] = _blur_plane(image[..., channel], radius)
    return out


def _blur_downsampled(colour: np.ndarray, radius: float, factor: int) -> np.ndarray:
    """Average ``factor`` x ``factor`` blocks, blur, scale back bilinearly.

    The block average and the bilinear scaling blur too (variances (f^2-1)/12 and
    (f^2-1)/6), so the small blur makes up the rest of radius^2. The image is padded by
    repeating its edges (as PIL's blur does) to whole blocks, plus one block each side so
    the scaling has neighbours at the border.
    """
    single = colour.ndim == 3 and colour.shape[2] == 1
    plane = colour[..., 0] if single else colour
    height, width = plane.shape[:2]
    pads = [(factor, factor + (-height) % factor), (factor, factor + (-width) % factor)]
    padded = np.pad(plane, pads + [(0, 0)] * (plane.ndim - 2), mode="edge")
    small = Image.fromarray(padded).reduce(factor)
    sigma = math.sqrt(max(radius**2 - (factor**2 - 1) / 4, 0.0)) / factor
    small = small.filter(ImageFilter.GaussianBlur(sigma))
    scaled = small.resize((padded.shape[1], padded.shape[0]), Image.Resampling.BILINEAR)
    out = np.asarray(scaled)[factor : factor + height, factor : factor + width]
    return np.ascontiguousarray(out[..., None] if single else out)


def _blur_plane(plane: np.ndarray, radius: float) -> np.ndarray:
    return np.asarray(
        Image.fromarray(np.ascontiguousarray(plane)).filter(ImageFilter.GaussianBlur(radius))
    )


def blur_reach(radius: float) -> int:
    """How far (in pixels) a pixel's value travels under :func:`gaussian_blur`.

    PIL's Gaussian is 3 passes of an extended box of radius ``l + a`` with
    ``l = floor((sqrt(4 r^2 + 1) - 1) / 2) < r``; each pass reads ``l + 1`` pixels either
    side. So pixels farther than ``3 * ceil(r)`` from a crop's edge blur as in the whole
    image (one pixel of slack per pass for float rounding; two blocks more for the block
    average and the scaling of a downsampled blur).
    """
    return 3 * (math.ceil(radius) + 1) + 2 * _blur_factor(radius)


def blur_rects(image: np.ndarray, rects: Iterable[Iterable[float]], radius: float) -> np.ndarray:
    """Blur ``rects`` as if the whole image were blurred, keeping the rest unchanged.

    The blur stays continuous across a region's edge, as a photographic blur would be: it
    reads the pixels around the regions. Only the regions' bounding box plus
    :func:`blur_reach` is blurred, which gives the pixels a whole-image blur gives (exactly
    for small radii; within a level or two for downsampled ones, whose block grid starts
    at the crop).
    """
    height, width = image.shape[:2]
    boxes = [box for rect in rects if (box := clip_rect(rect, width, height)) is not None]
    if not boxes or radius <= 0:
        return image.copy()
    reach = blur_reach(radius)
    left, top, right, bottom = _bounding_box(boxes)
    left, top = max(0, left - reach), max(0, top - reach)
    right, bottom = min(width, right + reach), min(height, bottom + reach)
    blurred = gaussian_blur(image[top:bottom, left:right], radius)
    out = image.copy()
    for x0, y0, x1, y1 in boxes:
        out[y0:y1, x0:x1] = blurred[y0 - top : y1 - top, x0 - left : x1 - left]
    return out


def gray_overlay(image: np.ndarray, alpha: float, gray: int = 128) -> np.ndarray:
    """Composite a uniform gray layer of opacity ``alpha`` over the colour channels."""
    return _lut(image, _overlay_table(float(alpha), int(gray)))
