"""PIL drawings that are not plots: a table, a labelled diagram, a physics sketch, a scan.

They are drawn pixel by pixel with a bundled font, so each item shows the structure a
question depends on (a cell, a label's leader line) and nothing is left to chance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageDraw

from .raster import font, png_bytes

INK = (33, 33, 33)
RULE = (120, 120, 120)
HEADER_FILL = (220, 230, 242)
STRIPE_FILL = (246, 246, 246)


def _text_width(draw: ImageDraw.ImageDraw, text: str, size: int, bold: bool = False) -> float:
    return draw.textlength(text, font=font(size, bold))


def draw_table(
    draw: ImageDraw.ImageDraw,
    origin: tuple[int, int],
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    widths: Sequence[int],
    row_height: int = 44,
    size: int = 17,
    ink: tuple[int, int, int] = INK,
    shade: bool = True,
) -> int:
    """Draw a ruled table (first column left-aligned, numbers right-aligned); return its bottom."""
    x0, y0 = origin
    right = x0 + sum(widths)
    for r, cells in enumerate([header, *rows]):
        top = y0 + r * row_height
        if shade and r == 0:
            draw.rectangle([x0, top, right, top + row_height], fill=HEADER_FILL)
        elif shade and r % 2 == 0:
            draw.rectangle([x0, top, right, top + row_height], fill=STRIPE_FILL)
        x = x0
        for c, (cell, width) in enumerate(zip(cells, widths, strict=True)):
            bold = r == 0
            text_w = _text_width(draw, cell, size, bold)
            tx = x + 12 if c == 0 else x + width - 12 - text_w
            ty = top + (row_height - size) / 2 - 2
            draw.text((tx, ty), cell, fill=ink, font=font(size, bold))
            x += width
    bottom = y0 + (len(rows) + 1) * row_height
    draw.line([x0, y0, right, y0], fill=ink, width=2)
    draw.line([x0, y0 + row_height, right, y0 + row_height], fill=ink, width=2)
    for r in range(2, len(rows) + 1):
        y = y0 + r * row_height
        draw.line([x0, y, right, y], fill=RULE, width=1)
    draw.line([x0, bottom, right, bottom], fill=ink, width=2)
    return bottom


def table_image(
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    note: str,
    size: tuple[int, int] = (640, 400),
) -> bytes:
    """A stand-alone table figure with a title and a source note."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    draw.text((size[0] / 2, 34), title, fill=INK, font=font(20, bold=True), anchor="mm")
    first = 170
    rest = (size[0] - 40 - first) // (len(header) - 1)
    widths = [first] + [rest] * (len(header) - 1)
    bottom = draw_table(draw, (20, 66), header, rows, widths)
    draw.text((20, bottom + 14), note, fill=(90, 90, 90), font=font(13))
    return png_bytes(image)


def _arrow(
    draw: ImageDraw.ImageDraw,
    start: tuple[float, float],
    end: tuple[float, float],
    color: tuple[int, int, int],
    width: int = 4,
    head: float = 16,
) -> None:
    draw.line([start, end], fill=color, width=width)
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    left = (end[0] - head * math.cos(angle - 0.45), end[1] - head * math.sin(angle - 0.45))
    right = (end[0] - head * math.cos(angle + 0.45), end[1] - head * math.sin(angle + 0.45))
    draw.polygon([end, left, right], fill=color)


def _leader(
    draw: ImageDraw.ImageDraw, letter: str, at: tuple[float, float], to: tuple[float, float]
) -> None:
    """A circled letter with a thin leader line ending in a dot on the part it names."""
    draw.line([at, to], fill=INK, width=2)
    draw.ellipse([to[0] - 4, to[1] - 4, to[0] + 4, to[1] + 4], fill=INK)
    r = 17
    draw.ellipse([at[0] - r, at[1] - r, at[0] + r, at[1] + r], fill="white", outline=INK, width=2)
    draw.text(at, letter, fill=INK, font=font(19, bold=True), anchor="mm")


def water_cycle_diagram(labels: dict[str, str], size: tuple[int, int] = (640, 480)) -> bytes:
    """Sun, cloud, mountain and ocean joined by process arrows; ``labels`` maps letter -> part."""
    image = Image.new("RGB", size, (250, 252, 255))
    draw = ImageDraw.Draw(image)
    draw.text((size[0] / 2, 26), "The Water Cycle", fill=INK, font=font(22, bold=True), anchor="mm")
    parts: dict[str, tuple[float, float]] = {}
    # Ocean (bottom left) and ground.
    draw.rectangle([0, 400, 640, 480], fill=(139, 115, 85))
    draw.rectangle([0, 390, 300, 480], fill=(64, 132, 201))
    draw.text((150, 440), "Ocean", fill="white", font=font(18, bold=True), anchor="mm")
    parts["Ocean"] = (90, 405)
    # Mountain (right).
    draw.polygon([(330, 400), (480, 170), (630, 400)], fill=(112, 128, 96))
    draw.polygon([(450, 216), (480, 170), (510, 216), (480, 206)], fill="white")
    draw.text((505, 370), "Mountain", fill="white", font=font(16, bold=True), anchor="mm")
    parts["Mountain"] = (560, 300)
    # Sun (top left).
    draw.ellipse([40, 60, 120, 140], fill=(255, 200, 40), outline=(230, 150, 0), width=3)
    for k in range(8):
        a = k * math.pi / 4
        draw.line(
            [
                (80 + 48 * math.cos(a), 100 + 48 * math.sin(a)),
                (80 + 62 * math.cos(a), 100 + 62 * math.sin(a)),
            ],
            fill=(230, 150, 0),
            width=3,
        )
    draw.text((80, 100), "Sun", fill=INK, font=font(15, bold=True), anchor="mm")
    parts["Sun"] = (108, 128)
    # Cloud (top centre-right).
    puffs = ([270, 80, 350, 140], [315, 60, 405, 135], [370, 80, 450, 140], [290, 100, 430, 150])
    for box in puffs:
        draw.ellipse(box, fill=(235, 238, 242), outline=(170, 175, 185), width=2)
    draw.rectangle([300, 105, 420, 140], fill=(235, 238, 242))
    draw.text((360, 118), "Cloud", fill=INK, font=font(16, bold=True), anchor="mm")
    parts["Cloud"] = (300, 90)
    # Process arrows.
    blue = (30, 90, 170)
    _arrow(draw, (200, 380), (290, 165), blue)
    draw.text((160, 270), "evaporation", fill=blue, font=font(14), anchor="mm")
    _arrow(draw, (430, 150), (470, 230), blue)
    draw.text((470, 130), "precipitation", fill=blue, font=font(14), anchor="lm")
    _arrow(draw, (420, 390), (310, 410), blue)
    draw.text((370, 425), "runoff", fill=(255, 255, 255), font=font(14), anchor="mm")
    # Letter labels with leader lines.
    spots = {"A": (40, 200), "B": (230, 70), "C": (600, 110), "D": (40, 350)}
    for letter, part in labels.items():
        _leader(draw, letter, spots[letter], parts[part])
    return png_bytes(image)


def incline_sketch(size: tuple[int, int] = (480, 360)) -> bytes:
    """A block on a ramp with the angle marked; it adds nothing the question text lacks."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    base_y, left_x, right_x = 300, 50, 430
    angle = math.radians(30)
    top_y = base_y - (right_x - left_x) * math.tan(angle)
    draw.polygon([(left_x, base_y), (right_x, base_y), (right_x, top_y)], fill=(225, 225, 225))
    draw.line(
        [(left_x, base_y), (right_x, base_y), (right_x, top_y), (left_x, base_y)], fill=INK, width=3
    )
    for x in range(20, 470, 18):  # hatched ground
        draw.line([(x, base_y + 14), (x + 12, base_y + 2)], fill=RULE, width=1)
    # Block resting on the slope, rotated with it.
    along, half = 250.0, 28.0
    cx = left_x + along * math.cos(angle)
    cy = base_y - along * math.sin(angle)
    ux, uy = math.cos(angle), -math.sin(angle)  # along the slope
    nx, ny = -math.sin(angle), -math.cos(angle)  # away from the slope
    corners = [
        (cx - half * ux, cy - half * uy),
        (cx + half * ux, cy + half * uy),
        (cx + half * ux + 2 * half * nx, cy + half * uy + 2 * half * ny),
        (cx - half * ux + 2 * half * nx, cy - half * uy + 2 * half * ny),
    ]
    draw.polygon(corners, fill=(196, 120, 60), outline=INK)
    mid = (cx + half * nx, cy + half * ny)
    draw.text(mid, "m", fill="white", font=font(20, bold=True), anchor="mm")
    draw.arc([left_x - 70, base_y - 70, left_x + 70, base_y + 70], -30, 0, fill=INK, width=2)
    draw.text((left_x + 88, base_y - 20), "θ", fill=INK, font=font(22), anchor="mm")
    red = (200, 40, 40)  # the slide direction, drawn just above the slope
    _arrow(
        draw,
        (cx - 40 * ux + 18 * nx, cy - 40 * uy + 18 * ny),
        (cx - 130 * ux + 18 * nx, cy - 130 * uy + 18 * ny),
        red,
        width=3,
        head=12,
    )
    draw.text(
        (cx - 85 * ux + 38 * nx, cy - 85 * uy + 38 * ny),
        "d",
        fill=red,
        font=font(18, bold=True),
        anchor="mm",
    )
    return png_bytes(image)


def scanned_page(
    lines: Sequence[tuple[str, int, bool]],
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    widths: Sequence[int],
    footer: str,
    seed: int,
    size: tuple[int, int] = (850, 1100),
) -> bytes:
    """A greyscale page raster that looks photocopied: off-white, slightly skewed, speckled.

    ``lines`` are (text, size, bold) heading lines drawn above the table. The result goes
    into the PDF as an image only, so that page has no text layer at all.
    """
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    y = 110
    for text, text_size, bold in lines:
        draw.text((80, y), text, fill=INK, font=font(text_size, bold))
        y += int(text_size * 1.7)
    draw_table(draw, (80, y + 20), header, rows, widths, row_height=46, size=18, shade=False)
    draw.text((size[0] / 2, size[1] - 60), footer, fill=(70, 70, 70), font=font(14), anchor="mm")
    image = image.convert("L").rotate(0.6, resample=Image.Resampling.BICUBIC, fillcolor=255)
    pixels = np.asarray(image, dtype=np.int16)
    rng = np.random.default_rng(seed)
    paper = np.full_like(pixels, 246)
    pixels = np.minimum(pixels, paper)
    speckles = rng.random(pixels.shape) < 0.0015
    pixels[speckles] = rng.integers(90, 200, int(speckles.sum()))
    return png_bytes(Image.fromarray(pixels.astype(np.uint8)))
