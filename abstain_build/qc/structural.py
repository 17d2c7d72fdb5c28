"""Preliminary, structural checks every perturbed item must pass before it is written."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from PIL import Image

from ..errors import InputError
from ..media.inputs import SampleInputs
from ..media.pdf import drawing_errors, open_pdf
from ..model import Sample

if TYPE_CHECKING:
    from ..transforms.base import Transform


def _size(png: bytes) -> tuple[int, int]:
    """Size from the header, after checking every chunk's CRC (cheaper than decoding)."""
    with Image.open(io.BytesIO(png)) as image:
        size = image.size
        image.verify()
    return size


def _source_errors(inputs: SampleInputs) -> set[str]:
    """What the source document's pages already report (not the edit's doing), once per
    sample."""
    return inputs.derived("drawing_errors", lambda: drawing_errors(inputs.document()))


def structural_checks(
    transform: Transform,
    sample: Sample,
    inputs: SampleInputs,
    question: str,
    images: list[bytes] | None,
    pages: list[int],
    pdf: bytes | None,
) -> dict[str, Any]:
    """Preliminary integrity: files decode, sizes kept (unless a crop), question non-empty,
    and an edited PDF keeps its pages whole: no new error drawing them."""
    checks: list[dict[str, Any]] = []

    def check(name: str, passed: bool, detail: str = "") -> None:
        checks.append({"name": name, "passed": bool(passed), "detail": detail})

    check("question_non_empty", bool(question.strip()))
    if transform.target == "question":
        check("question_changed", question != sample.question)
    if images is not None:
        try:
            sizes = [_size(png) for png in images]
        except Exception as exc:  # an undecodable output is a failed check, not a crash
            check("outputs_decode", False, str(exc))
            sizes = []
        else:
            check("outputs_decode", True)
        if transform.target == "image":
            expected = [(a.shape[1], a.shape[0]) for a in inputs.images()]
            check("image_count", len(images) == len(expected))
        else:
            expected = [_size(png) for png in inputs.evidence_renders()]
        if sizes and not transform.changes_geometry:
            same = sizes == expected
            check("dimensions_unchanged", same, "" if same else f"{expected} -> {sizes}")
    if pdf is not None:
        try:
            document = open_pdf(pdf, "perturbed document")
        except InputError as exc:
            check("pdf_opens", False, exc.reason)
        else:
            check("pdf_opens", True)
            count = document.page_count
            new = sorted(drawing_errors(document) - _source_errors(inputs))
            document.close()
            original = inputs.document().page_count
            check("page_count_unchanged", count == original, f"{original} -> {count}")
            check("pages_draw_cleanly", not new, "; ".join(new)[:300])
    return {"passed": all(c["passed"] for c in checks), "checks": checks}
