"""How fast are our pixel kernels, next to albumentations doing the same thing?

Measured in one run, on the same images (the fixture charts in fixtures/mmmu/images, plus
the real MMMU / AI2D images in ../shared/data/mmmu/images when present), each at its own
size and resized to 512, 1024 and 2048 px on the long side:

* kernels, ours vs albumentations (ratio ours / albumentations, target >= 1.0):
  - blur: ``gaussian_blur(image, 18)`` (PIL: three extended box passes, radius = standard
    deviation) vs ``GaussianBlur(sigma_limit=(18, 18), blur_limit=0)`` (a 127-tap
    separable Gaussian kernel, the size albumentations derives from sigma);
  - masking: ``fill_rects`` vs ``CoarseDropout`` (its ``apply``, i.e. its cutout) painting
    the same 20 holes of sqrt(0.15) of each side (15% of the area each), fill 0. The holes
    are drawn beforehand by CoarseDropout's own sampler (8 sets per image, used in turn by
    both sides) and not timed: both outputs are then the same pixels (but alpha), and
    encoding them costs the same, so the ratio with PNG is not decided by where random
    holes happened to fall;
  - darkness: ``darken(image, 15)`` vs ``MultiplicativeNoise(multiplier=1/15)`` and
    ``RandomBrightnessContrast(contrast 1/15, brightness 0)``: both multiply every value by
    1/15 (truncating, where we round to nearest); RandomGamma is not a multiplication.
  MultiplicativeNoise is the closest in meaning (a fixed multiplier), RandomBrightnessContrast
  the same maths through a SIMD table lookup (albucore + stringzilla).
  Both sides get the same arrays (grey, RGB, RGBA); albumentations also changes alpha,
  ours keeps it (more work: the masks and the darkening put alpha back).
* the same pairs with PNG encoding of the output (our ``encode_png`` for both sides);
* end to end, ours only: decode + transform + encode vs decode + encode (target <= 1.5 x);
* PNG encoder settings on the transformed outputs (MB/s of raw pixels, output size);
* PDF words: PyMuPDF text layer vs Tesseract OCR of the page rendered at 144 dpi.

OpenCV (under albumentations) is held to one thread by default: the build runs one
single-threaded kernel per worker process, so per-core speed is what counts; pass
``--cv2-threads 0`` to let OpenCV use every core.

    python bench/image_transforms.py [--sizes 512 1024 2048] [--budget 0.4] [--ocr-pages 10]

Needs the bench extra: pip install -c constraints.txt -e ".[dev,bench]"
"""

from __future__ import annotations

import argparse
import io
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.media.images import (  # noqa: E402
    PNG_COMPRESS_LEVEL,
    decode_image,
    encode_png,
)
from abstain_build.transforms.functional.pixels import (  # noqa: E402
    darken,
    fill_rects,
    gaussian_blur,
)

try:
    import albumentations as A
    import cv2
except ImportError:
    raise SystemExit(
        'albumentations is missing: .venv/bin/pip install -c constraints.txt -e ".[dev,bench]"'
    ) from None

FIXTURE_IMAGES = ROOT / "fixtures" / "mmmu" / "images"
SHARED_IMAGES = ROOT.parent / "shared" / "data" / "mmmu" / "images"
SHARED_PDFS = ROOT.parent / "shared" / "data" / "mmlongbench-doc" / "documents"

HOLE_SETS = 8

RADIUS = 18.0
DIVISOR = 15.0
N_RECTS = 20
RECT_AREA = 0.15
SIDE_SHARE = RECT_AREA**0.5  # a rectangle with the image's aspect ratio and 15% of its area

Kernel = Callable[[np.ndarray], np.ndarray]


# ---------------------------------------------------------------- images


def load_images() -> list[tuple[str, np.ndarray]]:
    paths = sorted(FIXTURE_IMAGES.glob("*.png"))
    if SHARED_IMAGES.is_dir():
        paths += sorted(SHARED_IMAGES.glob("*.png"))
    else:
        print(f"note: {SHARED_IMAGES} not found: fixture images only")
    return [(path.name, decode_image(path.read_bytes(), path.name)) for path in paths]


def resized(image: np.ndarray, side: int) -> np.ndarray:
    height, width = image.shape[:2]
    scale = side / max(height, width)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return np.asarray(Image.fromarray(image).resize(size, Image.Resampling.LANCZOS)).copy()


def size_sets(originals: list[np.ndarray], sides: list[int]) -> dict[str, list[np.ndarray]]:
    sets = {"own": originals}
    for side in sides:
        sets[str(side)] = [resized(image, side) for image in originals]
    return sets


# ---------------------------------------------------------------- the pairs


def our_mask(rng: np.random.Generator) -> Kernel:
    """Our mask with its own random places (end to end and PNG sections)."""

    def run(image: np.ndarray) -> np.ndarray:
        height, width = image.shape[:2]
        rect_w, rect_h = max(1, int(width * SIDE_SHARE)), max(1, int(height * SIDE_SHARE))
        x0 = rng.integers(0, width - rect_w + 1, N_RECTS)
        y0 = rng.integers(0, height - rect_h + 1, N_RECTS)
        corners = zip(x0.tolist(), y0.tolist(), strict=True)
        rects = [(x, y, x + rect_w, y + rect_h) for x, y in corners]
        return fill_rects(image, rects)

    return run


def coarse_dropout() -> A.CoarseDropout:
    return A.CoarseDropout(
        num_holes_range=(N_RECTS, N_RECTS),
        hole_height_range=(SIDE_SHARE, SIDE_SHARE),
        hole_width_range=(SIDE_SHARE, SIDE_SHARE),
        fill=0,
        p=1,
    )


class SharedHoles:
    """Holes drawn by CoarseDropout's sampler, HOLE_SETS per image, handed out in turn:
    two painters each holding a ``SharedHoles`` see the same holes on their n-th call."""

    def __init__(self, bank: dict[int, list[np.ndarray]]) -> None:
        self.bank = bank
        self.calls: dict[int, int] = {}

    @classmethod
    def draw(cls, images: list[np.ndarray], transform: A.CoarseDropout) -> dict[int, list]:
        transform.set_random_seed(0)
        bank = {}
        for image in images:
            data = {"image": image}
            bank[id(image)] = [
                transform.get_params_dependent_on_data({"shape": image.shape}, data)["holes"]
                for _ in range(HOLE_SETS)
            ]
        return bank

    def next(self, image: np.ndarray) -> np.ndarray:
        count = self.calls.get(id(image), 0)
        self.calls[id(image)] = count + 1
        sets = self.bank[id(image)]
        return sets[count % len(sets)]


def mask_pair(images: list[np.ndarray]) -> tuple[Kernel, Kernel]:
    """(ours, CoarseDropout's) painters of the same pre-drawn holes."""
    transform = coarse_dropout()
    bank = SharedHoles.draw(images, transform)
    as_tuples = {
        key: [[tuple(h) for h in holes.tolist()] for holes in sets] for key, sets in bank.items()
    }
    ours_holes, their_holes = SharedHoles(as_tuples), SharedHoles(bank)

    def ours(image: np.ndarray) -> np.ndarray:
        return fill_rects(image, ours_holes.next(image))

    def theirs(image: np.ndarray) -> np.ndarray:
        return transform.apply(image, holes=their_holes.next(image), seed=0)

    return ours, theirs


def albumentations_kernel(transform: A.BasicTransform) -> Kernel:
    """The bare transform (a Compose around it adds ~6 us a call)."""
    transform.set_random_seed(0)

    def run(image: np.ndarray) -> np.ndarray:
        return transform(image=image)["image"]

    return run


#: Makes (ours, albumentations') kernels for one set of images: the mask pair draws its
#: holes per image; the other pairs are the same kernels whatever the images.
PairMaker = Callable[[list[np.ndarray]], tuple[Kernel, Kernel]]


def fixed(ours: Kernel, theirs: Kernel) -> PairMaker:
    return lambda images: (ours, theirs)


def pairs() -> list[tuple[str, str, PairMaker]]:
    """(operation, albumentations transform, maker of the two kernels)."""
    return [
        (
            "blur r=18",
            "GaussianBlur",
            fixed(
                lambda image: gaussian_blur(image, RADIUS),
                albumentations_kernel(
                    A.GaussianBlur(sigma_limit=(RADIUS, RADIUS), blur_limit=0, p=1)
                ),
            ),
        ),
        ("mask 20x15%", "CoarseDropout", mask_pair),
        (
            "darken /15",
            "MultiplicativeNoise",
            fixed(
                lambda image: darken(image, DIVISOR),
                albumentations_kernel(
                    A.MultiplicativeNoise(multiplier=(1 / DIVISOR, 1 / DIVISOR), p=1)
                ),
            ),
        ),
        (
            "darken /15",
            "RandomBrightnessContrast",
            fixed(
                lambda image: darken(image, DIVISOR),
                albumentations_kernel(
                    A.RandomBrightnessContrast(
                        brightness_limit=(0, 0),
                        contrast_limit=(1 / DIVISOR - 1, 1 / DIVISOR - 1),
                        p=1,
                    )
                ),
            ),
        ),
    ]


def with_png(kernel: Kernel) -> Callable[[np.ndarray], bytes]:
    return lambda image: encode_png(kernel(image))


# ---------------------------------------------------------------- timing


#: Passes per measurement at least: with PNG encoding a pass over the 2048 px set takes
#: seconds, and the fastest of one pass each is a coin toss between two equal sides.
MIN_ROUNDS = 3


def per_second(function: Callable, items: list, budget: float) -> float:
    """Items per second: warm up on one item, then whole passes until ``budget`` seconds
    are spent (at least MIN_ROUNDS, at most 20), keeping the fastest pass."""
    return compare([function], items, budget)[0]


def compare(functions: list[Callable], items: list, budget: float) -> list[float]:
    """:func:`per_second` of several functions, their passes taking turns (so a slow spell
    of the machine does not fall on one side only)."""
    for function in functions:
        function(items[0])
    best = [float("inf")] * len(functions)
    spent, rounds = 0.0, 0
    while rounds < MIN_ROUNDS or (spent < budget and rounds < 20):
        for index, function in enumerate(functions):
            started = time.perf_counter()
            for item in items:
                function(item)
            elapsed = time.perf_counter() - started
            best[index] = min(best[index], elapsed)
            spent += elapsed
        rounds += 1
    return [len(items) / seconds for seconds in best]


def kernel_table(sets: dict[str, list[np.ndarray]], budget: float) -> None:
    print()
    print("Kernels, ours vs albumentations (images/s; ratio = ours / albumentations, target >= 1)")
    header = (
        f"{'operation':<12} {'albumentations':<25} {'size':>5} {'encode':>6}"
        f" {'ours img/s':>11} {'alb img/s':>10} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    lowest: dict[tuple[str, bool], float] = {}
    for operation, name, make in pairs():
        for encode in (False, True):
            for size, images in sets.items():
                ours, theirs = make(images)
                mine = ours if not encode else with_png(ours)
                other = theirs if not encode else with_png(theirs)
                ours_rate, their_rate = compare([mine, other], images, budget)
                ratio = ours_rate / their_rate
                key = (f"{operation} vs {name}", encode)
                lowest[key] = min(lowest.get(key, float("inf")), ratio)
                print(
                    f"{operation:<12} {name:<25} {size:>5} {'png' if encode else '-':>6}"
                    f" {ours_rate:11.1f} {their_rate:10.1f} {ratio:6.2f}"
                    + ("  < 1" if ratio < 1.0 else "")
                )
    print("lowest ratio over the sizes:")
    for label in dict.fromkeys(label for label, _ in lowest):
        print(
            f"  {label:<40} kernel {lowest[label, False]:5.2f}"
            f"   kernel + png {lowest[label, True]:5.2f}"
        )


def end_to_end_table(sets: dict[str, list[np.ndarray]], budget: float) -> None:
    print()
    print(
        "End to end, ours: decode + transform + encode_png vs decode + encode_png (target <= 1.5)"
    )
    header = f"{'operation':<12} {'size':>5} {'with op img/s':>14} {'without img/s':>14} {'x':>5}"
    print(header)
    print("-" * len(header))
    operations: list[tuple[str, Kernel]] = [
        ("blur r=18", lambda image: gaussian_blur(image, RADIUS)),
        ("mask 20x15%", our_mask(np.random.default_rng(0))),
        ("darken /15", lambda image: darken(image, DIVISOR)),
    ]

    def pipeline(kernel: Kernel | None) -> Callable[[bytes], bytes]:
        def run(data: bytes) -> bytes:
            image = decode_image(data, "bench")
            return encode_png(image if kernel is None else kernel(image))

        return run

    functions = [pipeline(None)] + [pipeline(kernel) for _, kernel in operations]
    rates = {}
    for size, images in sets.items():
        encoded = [encode_png(image) for image in images]
        rates[size] = compare(functions, encoded, budget)  # taking turns with the baseline
    worst = 0.0
    for index, (operation, _) in enumerate(operations, start=1):
        for size, (baseline, *with_op) in rates.items():
            rate = with_op[index - 1]
            slower = baseline / rate
            worst = max(worst, slower)
            print(
                f"{operation:<12} {size:>5} {rate:14.1f} {baseline:14.1f} {slower:5.2f}"
                + ("  > 1.5" if slower > 1.5 else "")
            )
    print(f"largest cost of a transform over decode + encode: {worst:.2f} x")


# ---------------------------------------------------------------- PNG settings


def png_bytes(image: np.ndarray, **options: object) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image)).save(buffer, format="PNG", **options)
    return buffer.getvalue()


def png_table(images: list[np.ndarray], budget: float) -> None:
    """Each setting encodes the same outputs; MB/s counts raw pixel bytes in."""
    raw = sum(image.nbytes for image in images)
    settings: list[tuple[str, dict[str, object]]] = [
        (f"compress_level={level}", {"compress_level": level}) for level in range(10)
    ]
    settings += [
        ("level=1 Z_RLE", {"compress_level": 1, "compress_type": Image.RLE}),
        ("level=6 Z_RLE", {"compress_level": 6, "compress_type": Image.RLE}),
        ("level=6 Z_FILTERED", {"compress_level": 6, "compress_type": Image.FILTERED}),
        ("optimize=True", {"optimize": True}),
    ]
    print()
    print(
        f"PNG encoding of {len(images)} transformed outputs ({raw / 1e6:.1f} MB of pixels),"
        f" PIL, one setting at a time (encode_png uses compress_level={PNG_COMPRESS_LEVEL};"
        " ratios are against PIL's default, 6)"
    )
    header = (
        f"{'setting':<20} {'MB/s':>7} {'out MB':>7} {'% of raw':>8}"
        f" {'speed vs 6':>10} {'size vs 6':>9}"
    )
    print(header)
    print("-" * len(header))
    rows = []
    for label, options in settings:
        sizes: dict[int, int] = {}

        def encode(index: int, options: dict[str, object] = options, sizes=sizes) -> None:
            sizes[index] = len(png_bytes(images[index], **options))

        rate = per_second(encode, list(range(len(images))), budget)
        rows.append((label, rate * raw / len(images) / 1e6, sum(sizes.values())))
    reference = next(row for row in rows if row[0] == "compress_level=6")
    for label, mbps, size in rows:
        print(
            f"{label:<20} {mbps:7.1f} {size / 1e6:7.2f} {100 * size / raw:8.2f}"
            f" {mbps / reference[1]:10.2f} {size / reference[2]:9.3f}"
        )
    within = [row for row in rows if row[2] <= 1.10 * reference[2]]
    fastest = max(within, key=lambda row: row[1])
    print(
        f"fastest setting with output at most 10% larger than level 6: {fastest[0]}"
        f" ({fastest[1] / reference[1]:.2f} x the speed,"
        f" {fastest[2] / reference[2]:.3f} x the size)"
    )


def transformed_outputs(images: list[np.ndarray]) -> list[np.ndarray]:
    mask = our_mask(np.random.default_rng(1))
    outputs = []
    for image in images:
        outputs += [gaussian_blur(image, RADIUS), mask(image), darken(image, DIVISOR)]
    return outputs


# ---------------------------------------------------------------- PDF text layer vs OCR


def text_vs_ocr(ocr_pages: int) -> None:
    print()
    if not SHARED_PDFS.is_dir():
        print(f"note: {SHARED_PDFS} not found: text layer vs OCR skipped")
        return
    import pymupdf

    try:
        from abstain_build.textregions.ocr import engine_name, ocr_available, ocr_image
    except ImportError as exc:
        print(f"note: abstain_build.textregions.ocr is not importable ({exc}): OCR skipped")
        return
    documents = [pymupdf.open(path) for path in sorted(SHARED_PDFS.glob("*.pdf"))]
    pages = [(doc, number) for doc in documents for number in range(doc.page_count)]

    def text_layer(item: tuple[pymupdf.Document, int]) -> int:
        doc, number = item
        return len(doc.load_page(number).get_text("words"))

    def render(item: tuple[pymupdf.Document, int]) -> np.ndarray:
        doc, number = item
        pixmap = doc.load_page(number).get_pixmap(dpi=144, alpha=False)
        return np.frombuffer(pixmap.samples, np.uint8).reshape(pixmap.h, pixmap.w, pixmap.n)

    text_rate = per_second(text_layer, pages, 1.0)
    text_words = sum(text_layer(item) for item in pages)
    step = max(1, len(pages) // ocr_pages)
    sample = pages[::step][:ocr_pages]
    render_rate = per_second(render, sample, 0.5)
    print(
        f"PDF words: {len(documents)} shared PDFs, {len(pages)} pages for the text layer,"
        f" {len(sample)} (every {step}th) for OCR at 144 dpi"
    )
    header = f"{'method':<38} {'pages':>5} {'words':>7} {'pages/s':>8} {'x text':>7}"
    print(header)
    print("-" * len(header))
    print(
        f"{'PyMuPDF get_text(words)':<38} {len(pages):5d} {text_words:7d} {text_rate:8.1f} {1:7.1f}"
    )
    print(
        f"{'render 144 dpi only':<38} {len(sample):5d} {'':>7} {render_rate:8.2f}"
        f" {text_rate / render_rate:7.1f}"
    )
    if not ocr_available():
        print("note: no OCR engine available: OCR skipped")
        return
    rendered = [render(item) for item in sample]
    ocr_image(rendered[0], use_cache=False)  # warm-up: loads the model
    started = time.perf_counter()
    ocr_words = sum(len(ocr_image(image, use_cache=False)) for image in rendered)
    ocr_seconds = time.perf_counter() - started
    ocr_rate = len(sample) / ocr_seconds
    both = 1 / (1 / ocr_rate + 1 / render_rate)
    sample_words = sum(text_layer(item) for item in sample)
    print(
        f"{'OCR ' + engine_name():<38} {len(sample):5d} {ocr_words:7d} {ocr_rate:8.2f}"
        f" {text_rate / ocr_rate:7.1f}"
    )
    print(f"{'render + OCR':<38} {len(sample):5d} {'':>7} {both:8.2f} {text_rate / both:7.1f}")
    print(
        f"text layer is {text_rate / both:.0f} x faster than render + OCR"
        f" (the text layer has {sample_words} words on the OCR sample, OCR found {ocr_words})"
    )


# ---------------------------------------------------------------- main


def section_time(since: float) -> float:
    now = time.perf_counter()
    print(f"({now - since:.0f} s)")
    return now


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="*", default=[512, 1024, 2048])
    parser.add_argument("--budget", type=float, default=0.4, help="seconds per measurement")
    parser.add_argument("--ocr-pages", type=int, default=10)
    parser.add_argument("--cv2-threads", type=int, default=1, help="0: OpenCV's default")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    if args.cv2_threads > 0:
        cv2.setNumThreads(args.cv2_threads)
    started = time.perf_counter()

    named = load_images()
    originals = [image for _, image in named]
    sets = size_sets(originals, args.sizes)
    print(
        f"{len(originals)} images ({len(list(FIXTURE_IMAGES.glob('*.png')))} fixtures),"
        f" sizes: own + long side {', '.join(map(str, args.sizes))} px;"
        f" albumentations {A.__version__}, OpenCV {cv2.__version__} on"
        f" {cv2.getNumThreads()} thread(s)"
    )
    lap = time.perf_counter()
    kernel_table(sets, args.budget)
    lap = section_time(lap)
    end_to_end_table(sets, args.budget)
    lap = section_time(lap)
    middle = sets[str(sorted(args.sizes)[len(args.sizes) // 2])] if args.sizes else originals
    png_table(transformed_outputs(middle[::4]), args.budget)
    lap = section_time(lap)
    text_vs_ocr(args.ocr_pages)
    section_time(lap)
    print(f"\nbench time: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
