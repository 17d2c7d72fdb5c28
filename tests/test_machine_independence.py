"""The same seed gives the same bytes on every machine, not only on one.

NumPy's matrix products go through OpenBLAS, which picks its kernel by the CPU; the
kernels round differently, so a brightness computed as ``rgb @ weights`` differed in its
last bit between an Intel machine with AVX-512 and an AMD one, pixels on a threshold
flipped, and ``dense_mask`` drew other masks from the same seed.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from abstain_build.media.images import LUMA_WEIGHTS, luma

from .conftest import FIXTURES

ACME = FIXTURES / "mmlongbench-doc" / "documents" / "ACME_2021_10K.pdf"


def test_brightness_is_the_element_wise_ieee_sum() -> None:
    """Each pixel's brightness is r*0.299 + g*0.587 + b*0.114 in double precision, in
    that order: what Python's own float arithmetic gives, on any machine."""
    rng = np.random.default_rng(7)
    pixels = rng.integers(0, 256, size=(64, 64, 4), dtype=np.uint8)
    red, green, blue = LUMA_WEIGHTS
    expected = [
        [float(p[0]) * red + float(p[1]) * green + float(p[2]) * blue for p in row]
        for row in pixels.tolist()
    ]
    got = luma(pixels)
    assert got.dtype == np.float64
    assert got.tolist() == expected


_DENSITY = """
import hashlib, sys
import pymupdf
from abstain_build.content.page_content import analyse_page
document = pymupdf.open(sys.argv[1])
digest = hashlib.sha256()
for page in document:
    digest.update(analyse_page(page).density.tobytes())
print(digest.hexdigest())
"""


def _has_avx512() -> bool:
    try:
        return "avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


@pytest.mark.skipif(
    platform.machine() != "x86_64" or not _has_avx512(),
    reason="needs an x86-64 CPU with AVX-512, where OpenBLAS can run both kernels compared",
)
def test_page_analysis_is_the_same_under_every_blas_kernel() -> None:
    """The density map the evidence edits aim at, computed under OpenBLAS's AVX-512
    (SkylakeX) and AVX2 (Haswell) kernels, is the same to the last bit."""
    digests = set()
    for kernel in ("SkylakeX", "Haswell"):
        env = {**os.environ, "OPENBLAS_CORETYPE": kernel, "OMP_THREAD_LIMIT": "1"}
        done = subprocess.run(
            [sys.executable, "-c", _DENSITY, str(ACME)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
        digests.add(done.stdout.strip())
    assert len(digests) == 1, digests
