"""The finalize summary as tables for the terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from .finalize import LABELS, MAJORITY, TIE, TOO_FEW, UNDECIDED
from .queue import AUDIT, FLAGGED


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def print_summary(summary: dict[str, Any], console: Console) -> None:
    queue = summary["queue"]
    console.print(
        f"[bold]review[/]: {queue['items']} items ({queue[FLAGGED]} flagged, {queue[AUDIT]}"
        f" audit), {len(summary['annotators'])} annotator(s),"
        f" label needs {summary['min_annotators']}+ votes",
        highlight=False,
    )
    votes = Table(title="Votes cast")
    votes.add_column("annotator")
    for column in (*LABELS, "SKIP"):
        votes.add_column(column, justify="right")
    for name, counts in summary["annotators"].items():
        votes.add_row(name, *(str(counts.get(c, 0)) for c in (*LABELS, "SKIP")))
    console.print(votes)

    outcome = Table(title="Outcome")
    outcome.add_column("queue")
    columns = (*LABELS, TIE, TOO_FEW)
    for column in columns:
        outcome.add_column(column, justify="right")
    for reason, counts in summary["by_reason"].items():
        outcome.add_row(reason, *(str(counts.get(c, 0)) for c in columns))
    console.print(outcome)
    changes = summary["status_changes"]
    if changes:
        console.print(
            "status changes: " + ", ".join(f"{k}: {v}" for k, v in sorted(changes.items())),
            highlight=False,
        )

    agreement = summary["agreement"]
    console.print(
        f"[bold]agreement[/]: Fleiss' kappa {_fmt(agreement['fleiss_kappa'])} over"
        f" {agreement['items']} item(s) with 2+ votes (observed"
        f" {_fmt(agreement['observed_agreement'])}, chance"
        f" {_fmt(agreement['expected_agreement'])})",
        highlight=False,
    )

    confusion = summary["confusion"]
    if confusion["matrix"]:
        matrix = Table(title="Audit: QC status (rows) vs human label")
        matrix.add_column("QC")
        for column in confusion["columns"]:
            matrix.add_column(column, justify="right")
        for status, cells in confusion["matrix"].items():
            matrix.add_row(status, *(str(cells[c]) for c in confusion["columns"]))
        console.print(matrix)
        if confusion["qc_agreement"] is not None:
            console.print(
                f"QC agrees with the humans on {confusion['qc_agreement']:.1%} of"
                f" {confusion['qc_agreement_items']} decided accepted/rejected item(s)",
                highlight=False,
            )
    if confusion["audited_without_qc"]:
        console.print(
            f"{confusion['audited_without_qc']} audited item(s) had no QC verdict (unverified)",
            highlight=False,
        )
    undecided = [row for row in summary["items"] if row["outcome"] != MAJORITY]
    if undecided:
        console.print(
            f"[yellow]{len(undecided)} item(s) without a label[/] ({UNDECIDED}: ties or too"
            " few votes); their status is unchanged",
            highlight=False,
        )
