"""The contact sheet: original and every result as labelled thumbnails on one PNG."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw

from ..media.fonts import font
from ..model import Sample

if TYPE_CHECKING:
    from .run import PreviewItem

TILE_W, IMAGE_H, TEXT_H, PAD, COLUMNS = 420, 300, 118, 12, 3


def _strip(images: list[Image.Image]) -> Image.Image:
    """Up to three images side by side, fitted into the tile's image box."""
    shown = images[:3]
    slot = (TILE_W - PAD * (len(shown) - 1)) // max(1, len(shown))
    canvas = Image.new("RGB", (TILE_W, IMAGE_H), (245, 245, 245))
    x = 0
    for image in shown:
        thumb = image.convert("RGB")
        thumb.thumbnail((slot, IMAGE_H))
        canvas.paste(thumb, (x + (slot - thumb.width) // 2, (IMAGE_H - thumb.height) // 2))
        x += slot + PAD
    return canvas


def _tile(title: str, subtitle: str, question: str, images: list[Image.Image]) -> Image.Image:
    tile = Image.new("RGB", (TILE_W, IMAGE_H + TEXT_H), "white")
    tile.paste(_strip(images), (0, 0))
    pen = ImageDraw.Draw(tile)
    y = IMAGE_H + 6
    pen.text((4, y), title, fill=(20, 20, 20), font=font(15, bold=True))
    pen.text((4, y + 20), subtitle, fill=(90, 90, 90), font=font(12))
    lines = textwrap.wrap(question, width=58)[:4]
    for i, line in enumerate(lines):
        pen.text((4, y + 40 + 17 * i), line, fill=(40, 40, 40), font=font(12))
    return tile


def _open(path_or_bytes: bytes | Path) -> Image.Image:
    if isinstance(path_or_bytes, Path):
        return Image.open(path_or_bytes)
    return Image.open(io.BytesIO(path_or_bytes))


def contact_sheet(
    sample: Sample, originals: list[bytes], items: list[PreviewItem], out_dir: Path
) -> bytes:
    tiles = [
        _tile(
            "original (answerable)",
            f"answer: {sample.answer}"[:60],
            sample.question,
            [_open(o) for o in originals],
        )
    ]
    for item in items:
        if item.output is None:
            continue
        label = item.transform.name + ("" if item.status == "ok" else f"  [{item.status}]")
        family = item.transform.family.replace("_", " ")
        subtitle = f"{family} · intensity {item.output.record.intensity:.0f}"
        tiles.append(
            _tile(label, subtitle, item.output.question, [_open(out_dir / p) for p in item.images])
        )
    rows = (len(tiles) + COLUMNS - 1) // COLUMNS
    columns = min(COLUMNS, len(tiles))
    width = columns * TILE_W + (columns + 1) * PAD
    height = rows * (IMAGE_H + TEXT_H) + (rows + 1) * PAD
    sheet = Image.new("RGB", (width, height), (210, 210, 210))
    for i, tile in enumerate(tiles):
        row, column = divmod(i, COLUMNS)
        sheet.paste(tile, (PAD + column * (TILE_W + PAD), PAD + row * (IMAGE_H + TEXT_H + PAD)))
    buffer = io.BytesIO()
    sheet.save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()
