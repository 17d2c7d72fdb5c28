"""``missing_context``, a question rewrite of the family semantic unanswerability:
the image stays, the question asks what it cannot answer."""

from __future__ import annotations

from ..registry import register_transform
from ..rewrite_base import OfflineRewrite


@register_transform
class MissingContext(OfflineRewrite):
    name = "missing_context"
    version = 1
    family = "semantic_unanswerability"
    description = (
        "Ask about what the record does not ship: the earlier version of the image (last"
        " year's edition of a table or chart), or a computation without the sentences that"
        " state its givens (when no image prints them)."
    )
    intensity_doc = "100 * share of the question's characters that changed."
