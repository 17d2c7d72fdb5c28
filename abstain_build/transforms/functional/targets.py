"""The answer-bearing words of an image, as the image transforms plan with them.

One call per image: the words (:mod:`abstain_build.evidence.image_targets`), the regions
that record them in ``edits`` (kind ``answer_bearing``, never edited themselves), and a
note saying what was found or why nothing could be looked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...evidence.image_targets import Target, covered, image_targets, summary
from ...model import Region
from ...textregions.ocr import OcrError
from ..base import NotApplicable, TransformContext

#: Region kind of an answer-bearing word: recorded, not edited.
ANSWER_BEARING = "answer_bearing"


@dataclass
class ImageTargets:
    """What one image prints that its question is about."""

    targets: list[Target]
    notes: list[str] = field(default_factory=list)
    #: False when OCR could not run: edits are then placed as the method draws them.
    read: bool = True

    def regions(self) -> list[Region]:
        return [
            Region(bbox=t.bbox, kind=ANSWER_BEARING, detector="ocr", role=t.why)
            for t in self.targets
        ]

    def masks_over(self, rects: list, shape: tuple[int, ...]) -> list[Region]:
        """Mask regions over the answer-bearing words ``rects`` leave visible."""
        return [
            Region(bbox=t.bbox, kind="mask", detector="ocr", role=ANSWER_BEARING)
            for t in self.uncovered(rects, shape)
        ]

    def summary(self) -> str:
        return summary(self.targets)

    def uncovered(self, rects: list, shape: tuple[int, ...]) -> list[Target]:
        """The targets some pixel of which ``rects`` leave visible."""
        return [t for t in self.targets if not covered(t, rects, shape)]

    def require_some(self, index: int, why: str) -> None:
        """Not applicable when OCR read the image and found nothing answer-bearing: an
        edit that only works by hiding the answer's words has nothing to aim at, and
        ``why`` says what the picture keeps."""
        if self.read and not self.targets:
            raise NotApplicable(f"image {index + 1} prints no answer-bearing text: {why}")

    def require_covered(self, rects: list, shape: tuple[int, ...], index: int, how: str) -> None:
        """Not applicable when ``rects`` leave an answer-bearing word visible."""
        left = self.uncovered(rects, shape)
        if left:
            raise NotApplicable(
                f"image {index + 1}: {how} leaves answer-bearing text visible: {summary(left)}"
            )


def answer_targets(image: np.ndarray, index: int, ctx: TransformContext) -> ImageTargets:
    """The answer-bearing words of image ``index`` of ``ctx``'s sample."""
    try:
        targets = image_targets(image, ctx.sample)
    except OcrError as exc:
        return ImageTargets(
            [], [f"OCR unavailable ({exc}): edits placed without reading the image"], read=False
        )
    if not targets:
        return ImageTargets([], ["OCR found no answer-bearing text: edits placed as drawn"])
    return ImageTargets(targets, [f"answer-bearing text: {summary(targets)}"])
