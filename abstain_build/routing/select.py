"""Transform selection per sample.

Mode ``none`` (``--no-routing``): every requested transform whose target and axis fit the
sample is a candidate, and each candidate that can act on the sample emits one item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..model import Sample

if TYPE_CHECKING:
    from ..transforms.base import Transform


@dataclass
class Selection:
    candidates: list[Transform]
    not_applicable: dict[str, str] = field(default_factory=dict)
    mode: str = "none"

    def record(self) -> dict[str, Any]:
        """What goes under ``routing`` in each emitted record."""
        return {
            "mode": self.mode,
            "candidates": [t.name for t in self.candidates],
            "score": None,
            "reason": "routing disabled: every requested transform that fits the sample",
            "dependency": None,
            "evidence_type": None,
            "classifier": None,
            "eligible": [],
            "relaxed": False,
            "scores": None,
            "attempts": [],
        }


def select_transforms(
    sample: Sample, transforms: Sequence[Transform], mode: str = "none"
) -> Selection:
    selection = Selection(candidates=[], mode=mode)
    for transform in transforms:
        reason = transform.check(sample)
        if reason is None:
            selection.candidates.append(transform)
        else:
            selection.not_applicable[transform.name] = reason
    return selection
