"""Several prediction files on one dataset, side by side: ``eval DATASET a.jsonl b.jsonl``.

One row per file: its method (as ``predict`` named it), the headline metrics, the best
threshold of a confidence or probability sweep (an oracle), RC-AUC and the multi-agent
override rate. The degenerate anchors are marked: they bound what a score means.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from .predictions import ANCHORS
from .report import mcc_text, percent


def _oracle(data: dict[str, Any]) -> dict[str, Any] | None:
    sweep = data.get("confidence_sweep")
    if sweep and sweep.get("oracle_tau") is not None:
        row = next(r for r in sweep["rows"] if r["tau"] == sweep["oracle_tau"])
        return {"kind": "confidence", "tau": row["tau"], "MCC": row["MCC"]}
    probability = data.get("probability_sweep")
    if probability and probability.get("oracle"):
        oracle = probability["oracle"]
        return {"kind": "probability", "tau": oracle["tau"], "MCC": oracle["MCC"]}
    return None


def comparison_rows(runs: Sequence[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """``runs``: (name, ``Evaluation.to_json()``) per predictions file."""
    rows = []
    for name, data in runs:
        overall = data["overall"]
        method = data.get("method")
        probability = data.get("probability_sweep") or {}
        mas = data.get("mas") or {}
        rows.append(
            {
                "predictions": name,
                "method": method,
                "anchor": method in ANCHORS,
                "scored": data["items"]["scored"],
                "AAC": overall["AAC"],
                "UAC": overall["UAC"],
                "AR": overall["AR"],
                "MCC": overall["MCC"],
                "oracle": _oracle(data),
                "rc_auc": probability.get("rc_auc"),
                "override_rate": mas.get("override_rate"),
            }
        )
    return rows


def comparison_table(rows: Sequence[dict[str, Any]]) -> Table:
    table = Table(
        title="Side by side",
        title_justify="left",
        caption="anchor: a degenerate baseline (no model). oracle: the best threshold of the"
        " file's confidence or probability sweep, chosen on these items (an upper bound).",
        caption_justify="left",
    )
    table.add_column("predictions")
    table.add_column("method")
    for column in ("N", "AAC %", "UAC %", "AR %", "MCC", "oracle", "RC-AUC", "override %"):
        table.add_column(column, justify="right")
    for row in rows:
        oracle = row["oracle"]
        rate = row["override_rate"]
        auc = row["rc_auc"]
        table.add_row(
            row["predictions"],
            (row["method"] or "-") + (" (anchor)" if row["anchor"] else ""),
            str(row["scored"]),
            percent(row["AAC"]),
            percent(row["UAC"]),
            percent(row["AR"]),
            mcc_text(row["MCC"]),
            "-" if oracle is None else f"τ={oracle['tau']:g}: {mcc_text(oracle['MCC'])}",
            "-" if auc is None else f"{auc:.3f}",
            "-" if rate is None else f"{100 * rate:.1f}",
        )
    return table
