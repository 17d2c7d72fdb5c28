"""What rewriting many values on a scanned page with a text layer costs.

A datasheet scanned with its text layer kept (a full-page picture under the text) had
about 470 values rewritten by number corruption. Each new value is spliced into the
content stream where its neighbour is drawn (:mod:`..transforms.functional.text_order`),
and finding that place asks, a dozen times a value, which glyphs a clip of the page
draws. Asked through PyMuPDF's ``get_text("rawdict", clip=...)`` every answer also
encodes the page's picture; the text order module reads the clip's characters from the
text page instead.

Both ways, in the same run, on a generated page (a noise "scan" under a table of numbers
drawn one text object per row, as scanners write them):

* seconds to rewrite ``--values`` values, and the ratio (PyMuPDF's dictionary / clip
  reading);
* whether the two pages' content streams are the same bytes (they must be).

    python bench/text_order.py [--values N] [--side PX] [--json PATH]
"""

from __future__ import annotations

import argparse
import io
import json
import time
from pathlib import Path

import numpy as np
import pymupdf
from PIL import Image

from abstain_build.transforms.functional import text_order
from abstain_build.transforms.functional.text_edits import TextEdit, edit_text_layer

ROWS, COLUMNS = 30, 6


def scanned_table(side: int) -> bytes:
    """A US-letter page: a ``side``-pixel-wide noise picture under a table of numbers."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    rng = np.random.default_rng(0)
    height = round(side * 792 / 612)
    noise = rng.integers(200, 256, (height, side, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(noise).save(buffer, "PNG")
    page.insert_image(page.rect, stream=buffer.getvalue())
    for row in range(ROWS):
        cells = [f"Row {row + 1}"] + [str(100 + 37 * row + 11 * c) for c in range(COLUMNS)]
        page.insert_text((40, 80 + 22 * row), "    ".join(cells), fontsize=10)
    return doc.tobytes()


def rewrite(pdf: bytes, values: int) -> tuple[float, bytes]:
    doc = pymupdf.open(stream=pdf, filetype="pdf")
    page = doc[0]
    words = [w for w in page.get_text("words") if w[4].isdigit()][:values]
    edits = [TextEdit(rect=tuple(w[:4]), text=str(int(w[4]) + 7), growth=1.5) for w in words]
    started = time.perf_counter()
    edit_text_layer(page, edits)
    elapsed = time.perf_counter() - started
    return elapsed, page.read_contents()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=12, help="values rewritten")
    parser.add_argument("--side", type=int, default=2550, help="scan width in pixels")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    pdf = scanned_table(args.side)
    clip_seconds, clip_bytes = rewrite(pdf, args.values)
    has_pictures = text_order._has_pictures
    text_order._has_pictures = lambda textpage: False  # always PyMuPDF's dictionary
    try:
        dict_seconds, dict_bytes = rewrite(pdf, args.values)
    finally:
        text_order._has_pictures = has_pictures
    figures = {
        "values": args.values,
        "scan_px": args.side,
        "clip_reading_s": round(clip_seconds, 2),
        "pymupdf_dict_s": round(dict_seconds, 2),
        "ratio": round(dict_seconds / max(clip_seconds, 1e-9), 1),
        "same_bytes": clip_bytes == dict_bytes,
    }
    print(json.dumps(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
