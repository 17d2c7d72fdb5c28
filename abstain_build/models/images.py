"""Images as models receive them: PNG, longest side capped, never upscaled.

Every input (an array, or encoded bytes of any format) is decoded and re-encoded with the
project's deterministic PNG encoder, so the bytes sent, and the cache key hashed from them,
depend only on the pixels and ``max_side``.
"""

from __future__ import annotations

import base64
import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from PIL import Image

from ..errors import InputError
from ..media.images import decode_image, encode_png

ImageInput = np.ndarray | bytes


@dataclass(frozen=True)
class EncodedImage:
    """PNG bytes ready to send, with their size and content hash."""

    png: bytes
    width: int
    height: int

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.png).hexdigest()

    @property
    def base64(self) -> str:
        return base64.b64encode(self.png).decode("ascii")

    @property
    def data_url(self) -> str:
        return f"data:image/png;base64,{self.base64}"


def encode_for_model(image: ImageInput, max_side: int) -> EncodedImage:
    """Decode, shrink so the longest side is at most ``max_side``, encode as PNG."""
    if isinstance(image, bytes | bytearray | memoryview):
        array = decode_image(bytes(image), "model input image")
    elif isinstance(image, np.ndarray):
        array = _checked_array(image)
    else:
        raise InputError(f"model input image: expected uint8 array or bytes, got {type(image)}")
    array = downscale(array, max_side)
    height, width = array.shape[:2]
    return EncodedImage(encode_png(array), width, height)


class EncodedImages:
    """Encoded images by (hash of the input bytes, ``max_side``), least recently used
    dropped first beyond ``max_bytes``. Shared by every client of a process: the cells of a
    grid, the samples of self-consistency and the agents of a multi-agent run send the
    same pages again, and decoding, shrinking and re-encoding a page (about 50 ms) is the
    costliest part of a request on this side."""

    def __init__(self, max_bytes: int = 256 * 2**20) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[str, int], EncodedImage] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, image: ImageInput, max_side: int) -> EncodedImage:
        if not isinstance(image, bytes | bytearray | memoryview):
            return encode_for_model(image, max_side)
        key = (hashlib.sha256(image).hexdigest(), max_side)
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found
        encoded = encode_for_model(image, max_side)
        with self._lock:
            if key not in self._items:
                self._items[key] = encoded
                self._bytes += len(encoded.png)
            while self._bytes > self.max_bytes and self._items:
                _, dropped = self._items.popitem(last=False)
                self._bytes -= len(dropped.png)
        return encoded


#: The process's encoded images (see ``EncodedImages``).
ENCODED = EncodedImages()


def downscale(array: np.ndarray, max_side: int) -> np.ndarray:
    """Lanczos resize to fit ``max_side`` (aspect kept); the input itself when it already fits."""
    height, width = array.shape[:2]
    longest = max(height, width)
    if longest <= max_side:
        return array
    scale = max_side / longest
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    resized = Image.fromarray(np.ascontiguousarray(array)).resize(
        size, Image.Resampling.LANCZOS, reducing_gap=3.0
    )
    return np.asarray(resized)


def _checked_array(array: np.ndarray) -> np.ndarray:
    if array.dtype != np.uint8:
        raise InputError(f"model input image: expected a uint8 array, got {array.dtype}")
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    if array.ndim not in (2, 3) or (array.ndim == 3 and array.shape[2] not in (2, 3, 4)):
        raise InputError(f"model input image: unsupported array shape {array.shape}")
    if 0 in array.shape:
        raise InputError(f"model input image: empty array {array.shape}")
    return array
