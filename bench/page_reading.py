"""What reading a page costs against the floor: is each pixel OCR'd once?

Every page of the documents is read as the evidence map reads it (``read_page``: text
layer; OCR of image-only pages; sparse-text OCR of the pictures on text pages), cold
(memory cache cleared, no disk cache). The reference, measured on the same page in the
same run, is the floor any reading pays: a render at the map's resolution, the text layer,
and one OCR pass over the whole page. Reported per page kind (text layer, image-only,
photo spread: a text page whose pictures cover it):

* seconds per page, reading and floor, and their ratio (target: within 1.5x);
* page area OCR'd over the page area (``engine_pixels`` at each pass's resolution, in
  points squared; target: at most 1.2; the floor is 1.0 by construction).

Documents: a generated photo-spread brochure (``fixturegen.spreads``, the pages that were
slowest) and, by default, the shared MMLongBench-Doc PDFs (``--limit`` pages per document).

    python bench/page_reading.py [--docs DIR] [--limit N] [--spreads N] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pymupdf

from abstain_build.evidence.reading import (
    FIGURE_DPI,
    OCR,
    OCR_FIGURE,
    figure_boxes,
    forget_documents,
    read_page,
)
from abstain_build.fixturegen.spreads import photo_spread_pdf
from abstain_build.textregions import ocr
from abstain_build.textregions.pages import DEFAULT_DPI, text_layer_words

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "mmlongbench-doc" / "documents"
SPREAD_SHARE = 0.8  # pictures covering this share of a text page make it a photo spread


def page_kind(page: pymupdf.Page, has_layer: bool) -> str:
    if not has_layer:
        return "image-only"
    area = page.rect.width * page.rect.height
    covered = sum((b[2] - b[0]) * (b[3] - b[1]) for b in figure_boxes(page))
    return "photo spread" if covered >= SPREAD_SHARE * area else "text layer"


def floor_seconds(page: pymupdf.Page, with_ocr: bool) -> float:
    """Render at the map's resolution and the text layer, plus one OCR pass of the page when
    the reading needed OCR at all: the least a reading of every channel costs."""
    started = time.perf_counter()
    pix = page.get_pixmap(dpi=DEFAULT_DPI, colorspace=pymupdf.csGRAY, alpha=False)
    image = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)
    text_layer_words(page)
    if with_ocr:
        ocr.ocr_image(image[:, : pix.width].copy(), use_cache=False)
    return time.perf_counter() - started


def measure(document: pymupdf.Document, name: str, limit: int | None) -> list[dict]:
    rows = []
    for number in range(1, document.page_count + 1)[: limit or None]:
        page = document[number - 1]
        forget_documents()
        ocr.clear_memory_cache()
        ocr.reset_ocr_stats()
        started = time.perf_counter()
        readings = read_page(document, number)
        seconds = time.perf_counter() - started
        engine_pixels = ocr.ocr_stats()["engine_pixels"]
        channels = {r.channel for r in readings.readings}
        # Pixels at the resolution each pass used, back to points squared.
        dpi = FIGURE_DPI if OCR_FIGURE in channels and OCR not in channels else DEFAULT_DPI
        ocr_area = engine_pixels * (72 / dpi) ** 2
        area = page.rect.width * page.rect.height
        rows.append(
            {
                "document": name,
                "page": number,
                "kind": page_kind(page, readings.has_text_layer),
                "seconds": seconds,
                "floor": floor_seconds(page, engine_pixels > 0),
                "ocr_area": ocr_area / area,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=SHARED)
    parser.add_argument("--limit", type=int, default=6, help="pages per document (0: all)")
    parser.add_argument("--spreads", type=int, default=4, help="pages of the brochure")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not ocr.ocr_available():
        print("Tesseract is not installed", file=sys.stderr)
        return 2
    ocr.configure_ocr_cache(None)
    rows: list[dict] = []
    with pymupdf.open(stream=photo_spread_pdf(args.spreads), filetype="pdf") as brochure:
        rows += measure(brochure, "generated brochure", None)
    if args.docs.is_dir():
        for path in sorted(args.docs.glob("*.pdf")):
            with pymupdf.open(path) as document:
                rows += measure(document, path.name, args.limit)
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_kind[row["kind"]].append(row)
    print(
        f"{'page kind':<14} {'pages':>5} {'s/page':>7} {'floor':>7} {'x floor':>8} {'OCR area':>9}"
    )
    for kind, group in sorted(by_kind.items()):
        seconds = statistics.median(r["seconds"] for r in group)
        floor = statistics.median(r["floor"] for r in group)
        ratio = statistics.median(r["seconds"] / r["floor"] for r in group if r["floor"] > 0)
        area = statistics.median(r["ocr_area"] for r in group)
        print(
            f"{kind:<14} {len(group):>5} {seconds:>7.2f} {floor:>7.2f} {ratio:>8.2f} {area:>9.2f}"
        )
    worst = max(rows, key=lambda r: r["ocr_area"])
    print(
        f"most OCR'd: {worst['document']} p{worst['page']} ({worst['kind']}):"
        f" {worst['ocr_area']:.2f} x its area; targets: 1.5 x floor, 1.2 x area"
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
