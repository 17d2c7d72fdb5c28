"""``nonexistent_reference``, a question rewrite of the family semantic unanswerability:
the image stays, the question asks what it cannot answer."""

from __future__ import annotations

from ..registry import register_transform
from ..rewrite_base import OfflineRewrite


@register_transform
class NonexistentReference(OfflineRewrite):
    name = "nonexistent_reference"
    version = 1
    family = "semantic_unanswerability"
    description = (
        "Point the ask at an element the image does not have: panel (f), the part labelled"
        " K7, a table's row labelled K7 (a label no image prints, by OCR). Only for"
        " questions that look at their image."
    )
    intensity_doc = "100 * share of the question's characters that changed."
