"""The binary morphology page and pixel analyses share (:mod:`abstain_build.content.raster`)."""

from __future__ import annotations

import numpy as np
import pytest

from abstain_build.content.raster import dilate, erode


def _by_definition(mask: np.ndarray, grow: bool) -> np.ndarray:
    """Each pixel set when any (dilation) or every (erosion) pixel of its 3 x 3
    neighbourhood is, pixels beyond the border unset (dilation) or set (erosion)."""
    padded = np.pad(mask, 1, constant_values=not grow)
    height, width = mask.shape
    windows = [padded[dy : dy + height, dx : dx + width] for dy in range(3) for dx in range(3)]
    return np.logical_or.reduce(windows) if grow else np.logical_and.reduce(windows)


@pytest.mark.parametrize("seed", range(20))
def test_dilation_and_erosion_are_the_3x3_neighbourhood(seed: int) -> None:
    rng = np.random.default_rng(seed)
    height, width = rng.integers(1, 30, size=2)
    mask = rng.random((height, width)) < rng.uniform(0.02, 0.6)
    steps = int(rng.integers(1, 4))
    grown, shrunk = mask, mask
    for _ in range(steps):
        grown, shrunk = _by_definition(grown, True), _by_definition(shrunk, False)
    assert np.array_equal(dilate(mask, steps), grown)
    assert np.array_equal(erode(mask, steps), shrunk)
