"""A font that is always there: matplotlib ships DejaVu Sans."""

from __future__ import annotations

import functools
from pathlib import Path

from PIL import ImageFont


@functools.lru_cache(maxsize=8)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    import matplotlib

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name), size)
