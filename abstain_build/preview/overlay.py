"""Drawing a plan's edited regions over the original, so users see where a transform acted."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from ..model import Region

COLOURS = {
    "page_hidden": (220, 30, 30),
    "crop_removed": (230, 120, 0),
    "darken": (60, 60, 220),
    "mask": (220, 30, 30),
    "bar": (220, 30, 30),
    "blur": (30, 140, 220),
    "overlay": (120, 120, 120),
    "dense_window": (240, 200, 0),
    "answer_bearing": (0, 170, 60),
}
DEFAULT_COLOUR = (200, 0, 160)


def draw_regions(
    originals: list[bytes], regions: list[Region], pages: list[int], dpi: int
) -> list[bytes]:
    """One PNG per original image that has regions (none for question rewrites)."""
    return [png for _, png in region_overlays(originals, regions, pages, dpi)]


def region_overlays(
    originals: list[bytes], regions: list[Region], pages: list[int], dpi: int
) -> list[tuple[int, bytes]]:
    """``(index of the original, PNG)`` for each original image that has regions."""
    out: list[tuple[int, bytes]] = []
    for index, data in enumerate(originals):
        if pages:
            mine = [r for r in regions if r.page == pages[index]]
        else:
            mine = [r for r in regions if r.image == index]
        if not mine:
            continue
        base = Image.open(io.BytesIO(data)).convert("RGBA")
        layer = Image.new("RGBA", base.size, (0, 0, 0, 0))
        pen = ImageDraw.Draw(layer)
        width = max(2, base.width // 250)
        for region in mine:
            scale = dpi / 72.0 if region.unit == "pt" else 1.0
            x0, y0, x1, y1 = (v * scale for v in region.bbox)
            colour = COLOURS.get(region.kind, DEFAULT_COLOUR)
            pen.rectangle(
                (x0, y0, x1 - 1, y1 - 1), fill=(*colour, 60), outline=(*colour, 255), width=width
            )
        buffer = io.BytesIO()
        Image.alpha_composite(base, layer).convert("RGB").save(
            buffer, format="PNG", compress_level=6
        )
        out.append((index, buffer.getvalue()))
    return out
