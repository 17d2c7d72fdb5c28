"""What a transform must leave unstated, so the re-read gate and ``audit`` know what a leak is.

* ``remove``: evidence removal, corruption and blur. No page the item ships may still state
  the answer, in pixels or in the text layer.
* ``attribute``: column merges and distractor rows keep the gold's value on purpose; what
  they take away is which column or row it belongs to. The gold may stay inside the table
  regions the transform edited, nowhere else (another page, a sentence restating it).
* ``question``: the question was rewritten and the evidence left as it is (a contradicting
  note, a shifted period): the gold is still printed by design, so reading for it says
  nothing; the judges decide.

A transform declares its policy (``evidence_policy``); a record built by another tool, or
before the policy was recorded, gets one from what it says it did (:func:`policy_of`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

REMOVE = "remove"
ATTRIBUTE = "attribute"
QUESTION = "question"
POLICIES = (REMOVE, ATTRIBUTE, QUESTION)

#: Region kinds that mark a value kept on purpose, its attribution taken away: the table
#: the transform edited (and, in records without it, the merged or inserted cells).
ATTRIBUTION_REGIONS = frozenset({"table", "merged_columns", "inserted_row", "moved"})


def policy_of(record: Mapping[str, Any] | None) -> str:
    """The policy of a data.jsonl row: as recorded, else from its transform record."""
    if not record:
        return REMOVE
    recorded = ((record.get("evidence") or {}).get("reread") or {}).get("policy")
    if recorded in POLICIES:
        return str(recorded)
    transform = record.get("transform") or {}
    if transform.get("target") == "question":
        return QUESTION
    regions = (transform.get("edits") or {}).get("regions") or []
    if any(r.get("kind") in ATTRIBUTION_REGIONS - {"moved"} for r in regions):
        return ATTRIBUTE
    return REMOVE
