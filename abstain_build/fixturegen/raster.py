"""Byte-stable raster output: the same drawing always encodes to the same PNG bytes.

``savefig`` writes a Software/date tEXt chunk and depends on the user's matplotlibrc, so
figures are drawn on a bare Agg canvas under the default style and encoded by PIL instead.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import matplotlib
import matplotlib.style
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image, ImageFont

# Figures are drawn on an explicit Agg canvas; this only keeps a later pyplot import headless.
matplotlib.use("Agg", force=False)

DPI = 100
PNG_COMPRESS_LEVEL = 6

# Pinned so a user's matplotlibrc cannot change the bytes we commit.
_STYLE = {
    "font.family": "DejaVu Sans",
    "font.size": 11,
    "axes.titlesize": 13,
    "axes.titleweight": "bold",
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "path.simplify": True,
}


@contextmanager
def figure(width_px: int = 640, height_px: int = 480) -> Iterator[Figure]:
    """A matplotlib figure of an exact pixel size, drawn with the default style only."""
    with matplotlib.style.context("default"), matplotlib.rc_context(_STYLE):
        fig = Figure(figsize=(width_px / DPI, height_px / DPI), dpi=DPI)
        FigureCanvasAgg(fig)
        yield fig


def figure_to_image(fig: Figure) -> Image.Image:
    """Rasterise on the Agg canvas and flatten to RGB (alpha only costs bytes here)."""
    fig.canvas.draw()
    rgba = np.asarray(fig.canvas.buffer_rgba())
    return Image.fromarray(np.ascontiguousarray(rgba[..., :3]))


def png_bytes(image: Image.Image) -> bytes:
    """PNG with fixed compression and no metadata chunks, so output is reproducible."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=PNG_COMPRESS_LEVEL, optimize=False)
    return buffer.getvalue()


def figure_png(fig: Figure) -> bytes:
    return png_bytes(figure_to_image(fig))


@cache
def _font_dir() -> Path:
    return Path(matplotlib.get_data_path()) / "fonts" / "ttf"


@cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """matplotlib's bundled DejaVu font, so PIL text looks the same on every machine."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(_font_dir() / name), size)
