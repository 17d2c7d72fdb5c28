"""``OUT.summary.json``: what a predictions file cost, over every run that wrote it.

Counts come from the sidecar (``OUT.replies.jsonl``, one line per item asked, failures
included), so a resumed file is summed whole; wall time is per run, since only a run
knows it. Tokens of replies replayed from the cache are counted apart: they were paid
for once, by an earlier run.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

SUMS = (
    "calls",
    "input_tokens",
    "output_tokens",
    "billed_input_tokens",
    "billed_output_tokens",
)


def _sidecar_totals(replies: Path) -> dict[str, Any]:
    totals: dict[str, Any] = {name: 0 for name in SUMS}
    last_ok: dict[str, bool] = {}
    item_seconds = 0.0
    if replies.exists():
        for line in replies.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue  # a torn last line of a killed run
            for name in SUMS:
                totals[name] += int(row.get(name) or 0)
            item_seconds += float(row.get("seconds") or 0)
            last_ok[str(row.get("id"))] = bool(row.get("ok"))
    totals["items_asked"] = len(last_ok)
    totals["items_failed"] = sum(1 for ok in last_ok.values() if not ok)
    totals["item_seconds"] = round(item_seconds, 3)
    return totals


def write_summary(
    out: Path,
    replies: Path,
    *,
    method: str,
    model: str | None,
    concurrency: int,
    wall_seconds: float,
    calls: int,
    price: tuple[float, float] | None,
) -> dict[str, Any]:
    """Rewrite ``OUT.summary.json`` with this run appended; return it."""
    path = out.with_name(out.name + ".summary.json")
    previous: dict[str, Any] = {}
    if path.exists():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            previous = {}
    runs = list(previous.get("runs") or [])
    runs.append(
        {
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "concurrency": concurrency,
            "calls": calls,
            "wall_seconds": round(wall_seconds, 3),
        }
    )
    totals = _sidecar_totals(replies)
    summary: dict[str, Any] = {
        "method": method,
        "model": model,
        **totals,
        "wall_seconds": round(sum(r["wall_seconds"] for r in runs), 3),
        "runs": runs,
    }
    if price is not None:
        per_in, per_out = price
        summary["price_usd_per_million_tokens"] = {"input": per_in, "output": per_out}
        summary["cost_usd"] = round(
            (totals["billed_input_tokens"] * per_in + totals["billed_output_tokens"] * per_out)
            / 1e6,
            6,
        )
    path.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary
