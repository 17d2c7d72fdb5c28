"""Reading a predictions file: one JSON object per line, ``id`` and ``response``.

``confidence`` (1-5, optional) feeds the threshold sweep; ``probability`` (0-1, optional:
P(True), MaxProb) feeds the probability sweep and RC-AUC. ``method`` names what produced
the line (``abstain-build predict`` writes it); ``mas`` holds a multi-agent run's rounds
and whether the Verifier overrode the Reasoner. Nothing is dropped silently:
malformed lines, missing fields, bad confidences and repeated ids are collected as
problems with their line numbers; the first prediction of a repeated id is the one used.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError

#: ``PRED.jsonl`` + this is the sidecar of raw replies ``predict`` writes beside a
#: predictions file: not predictions (``eval`` leaves such files out).
SIDECAR_SUFFIX = ".replies.jsonl"
#: The ``method`` of the degenerate anchors' lines: baselines that call no model.
ANCHORS = ("always-abstain", "never-abstain", "random-abstain")
CONFIDENCE_RANGE = (1.0, 5.0)
PROBABILITY_RANGE = (0.0, 1.0)


@dataclass(frozen=True)
class Prediction:
    id: str
    response: str
    confidence: float | None
    line: int
    probability: float | None = None
    method: str | None = None
    #: ``{"rounds", "decisions", "reasoner_answered", "overridden"}`` of a multi-agent run.
    mas: dict[str, Any] | None = None


@dataclass
class Predictions:
    by_id: dict[str, Prediction] = field(default_factory=dict)
    #: ``{"line": n, "id": ..., "problem": "..."}`` for every line not used as given.
    problems: list[dict[str, Any]] = field(default_factory=list)


def _number(
    value: Any, name: str = "confidence", bounds: tuple[float, float] = CONFIDENCE_RANGE
) -> tuple[float | None, str | None]:
    if value is None:
        return None, None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None, f"{name} {value!r} is not a number; ignored"
    try:
        number = float(value)
    except ValueError:
        return None, f"{name} {value!r} is not a number; ignored"
    low, high = bounds
    if not math.isfinite(number) or not low <= number <= high:
        return None, f"{name} {value!r} is outside {low:g}-{high:g}; ignored"
    return number, None


#: Keys other tools write the model's text under; named in the problem when found.
OTHER_RESPONSE_KEYS = ("prediction", "pred", "output", "answer", "model_answer", "text")


def read_predictions(path: Path, response_key: str = "response") -> Predictions:
    """Parse ``path``; raise ConfigError only when the file itself cannot be read.

    ``response_key`` names the field holding the model's text (``--response-key``).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read predictions {path}: {exc}") from None
    result = Predictions()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            result.problems.append({"line": number, "id": None, "problem": f"not JSON: {exc}"})
            continue
        if not isinstance(row, dict):
            result.problems.append({"line": number, "id": None, "problem": "not a JSON object"})
            continue
        item_id = row.get("id")
        if not isinstance(item_id, str) or not item_id:
            result.problems.append({"line": number, "id": None, "problem": "no string 'id'"})
            continue
        response = row.get(response_key)
        if isinstance(response, int | float) and not isinstance(response, bool):
            response = str(response)  # a bare number is a valid answer
        if not isinstance(response, str):
            other = next((k for k in OTHER_RESPONSE_KEYS if isinstance(row.get(k), str)), None)
            hint = f" (it has {other!r}: --response-key {other})" if other else ""
            result.problems.append(
                {
                    "line": number,
                    "id": item_id,
                    "problem": f"no string {response_key!r}{hint}; not scored",
                }
            )
            continue
        if item_id in result.by_id:
            first = result.by_id[item_id].line
            result.problems.append(
                {"line": number, "id": item_id, "problem": f"repeated id; line {first} is used"}
            )
            continue
        confidence, problem = _number(row.get("confidence"))
        probability, problem_p = _number(row.get("probability"), "probability", PROBABILITY_RANGE)
        for text in (problem, problem_p):
            if text:
                result.problems.append({"line": number, "id": item_id, "problem": text})
        method = row.get("method")
        mas = row.get("mas")
        result.by_id[item_id] = Prediction(
            item_id,
            response,
            confidence,
            number,
            probability=probability,
            method=method if isinstance(method, str) and method else None,
            mas=mas if isinstance(mas, dict) else None,
        )
    return result
