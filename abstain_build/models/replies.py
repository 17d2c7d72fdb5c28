"""Reading a model's JSON reply: one object, optionally inside a Markdown code fence."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


def json_reply(reply: str, example: str) -> Any:
    """The reply's JSON value; ValueError naming ``example`` (the expected shape) otherwise,
    so a re-ask tells the model what was wanted."""
    try:
        return json.loads(_FENCE.sub("", reply.strip()).strip())
    except ValueError:
        raise ValueError(f"the reply is not a JSON object like {example}") from None
