"""A font that is always there: matplotlib ships DejaVu Sans."""

from __future__ import annotations

import functools
from pathlib import Path

from PIL import ImageFont


def font_path(bold: bool = False) -> Path:
    """DejaVu Sans (regular or bold) as shipped inside matplotlib."""
    import matplotlib

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name


@functools.lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font_path(bold)), size)


@functools.lru_cache(maxsize=128)
def base14_font(name: str, size: int) -> ImageFont.FreeTypeFont:
    """A PDF base-14 font as PyMuPDF ships it ("helv", "hebo", "tiro", ...: the Nimbus
    clones of Helvetica, Times, Courier), for drawing text that matches a printed page.
    """
    import io

    import pymupdf

    return ImageFont.truetype(io.BytesIO(pymupdf.Font(name).buffer), size)
