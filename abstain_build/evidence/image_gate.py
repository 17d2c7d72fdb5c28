"""The re-read gate for images: read the perturbed image as a model would, and fail the
attempt when an answer-bearing word can still be read.

Run after an image transform and before QC. Each image that prints answer-bearing words
(:mod:`.image_targets`: the gold, the options, the labels the question names, the
operands) is read again by OCR as it ships, and after undoing what the transform did where
that can be undone: a contrast stretch for darkening or a gray veil (dividing by 15 keeps
17 gray levels, and stretching them back makes text legible), sharpening for blur. A word
read again at its place (a crop's kept part is compared where it was cut from) fails the
attempt; the next transform of the chain runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model import Sample
from ..textregions.detect import image_words
from .image_targets import Target, image_targets, read_again, summary
from .policy import REMOVE

AS_SHIPPED = "as shipped"


@dataclass(frozen=True)
class ReadAgain:
    """An answer-bearing word of image ``image`` (0-based) read again through ``channel``."""

    image: int
    channel: str
    target: Target

    def to_json(self) -> dict[str, Any]:
        return {"image": self.image + 1, "channel": self.channel, **self.target.to_json()}


@dataclass
class ImageGateResult:
    """What the gate read on an image item and what it found (the document gate's shape)."""

    policy: str = REMOVE
    passed: bool = True
    found: list[ReadAgain] = field(default_factory=list)
    images_read: int = 0
    channels: list[str] = field(default_factory=list)

    def reason(self) -> str:
        if self.passed:
            if not self.images_read:
                return "no image prints an answer-bearing word: nothing to read again"
            return "no answer-bearing word of any image is read again"
        by_image: dict[int, list[ReadAgain]] = {}
        for hit in self.found:
            by_image.setdefault(hit.image, []).append(hit)
        return "; ".join(
            f"image {image + 1} ({', '.join(sorted({h.channel for h in hits}))}):"
            f" {summary([h.target for h in hits])}"
            for image, hits in by_image.items()
        )

    def to_json(self) -> dict[str, Any]:
        """The record's ``evidence.reread`` (the document gate's keys; pages left empty)."""
        return {
            "policy": self.policy,
            "passed": self.passed,
            "pages_read": 0,
            "pages_reread": [],
            "channels": list(self.channels),
            "found": [],
            "untouched": [],
            "derived": [],
            "images_read": self.images_read,
            "read_again": [hit.to_json() for hit in self.found],
            "detail": self.reason(),
        }


def _regions_of(record: Mapping[str, Any], index: int) -> list[Mapping[str, Any]]:
    regions = (record.get("edits") or {}).get("regions") or []
    return [r for r in regions if r.get("image") is None or int(r["image"]) == index]


def _offset(
    original: np.ndarray, perturbed: np.ndarray, regions: Sequence[Mapping[str, Any]]
) -> tuple[float, float]:
    """Where the perturbed image starts on the original (a crop keeps one part)."""
    from ..content.restorations import crop_offset

    if original.shape[:2] == perturbed.shape[:2]:
        return (0.0, 0.0)
    for region in regions:
        if region.get("kind") == "crop_removed":
            x0, y0, x1, y1 = (float(v) for v in region["bbox"])
            dx, dy = crop_offset(original.shape, (x0, y0, x1, y1), region.get("role"))
            return (float(dx), float(dy))
    return (0.0, 0.0)


def candidates(perturbed: np.ndarray, kinds: set[str]) -> dict[str, np.ndarray]:
    """The perturbed image as shipped and each attempt to undo the perturbation."""
    from ..content.restorations import gray, restorations

    restored = restorations(gray(perturbed), kinds)
    return {AS_SHIPPED: perturbed, **{f"after {name}": image for name, image in restored.items()}}


def image_reread_gate(
    sample: Sample,
    originals: Sequence[np.ndarray],
    perturbed: Sequence[np.ndarray],
    record: Mapping[str, Any],
) -> ImageGateResult:
    """Read every perturbed image again (see the module doc)."""
    result = ImageGateResult()
    channels: set[str] = set()
    for index, (original, shipped) in enumerate(zip(originals, perturbed, strict=True)):
        targets = image_targets(original, sample)
        if not targets:
            continue
        result.images_read += 1
        regions = _regions_of(record, index)
        kinds = {str(r.get("kind")) for r in regions}
        offset = _offset(original, shipped, regions)
        left = list(targets)
        for channel, pixels in candidates(shipped, kinds).items():
            channels.add(channel)
            again = read_again(left, image_words(pixels), offset)
            result.found += [ReadAgain(index, channel, t) for t in again]
            left = [t for t in left if t not in again]
            if not left:
                break
    result.channels = sorted(channels)
    result.passed = not result.found
    return result
