"""Erase or rewrite short pieces of text on a PDF page, so the result looks printed.

Two paths, chosen by where the page's words came from:

* **text layer**: the old characters are redacted (gone from the text layer) and the area
  is filled with the colour around it; the new text is inserted as real text in a
  standard PDF font matching the old span's size, colour, weight and family (serif, sans,
  mono), on the old baseline. A model reading the PDF's text gets the new value.
* **pixels** (image-only pages, words from OCR): the page is rendered once, every edit is
  made on that render (background-matched erase, new text drawn in DejaVu Sans with the
  old ink colour, scaled so its ink is as tall as the old word's), and each edited area is
  put back as an opaque image after redacting what was under it. No text layer is added:
  a scanned page stays a scan, and nothing tells a reader which numbers changed.

Either way a longer replacement is squeezed horizontally to fit (at most ``max_growth``
wider than the old text) rather than overprinting its neighbours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pymupdf
from PIL import Image, ImageDraw

from ...content.page_numbers import PageNumber
from ...media.fonts import base14_font
from ...media.images import encode_png
from .erase import erase_text, ring_colour
from .pdf_edit import WHITE, normalise_rotation, redact_rects, render_region
from .text_order import PlacedText, Underlay, insert_in_reading_order

#: How much wider than the erased text a replacement may be before it is squeezed.
MAX_GROWTH = 1.1
#: Pixel padding around an OCR box when erasing: OCR boxes hug the ink, anti-aliasing
#: reaches a pixel or so beyond.
_PAD_SHARE = 0.08


@dataclass(frozen=True)
class TextEdit:
    """Erase ``rect`` (page points, rotation removed) and, if ``text``, write it there.

    ``align``: where the new text sits in ``rect`` ("left", "right", "centre").
    ``style_rect``: where to read the style from when ``rect`` holds no text (a new row
    written into empty space); defaults to ``rect``.
    ``erase``: False to write without erasing first (an empty area).
    ``growth``: how much wider than ``rect`` the new text may be before it is squeezed (1.0
    for a number inside a sentence, where the next word follows closely).
    ``like``: the text printed at ``style_rect`` (or ``rect``) now; on image-only pages the
    font and size are matched to how it looks, helped by ``context``: other words printed
    nearby in the same style, with their boxes (the rest of the line).
    """

    rect: tuple[float, float, float, float]
    text: str = ""
    align: str = "left"
    style_rect: tuple[float, float, float, float] | None = None
    erase: bool = True
    growth: float = MAX_GROWTH
    like: str = ""
    context: tuple[tuple[str, tuple[float, float, float, float]], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """JSON values, for the plan's record (:attr:`..model.Plan.replay`)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TextEdit:
        style = data.get("style_rect")
        return cls(
            **{
                **data,
                "rect": tuple(data["rect"]),
                "style_rect": None if style is None else tuple(style),
                "context": tuple((text, tuple(box)) for text, box in data.get("context") or ()),
            }
        )


@dataclass(frozen=True)
class PdfStyle:
    """How a span of the text layer is printed."""

    size: float
    colour: tuple[float, float, float]
    fontname: str  # a PDF base-14 font name as PyMuPDF spells it ("helv", "tibo", ...)
    baseline: float | None  # y of the span's baseline, when one was found


_BASE14 = {
    (False, False, "sans"): "helv",
    (True, False, "sans"): "hebo",
    (False, True, "sans"): "heit",
    (True, True, "sans"): "hebi",
    (False, False, "serif"): "tiro",
    (True, False, "serif"): "tibo",
    (False, True, "serif"): "tiit",
    (True, True, "serif"): "tibi",
    (False, False, "mono"): "cour",
    (True, False, "mono"): "cobo",
    (False, True, "mono"): "coit",
    (True, True, "mono"): "cobi",
}


#: Parts of the names of fixed-width fonts whose files do not set the monospaced flag
#: (TeX's Inconsolata and cmtt among them).
_MONO_NAMES = (
    "mono", "courier", "inconsolata", "consol", "menlo", "monaco", "typewriter", "cmtt",
    "code", "fixed",
)  # fmt: skip


def _family(span: dict) -> str:
    name = span.get("font", "").lower()
    flags = span.get("flags", 0)
    if flags & pymupdf.TEXT_FONT_MONOSPACED or any(k in name for k in _MONO_NAMES):
        return "mono"
    serif = flags & pymupdf.TEXT_FONT_SERIFED or any(k in name for k in ("times", "serif", "roman"))
    return "serif" if serif and "sans" not in name else "sans"


def _overlap(a: Sequence[float], b: Sequence[float]) -> float:
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return max(width, 0.0) * max(height, 0.0)


def pdf_style(page: pymupdf.Page, rect: Sequence[float]) -> PdfStyle | None:
    """The style of the text-layer span overlapping ``rect`` most (None: no text there)."""
    return style_of_spans(page_spans(page, rect), rect)


def page_spans(page: pymupdf.Page, clip: Sequence[float] | None = None) -> list[dict]:
    """The text-layer spans of the page (or of ``clip``), read in one pass."""
    data = page.get_text("dict", clip=pymupdf.Rect(clip) if clip is not None else None)
    return [
        span
        for block in data.get("blocks", [])
        for line in block.get("lines", [])
        for span in line.get("spans", [])
        if span.get("text", "").strip()
    ]


def style_of_spans(spans: Sequence[dict], rect: Sequence[float]) -> PdfStyle | None:
    """The style of the span among ``spans`` overlapping ``rect`` most."""
    best, best_area = None, 0.0
    for span in spans:
        area = _overlap(span["bbox"], rect)
        if area > best_area:
            best, best_area = span, area
    if best is None:
        return None
    flags = best.get("flags", 0)
    name = best.get("font", "").lower()
    bold = bool(flags & pymupdf.TEXT_FONT_BOLD) or "bold" in name or "black" in name
    italic = bool(flags & pymupdf.TEXT_FONT_ITALIC) or "italic" in name or "oblique" in name
    colour = pymupdf.sRGB_to_pdf(best.get("color", 0))
    return PdfStyle(
        size=float(best["size"]),
        colour=tuple(float(c) for c in colour),
        fontname=_BASE14[(bold, italic, _family(best))],
        baseline=float(best["origin"][1]),
    )


def _fallback_style(rect: Sequence[float]) -> PdfStyle:
    height = rect[3] - rect[1]
    return PdfStyle(
        size=max(height * 0.8, 4.0), colour=(0.0, 0.0, 0.0), fontname="helv", baseline=None
    )


def _place_x(rect: Sequence[float], width: float, align: str) -> float:
    if align == "right":
        return rect[2] - width
    if align == "centre":
        return (rect[0] + rect[2] - width) / 2
    return rect[0]


def edit_text_layer(page: pymupdf.Page, edits: Sequence[TextEdit]) -> list[dict[str, object]]:
    """Apply ``edits`` on a page with a text layer (see the module docstring)."""
    normalise_rotation(page)
    spans = page_spans(page)  # one text extraction for all edits
    styles = [
        style_of_spans(spans, edit.style_rect or edit.rect)
        or _fallback_style(edit.style_rect or edit.rect)
        for edit in edits
    ]
    # Each character whose box overlaps a redaction goes: shrink a hair so neighbours
    # that merely touch the box stay. The fill of a box that gets new text is drawn with
    # that text, under it (a fill drawn last would cover it).
    erasing = [index for index, edit in enumerate(edits) if edit.erase]
    rewritten = [n for n, index in enumerate(erasing) if edits[index].text]
    erased = erase_text(page, [_shrunk(edits[i].rect) for i in erasing], deferred=rewritten)
    underlays = {
        erasing[item["index"]]: (tuple(item["rect"]), tuple(item["fill"]))
        for item in erased
        if item["index"] in rewritten and item["over_picture"]
    }
    shown = [index for index, edit in enumerate(edits) if edit.text]
    written = write_text_edits(
        page,
        [edits[i] for i in shown],
        [styles[i] for i in shown],
        [underlays.get(i) for i in shown],
    )
    return [*({"erased": item} for item in erased), *({"written": item} for item in written)]


def _shrunk(rect: Sequence[float], by: float = 0.3) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = rect
    dx = min(by, (x1 - x0) / 4)
    dy = min(by, (y1 - y0) / 4)
    return (x0 + dx, y0 + dy, x1 - dx, y1 - dy)


def place_text_edit(
    edit: TextEdit, style: PdfStyle, underlay: Underlay | None = None
) -> PlacedText:
    """Where and how ``edit``'s text is drawn: on the old baseline (or near the bottom of
    ``rect``), aligned in it and squeezed to fit ``growth`` times its width."""
    rect = edit.rect
    width = pymupdf.get_text_length(edit.text, fontname=style.fontname, fontsize=style.size)
    room = (rect[2] - rect[0]) * edit.growth
    squeeze = min(1.0, room / width) if width > 0 else 1.0
    x = _place_x(rect, width * squeeze, edit.align)
    baseline = style.baseline
    if baseline is None or not rect[1] - style.size <= baseline <= rect[3] + style.size:
        baseline = rect[3] - 0.22 * (rect[3] - rect[1])
    return PlacedText(
        text=edit.text,
        origin=(x, baseline),
        fontname=style.fontname,
        size=style.size,
        colour=style.colour,
        squeeze=squeeze,
        rect=tuple(rect),
        underlay=underlay,
    )


def write_text_edits(
    page: pymupdf.Page,
    edits: Sequence[TextEdit],
    styles: Sequence[PdfStyle],
    underlays: Sequence[Underlay | None] | None = None,
    at_end: bool = False,
) -> list[dict[str, object]]:
    """Draw each edit's text as real text in its style, spliced into the content stream in
    reading order (:mod:`.text_order`), so the text layer reads each value in its sentence;
    ``underlays``: a box to fill first, per edit (or None); ``at_end``: drawn after all
    else instead (see :func:`.text_order.insert_in_reading_order`).
    """
    underlays = underlays or [None] * len(edits)
    placed = [
        place_text_edit(edit, style, underlay)
        for edit, style, underlay in zip(edits, styles, underlays, strict=True)
    ]
    places = insert_in_reading_order(page, placed, at_end=at_end)
    return [
        {
            "text": item.text,
            "at": [round(item.origin[0], 2), round(item.origin[1], 2)],
            "size": round(item.size, 2),
            "font": item.fontname,
            "colour": [round(c, 3) for c in item.colour],
            "squeeze": round(item.squeeze, 3),
            "stream": place,
        }
        for item, place in zip(placed, places, strict=True)
    ]


# -- pixels --------------------------------------------------------------------------------


def ink_colour(rgb: np.ndarray, box: Sequence[int], background: np.ndarray) -> tuple[int, ...]:
    """The colour of the strokes inside ``box``: the pixels farthest from the background.

    Anti-aliased edges are a blend of ink and paper, so only the most distant third of the
    pixels that differ clearly from the background are averaged (median).
    """
    x0, y0, x1, y1 = box
    pixels = rgb[y0:y1, x0:x1].reshape(-1, 3).astype(np.int32)
    if pixels.size == 0:
        return (0, 0, 0)
    distance = np.abs(pixels - background.astype(np.int32)).sum(axis=1)
    far = distance >= 60
    if not far.any():
        return (0, 0, 0) if background.mean() > 127 else (255, 255, 255)
    cut = np.percentile(distance[far], 67)
    return tuple(int(v) for v in np.median(pixels[far & (distance >= cut)], axis=0))


#: Fonts tried when matching printed pixels: sans, sans bold, serif.
PIXEL_FONTS = ("helv", "hebo", "tiro")
_PROBE = 100
FONT_MARGIN = 0.08


def _ink(text: str, fontname: str, size: int) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    face = base14_font(fontname, size)
    left, top, right, bottom = face.getbbox(text)
    canvas = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(canvas).text((-left, -top), text, font=face, fill=255)
    return np.asarray(canvas), (left, top, right, bottom)


def ink_mask(
    rgb: np.ndarray, box: Sequence[int], paper: np.ndarray, ink: Sequence[int]
) -> np.ndarray:
    """Pixels of ``box`` at least half-way from the paper colour to the ink colour."""
    x0, y0, x1, y1 = box
    pixels = rgb[y0:y1, x0:x1].astype(np.float32)
    base = paper.astype(np.float32)
    full = float(np.abs(np.asarray(ink, dtype=np.float32) - base).sum())
    if full <= 0 or pixels.size == 0:
        return np.zeros(pixels.shape[:2], dtype=bool)
    return np.abs(pixels - base).sum(axis=2) / full >= 0.5


def _likeness(text: str, fontname: str, target: np.ndarray) -> float:
    """Overlap (IoU) of ``text`` printed in ``fontname``, stretched to the target's box, with
    the target's ink: the shapes of the glyphs, their weight and spacing all count.
    """
    height, width = target.shape
    if height < 2 or width < 2 or not target.any():
        return 0.0
    mask, _ = _ink(text, fontname, max(8, height))
    fitted = np.asarray(Image.fromarray(mask).resize((width, height), Image.BILINEAR)) > 127
    union = np.logical_or(fitted, target).sum()
    return float(np.logical_and(fitted, target).sum() / union) if union else 0.0


def match_font(samples: Sequence[tuple[str, np.ndarray]]) -> str:
    """The base-14 font whose glyphs overlap best with printed words (text, ink mask).

    Plain sans is the default; another font must beat it by :data:`FONT_MARGIN` in mean
    overlap, because a scan's blur thickens regular strokes towards bold (on a 150 dpi
    table, regular rows scored up to 0.06 above plain for bold, real bold rows 0.14).
    """
    if not samples:
        return PIXEL_FONTS[0]
    scores = {
        name: sum(_likeness(text, name, target) for text, target in samples) / len(samples)
        for name in PIXEL_FONTS
    }
    best = max(PIXEL_FONTS, key=lambda name: scores[name])
    return best if scores[best] - scores[PIXEL_FONTS[0]] > FONT_MARGIN else PIXEL_FONTS[0]


def fit_size(like: str, fontname: str, ink_height: int) -> int:
    """The pixel size at which ``like``'s ink is ``ink_height`` tall in ``fontname``."""
    probe, _ = _ink(like, fontname, _PROBE)
    return max(4, round(_PROBE * ink_height / max(probe.shape[0], 1)))


def baseline_of(like: str, fontname: str, size: int, ink_bottom: float) -> float:
    """Where the baseline is when ``like``'s ink ends at ``ink_bottom`` (its descenders)."""
    face = base14_font(fontname, size)
    ascent = face.getmetrics()[0]
    return ink_bottom - (face.getbbox(like)[3] - ascent)


def draw_text(
    rgb: np.ndarray,
    box: Sequence[int],
    text: str,
    colour: Sequence[int],
    fontname: str,
    size: int,
    baseline: float,
    align: str = "left",
    growth: float = MAX_GROWTH,
) -> tuple[int, int, int, int]:
    """Draw ``text`` into ``rgb`` on ``baseline`` inside ``box``'s width, squeezed to at
    most ``growth`` times that width. Returns the ink's pixel box.
    """
    x0, _, x1, _ = (int(v) for v in box)
    mask, (_, top, _, _) = _ink(text, fontname, size)
    ascent = base14_font(fontname, size).getmetrics()[0]
    height, width = mask.shape
    room = max(1, round((x1 - x0) * growth))
    if width > room:
        mask = np.asarray(Image.fromarray(mask).resize((room, height), Image.LANCZOS))
        width = room
    alpha_full = mask.astype(np.float32) / 255.0
    if align == "right":
        left_x = x1 - width
    elif align == "centre":
        left_x = (x0 + x1 - width) // 2
    else:
        left_x = x0
    top_y = round(baseline + top - ascent)
    full_h, full_w = rgb.shape[:2]
    cx0, cy0 = max(0, left_x), max(0, top_y)
    cx1, cy1 = min(full_w, left_x + width), min(full_h, top_y + height)
    if cx1 <= cx0 or cy1 <= cy0:
        return (cx0, cy0, cx0, cy0)
    alpha = alpha_full[cy0 - top_y : cy1 - top_y, cx0 - left_x : cx1 - left_x, None]
    region = rgb[cy0:cy1, cx0:cx1].astype(np.float32)
    ink = np.asarray(colour, dtype=np.float32)[None, None, :]
    rgb[cy0:cy1, cx0:cx1] = (region * (1 - alpha) + ink * alpha + 0.5).astype(np.uint8)
    return (cx0, cy0, cx1, cy1)


def edit_pixels(
    page: pymupdf.Page, edits: Sequence[TextEdit], dpi: float = 200
) -> list[dict[str, object]]:
    """Apply ``edits`` to an image-only page, in pixels (see the module docstring)."""
    normalise_rotation(page)
    if not edits:
        return []
    rgb, _ = render_region(page, page.rect, dpi)
    original = rgb.copy()
    done: list[dict[str, object]] = []
    patches: list[tuple[int, int, int, int]] = []
    for edit in edits:
        box = pixel_box(edit.rect, page, rgb.shape)
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        pad = max(1, round(_PAD_SHARE * (box[3] - box[1])))
        padded = (
            max(0, box[0] - pad),
            max(0, box[1] - pad),
            min(rgb.shape[1], box[2] + pad),
            min(rgb.shape[0], box[3] + pad),
        )
        background = ring_colour(original, padded, max(2, pad))
        entry: dict[str, object] = {"box_px": list(padded), "fill": [int(v) for v in background]}
        if edit.text:
            style_box = pixel_box(edit.style_rect, page, rgb.shape) if edit.style_rect else box
            paper = ring_colour(original, style_box, 2)
            colour = ink_colour(original, style_box, paper)
            like = edit.like or edit.text
            samples = [(like, ink_mask(original, style_box, paper, colour))]
            for text, rect in edit.context[:8]:
                word_box = pixel_box(rect, page, rgb.shape)
                samples.append((text, ink_mask(original, word_box, paper, colour)))
            fontname = match_font(samples)
            size = fit_size(like, fontname, style_box[3] - style_box[1])
            baseline = baseline_of(like, fontname, size, box[3])
        if edit.erase:
            x0, y0, x1, y1 = padded
            rules = rule_rows(original, padded, background)
            rgb[y0:y1, x0:x1] = background
            rgb[y0:y1, x0:x1][rules] = original[y0:y1, x0:x1][rules]
        if edit.text:
            inked = draw_text(
                rgb, box, edit.text, colour, fontname, size, baseline, edit.align, edit.growth
            )
            entry.update(
                text=edit.text, colour=list(colour), font=fontname, size_px=size, ink_px=list(inked)
            )
            padded = (
                min(padded[0], inked[0]),
                min(padded[1], inked[1]),
                max(padded[2], inked[2]),
                max(padded[3], inked[3]),
            )
        patches.append(padded)
        done.append(entry)
    put_pixels_back(page, rgb, patches)
    return done


def put_pixels_back(page: pymupdf.Page, rgb: np.ndarray, patches: Sequence[Sequence[int]]) -> None:
    """Make the pixel boxes ``patches`` of ``rgb`` (a render of the whole page) what the
    page shows there: redact under them, then place each as an opaque image.

    One redaction pass for all patches (each pass re-parses the page). It is inset a
    little: it blanks whole pixels of the page's own image, which would show as a white
    hairline around a patch of exactly the same size.
    """
    scale_x = rgb.shape[1] / page.rect.width
    scale_y = rgb.shape[0] / page.rect.height
    rects = [
        (
            page.rect.x0 + x0 / scale_x,
            page.rect.y0 + y0 / scale_y,
            page.rect.x0 + x1 / scale_x,
            page.rect.y0 + y1 / scale_y,
        )
        for x0, y0, x1, y1 in patches
    ]
    redact_rects(page, [_shrunk(rect, 0.75) for rect in rects], fill=WHITE)
    for rect, (x0, y0, x1, y1) in zip(rects, patches, strict=True):
        page.insert_image(rect, stream=encode_png(rgb[y0:y1, x0:x1]), keep_proportion=False)


def rule_rows(rgb: np.ndarray, box: Sequence[int], background: np.ndarray) -> np.ndarray:
    """Rows of ``box`` crossed by a ruling line (a table rule, an underline): not ink of
    the text to erase, so they are kept. A rule row is inked across nearly the whole box
    and continues beyond it on at least one side (a rule may end at a table's edge).
    """
    x0, y0, x1, y1 = box
    width = rgb.shape[1]
    reach = max(3, (y1 - y0) // 2)
    left, right = max(0, x0 - reach), min(width, x1 + reach)
    band = rgb[y0:y1, left:right].astype(np.int32)
    inked = np.abs(band - background.astype(np.int32)).sum(axis=2) >= 90
    inside = inked[:, x0 - left : x1 - left].mean(axis=1) >= 0.9
    none = np.zeros(inside.shape, dtype=bool)
    before = inked[:, : x0 - left].mean(axis=1) >= 0.9 if x0 > left else none
    after = inked[:, x1 - left :].mean(axis=1) >= 0.9 if right > x1 else none
    return inside & (before | after)


def pixel_box(
    rect: Sequence[float], page: pymupdf.Page, shape: Sequence[int]
) -> tuple[int, int, int, int]:
    """``rect`` (page points) as a pixel box of a whole-page render of ``shape``, rounded
    outwards and clipped to the render."""
    scale_x = shape[1] / page.rect.width
    scale_y = shape[0] / page.rect.height
    return (
        max(0, int(np.floor((rect[0] - page.rect.x0) * scale_x))),
        max(0, int(np.floor((rect[1] - page.rect.y0) * scale_y))),
        min(shape[1], int(np.ceil((rect[2] - page.rect.x0) * scale_x))),
        min(shape[0], int(np.ceil((rect[3] - page.rect.y0) * scale_y))),
    )


def apply_text_edits(
    page: pymupdf.Page, edits: Sequence[TextEdit], source: str, dpi: float = 200
) -> list[dict[str, object]]:
    """Edit through the text layer (``source == "text_layer"``) or in pixels (OCR'd page)."""
    if source == "text_layer":
        return edit_text_layer(page, edits)
    return edit_pixels(page, edits, dpi)


def rewrite_edit(number: PageNumber, new_text: str) -> TextEdit:
    """The edit that replaces ``number`` by ``new_text`` where and as it was printed.

    A right-aligned number keeps its right edge and may grow leftwards into its cell (up
    to 1.5x); one inside a sentence keeps its left edge and is squeezed to its old width,
    so it does not run into the next word.
    """
    growth = 1.5 if number.align == "right" else 1.0
    return TextEdit(
        rect=number.rect,
        text=new_text,
        align=number.align,
        growth=growth,
        like=number.text,
        context=tuple((w.text, w.bbox) for w in number.line_words[:8]),
    )
