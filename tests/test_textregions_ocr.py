"""The shared word-box service: OCR (both backends), its cache, and PDF page words.

Real Tesseract throughout; a test skips only when the engine it needs is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image, ImageDraw, ImageFont

from abstain_build.textregions import ocr, pages
from abstain_build.textregions.words import Word

from .conftest import FIXTURES, ROOT, SHARED_DATA, png_bytes

FONT_PATH = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
PHRASE = "Quarterly Revenue 2019"

needs_ocr = pytest.mark.skipif(not ocr.ocr_available(), reason="no Tesseract installed")


@pytest.fixture(autouse=True)
def fresh_ocr_state() -> Iterator[None]:
    """Every test starts with no disk cache, an empty memory cache and zeroed counters."""
    ocr.configure_ocr_cache(None)
    ocr.clear_memory_cache()
    ocr.reset_ocr_stats()
    yield
    ocr.configure_ocr_cache(None)
    ocr.clear_memory_cache()
    ocr.reset_ocr_backend()


def font(size: int) -> ImageFont.FreeTypeFont:
    if not FONT_PATH.is_file():
        pytest.skip(f"{FONT_PATH} is missing (apt-get install fonts-dejavu-core)")
    return ImageFont.truetype(str(FONT_PATH), size)


def draw_words(
    words: str = PHRASE,
    size: tuple[int, int] = (800, 200),
    origin: tuple[int, int] = (40, 60),
    font_size: int = 40,
) -> tuple[np.ndarray, dict[str, tuple[float, float, float, float]]]:
    """Black text on white (gray), and each word's drawn box from ImageDraw.textbbox."""
    typeface = font(font_size)
    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    draw.text(origin, words, font=typeface, fill=0)
    boxes: dict[str, tuple[float, float, float, float]] = {}
    prefix = ""
    for word in words.split():
        x = origin[0] + draw.textlength(prefix, font=typeface)
        boxes[word] = draw.textbbox((x, origin[1]), word, font=typeface)
        prefix += word + " "
    return np.asarray(image), boxes


def iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 0.0


def by_text(words: list[Word]) -> dict[str, Word]:
    return {w.text: w for w in words}


def signature(words: list[Word]) -> list[tuple]:
    return [(w.text, w.bbox, w.block, w.line) for w in words]


# ---------------------------------------------------------------------------------------
# OCR of images


@needs_ocr
def test_ocr_reads_drawn_words_where_they_were_drawn() -> None:
    image, boxes = draw_words()
    words = ocr.ocr_image(image)
    found = by_text(words)
    assert list(found) == PHRASE.split()
    for text, drawn in boxes.items():
        word = found[text]
        assert iou(word.bbox, drawn) > 0.6, (text, word.bbox, drawn)
        assert word.source == "ocr"
        assert word.conf > 80
    # one text line, one block
    assert {w.line for w in words} == {1}
    assert {w.block for w in words} == {1}


@needs_ocr
def test_min_conf_drops_words_below_it() -> None:
    image, _ = draw_words()
    assert ocr.ocr_image(image, min_conf=101) == []
    assert len(ocr.ocr_image(image, min_conf=50)) == 3


@pytest.mark.skipif(
    not (ocr.ocr_available("tesserocr") and ocr.ocr_available("cli")),
    reason="needs both tesserocr and the tesseract command",
)
def test_both_backends_read_the_same_words(monkeypatch: pytest.MonkeyPatch) -> None:
    image, _ = draw_words("Net income fell 12% in Q3 2021", size=(900, 300))
    in_process = ocr.ocr_image(image, backend="tesserocr")
    command_line = ocr.ocr_image(image, backend="cli")
    assert ocr.ocr_stats()["engine_calls"] == 2  # the engine is part of the cache key
    assert signature(in_process) == signature(command_line)
    assert [w.text for w in command_line] == ["Net", "income", "fell", "12%", "in", "Q3", "2021"]
    assert ocr.engine_name("tesserocr").startswith("tesserocr ")
    assert ocr.engine_name("cli").startswith("tesseract CLI ")
    # the environment variable forces the backend too
    monkeypatch.setenv(ocr.BACKEND_ENV, "cli")
    assert ocr.engine_name() == ocr.engine_name("cli")
    assert signature(ocr.ocr_image(image)) == signature(command_line)
    monkeypatch.setenv(ocr.BACKEND_ENV, "tesserocr")
    assert ocr.engine_name() == ocr.engine_name("tesserocr")


def test_unknown_backend_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ocr.BACKEND_ENV, "easyocr")
    with pytest.raises(ValueError, match="easyocr"):
        ocr.ocr_available()


def test_missing_engine_raises_with_install_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract command here
    ocr.reset_ocr_backend()
    assert not ocr.ocr_available("cli")
    with pytest.raises(ocr.OcrUnavailable, match="apt-get install tesseract-ocr") as caught:
        ocr.ocr_image(np.full((40, 40), 255, np.uint8), backend="cli")
    assert isinstance(caught.value, RuntimeError)
    # a page without a text layer then has no words, and says why
    document = pymupdf.open()
    page = document.new_page(width=200, height=200)
    monkeypatch.setenv(ocr.BACKEND_ENV, "cli")
    result = pages.page_words(page)
    assert (result.source, result.words) == ("none", [])
    assert "tesseract-ocr" in result.reason


@needs_ocr
def test_alpha_gray_and_la_inputs() -> None:
    gray, boxes = draw_words()
    ink = 255 - gray  # text opacity
    black = np.zeros_like(gray)
    # black text on a fully transparent background: without compositing on white it is
    # all black (RGB ignoring alpha), and nothing can be read
    rgba = np.dstack([black, black, black, ink])
    la = np.dstack([black, ink])
    rgb = np.dstack([gray, gray, gray])
    for image in (gray, gray[:, :, None], la, rgb, rgba):
        words = ocr.ocr_image(image)
        assert [w.text for w in words] == PHRASE.split(), image.shape
        assert iou(words[0].bbox, boxes["Quarterly"]) > 0.6
    assert ocr.ocr_image(np.zeros((0, 10), np.uint8)) == []
    with pytest.raises(ValueError, match="uint8"):
        ocr.ocr_image(gray.astype(np.float32))


def test_alpha_is_composited_on_white() -> None:
    pixels = np.array([[[0, 0], [0, 255], [200, 128]]], dtype=np.uint8)  # LA
    assert ocr.prepare_pixels(pixels).tolist() == [[255, 0, 227]]
    rgba = np.array([[[10, 20, 30, 0], [10, 20, 30, 255]]], dtype=np.uint8)
    assert ocr.prepare_pixels(rgba).tolist() == [[[255, 255, 255], [10, 20, 30]]]


# ---------------------------------------------------------------------------------------
# Cache


@needs_ocr
def test_memory_cache_runs_the_engine_once() -> None:
    image, _ = draw_words()
    first = ocr.ocr_image(image)
    second = ocr.ocr_image(image.copy())  # same pixels, different array
    assert first == second
    assert ocr.ocr_stats()["engine_calls"] == 1
    assert ocr.ocr_stats()["memory_hits"] == 1
    ocr.ocr_image(image, psm=ocr.PSM_SPARSE_TEXT)  # another setting is another result
    assert ocr.ocr_stats()["engine_calls"] == 2


@needs_ocr
def test_disk_cache_is_shared_and_survives_a_fresh_memory(tmp_path: Path) -> None:
    cache = tmp_path / "ocr-cache"
    ocr.configure_ocr_cache(cache)
    image, _ = draw_words()
    first = ocr.ocr_image(image)
    files = list(cache.iterdir())
    assert len(files) == 1 and files[0].suffix == ".json"  # no temp files left behind
    assert json.loads(files[0].read_text())["words"][0][0] == "Quarterly"

    ocr.clear_memory_cache()  # as if a new worker process or a resumed run
    assert ocr.ocr_image(image) == first
    assert ocr.ocr_stats() | {"engine_seconds": 0} == {
        "engine_calls": 1,
        "memory_hits": 0,
        "disk_hits": 1,
        "engine_seconds": 0,
        "engine_pixels": image.shape[0] * image.shape[1],
    }

    other, _ = draw_words("Operating income")
    assert [w.text for w in ocr.ocr_image(other)] == ["Operating", "income"]
    assert ocr.ocr_stats()["engine_calls"] == 2
    assert len(list(cache.iterdir())) == 2

    # a torn file is recomputed and rewritten, not trusted
    files[0].write_text('{"words": [["Quarter', encoding="utf-8")
    ocr.clear_memory_cache()
    assert ocr.ocr_image(image) == first
    assert ocr.ocr_stats()["engine_calls"] == 3
    assert json.loads(files[0].read_text())["words"][0][0] == "Quarterly"


@needs_ocr
def test_a_spawned_process_uses_the_configured_disk_cache(tmp_path: Path) -> None:
    ocr.configure_ocr_cache(tmp_path)
    image, _ = draw_words()
    expected = [w.text for w in ocr.ocr_image(image)]
    np.save(tmp_path / "image.npy", image)
    script = (
        "import json, sys, numpy as np\n"
        "from abstain_build.textregions import ocr\n"
        "words = ocr.ocr_image(np.load(sys.argv[1]))\n"
        "print(json.dumps([[w.text for w in words], ocr.ocr_stats()]))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "image.npy")],
        capture_output=True,
        text=True,
        env=dict(os.environ),  # carries ABSTAIN_BUILD_OCR_CACHE, as a spawned worker would
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    texts, stats = json.loads(completed.stdout)
    assert texts == expected
    assert (stats["engine_calls"], stats["disk_hits"]) == (0, 1)


@needs_ocr
def test_two_processes_wanting_one_image_read_it_once(tmp_path: Path) -> None:
    """Two workers that reach the same page together: one reads it, the other waits for
    that reading instead of making its own."""
    ocr.configure_ocr_cache(tmp_path / "cache")
    image = np.tile(draw_words()[0], (8, 2))  # a page-sized image: a reading takes a while
    np.save(tmp_path / "image.npy", image)
    script = (
        "import json, sys, time, numpy as np\n"
        "from abstain_build.textregions import ocr\n"
        "image = np.load(sys.argv[1])\n"
        "ocr.engine_name()\n"  # the engine loaded before the common start
        "time.sleep(max(0.0, float(sys.argv[2]) - time.time()))\n"
        "words = ocr.ocr_image(image)\n"
        "print(json.dumps([len(words), ocr.ocr_stats()]))\n"
    )
    start = f"{time.time() + 4:.3f}"
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path / "image.npy"), start],
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    results = [json.loads(run.communicate(timeout=120)[0]) for run in runs]
    assert results[0][0] == results[1][0] > 0
    assert sorted(stats["engine_calls"] for _, stats in results) == [0, 1]
    assert [p.suffix for p in (tmp_path / "cache").iterdir()] == [".json"]  # no lock left


# ---------------------------------------------------------------------------------------
# PDF pages


def test_text_layer_words_of_an_inserted_text() -> None:
    document = pymupdf.open()
    page = document.new_page(width=400, height=300)
    page.insert_text((50, 100), "Total assets increased", fontsize=14)
    page.insert_text((50, 200), "Second line here", fontsize=14)
    words = pages.text_layer_words(page)
    assert [w.text for w in words] == ["Total", "assets", "increased", "Second", "line", "here"]
    for word in words:
        assert word.source == "text_layer" and word.conf == 100
        x0, y0, x1, y1 = word.bbox
        assert 0 <= x0 < x1 <= 400 and 0 <= y0 < y1 <= 300
    assert words[0].bbox[0] == pytest.approx(50, abs=1)
    assert words[0].bbox[1] < 100 < words[0].bbox[3]  # baseline at y=100 inside the box
    assert words[0].line == words[2].line != words[3].line  # lines numbered over the page
    assert pages.has_usable_text_layer(page)
    result = pages.page_words(page)
    assert result.source == "text_layer" and result.words == words


def test_a_tiny_text_layer_is_not_usable() -> None:
    document = pymupdf.open()
    page = document.new_page(width=400, height=300)
    page.insert_text((350, 290), "6 - .", fontsize=9)
    assert not pages.has_usable_text_layer(page)


@needs_ocr
def test_image_only_page_falls_back_to_ocr_in_points() -> None:
    image, boxes = draw_words("Image only evidence", size=(600, 150), origin=(20, 50))
    target = pymupdf.Rect(100, 300, 400, 375)  # 600 x 150 px into 300 x 75 pt
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    page.insert_image(target, stream=png_bytes(image))
    assert pages.text_layer_words(page) == []
    assert not pages.has_usable_text_layer(page)

    result = pages.page_words(page, dpi=144)
    assert result.source == "ocr"
    assert result.dpi == pytest.approx(144)
    assert result.engine == ocr.engine_name()
    assert [w.text for w in result.words] == ["Image", "only", "evidence"]
    for word in result.words:
        x0, y0, x1, y1 = boxes[word.text]
        expected = (100 + x0 / 2, 300 + y0 / 2, 100 + x1 / 2, 300 + y1 / 2)
        assert iou(word.bbox, expected) > 0.6, (word, expected)
        assert target.contains(pymupdf.Rect(word.bbox))

    # a render the caller already has (another resolution) gives the same places
    render = pages.render_page(page, dpi=100)
    again = pages.page_words(page, render=render)
    assert [w.text for w in again.words] == ["Image", "only", "evidence"]
    for a, b in zip(again.words, result.words, strict=True):
        assert iou(a.bbox, b.bbox) > 0.6
    with pytest.raises(ValueError, match="shape"):
        pages.page_words(page, render=render[:, : render.shape[1] // 2])


@needs_ocr
def test_rotated_page_ocr_boxes_match_the_text_layer() -> None:
    document = pymupdf.open()
    page = document.new_page(width=600, height=800)
    page.insert_text((100, 150), "Quarterly Revenue grew", fontsize=24)
    page.set_rotation(90)  # rendered sideways; text-layer boxes stay in unrotated space
    layer = by_text(pages.text_layer_words(page))
    render = pages.render_page(page, dpi=144)
    assert render.shape[:2] == (1200, 1600)  # landscape: the page as displayed
    words = pages.pixel_words_to_points(ocr.ocr_image(render), page, render.shape)
    found = by_text(words)
    for text in ("Quarterly", "Revenue", "grew"):
        assert iou(found[text].bbox, layer[text].bbox) > 0.5, (found[text], layer[text])


ACME = FIXTURES / "mmlongbench-doc" / "documents" / "ACME_2021_10K.pdf"


@needs_ocr
def test_fixture_report_scanned_page_uses_ocr_and_first_page_the_text_layer() -> None:
    with pymupdf.open(ACME) as document:
        first = pages.page_words(document[0])
        scanned = pages.page_words(document[5])
        size = document[5].rect
    assert first.source == "text_layer"
    assert "CORPORATION" in first.text
    assert scanned.source == "ocr"
    assert len(scanned.words) > 20
    assert "Quarterly Results of Operations" in scanned.text
    for word in scanned.words:
        assert 0 <= word.bbox[0] < word.bbox[2] <= size.width
        assert 0 <= word.bbox[1] < word.bbox[3] <= size.height


@needs_ocr
def test_fixture_chart_has_its_vertical_axis_label() -> None:
    image = np.asarray(Image.open(FIXTURES / "mmmu" / "images" / "fixture_chart_bar_1.png"))
    words = ocr.ocr_image(image)
    texts = [w.text for w in words]
    assert "Quarter" in texts and "Region" in texts
    # "Revenue" is in the title too; the y-axis one is rotated: tall, at the left edge
    axis = [w for w in words if w.text == "Revenue" and w.height > 2 * w.width]
    assert axis, [(w.text, w.bbox) for w in words]
    assert axis[0].bbox[2] < image.shape[1] * 0.1


@needs_ocr
@pytest.mark.shared_data
def test_shared_image_only_deck_page_is_read_by_ocr() -> None:
    documents = SHARED_DATA / "mmlongbench-doc" / "documents"
    deck = documents / "reportq32015-151009093138-lva1-app6891_95.pdf"
    if not deck.is_file():
        pytest.skip(f"{deck} is absent (real MMLongBench-Doc copy in ../shared/data)")
    with pymupdf.open(deck) as document:
        page = document[2]
        assert not pages.has_usable_text_layer(page)
        result = pages.page_words(page)
        width, height = page.rect.width, page.rect.height
    assert result.source == "ocr"
    assert len(result.words) >= 20
    assert "METHODOLOGY" in result.text
    for word in result.words:
        assert 0 <= word.bbox[0] < word.bbox[2] <= width
        assert 0 <= word.bbox[1] < word.bbox[3] <= height


LEPTONICA_NOISE = """
import ctypes, glob, sys
from pathlib import Path
import tesserocr
from abstain_build.textregions import ocr

folder = Path(tesserocr.__file__).resolve().parent
library = ctypes.CDLL(glob.glob(str(folder.parent / "tesserocr.libs" / "libleptonica*.so*"))[0])
library.boxCreate.restype = ctypes.c_void_p
library.boxClipToRectangle.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
box = library.boxCreate(500, 500, 10, 10)
if sys.argv[1] == "engine":
    import numpy
    ocr.ocr_image(numpy.full((40, 120), 255, "uint8"), backend="tesserocr")
library.boxClipToRectangle(box, 100, 100)  # a box outside the image: Leptonica complains
"""


@pytest.mark.skipif(
    not ocr.ocr_available("tesserocr"), reason="needs tesserocr with its bundled Leptonica"
)
def test_leptonica_prints_nothing_once_the_in_process_engine_is_up() -> None:
    def stderr(mode: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", LEPTONICA_NOISE, mode], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stderr

    assert "Error in boxClipToRectangle" in stderr("bare")  # the noise is real
    assert "Error in" not in stderr("engine")
