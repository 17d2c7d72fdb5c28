"""The validity table on a terminal: ``abstain-build validity``."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from .policy import ValidityPolicy
from .recall import SourceReadings
from .table import ALL_KINDS, Estimate


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def estimate_row(estimate: Estimate, policy: ValidityPolicy) -> list[str]:
    data = estimate.to_json()
    low, high = data["low"], data["high"]
    interval = "-" if low is None else f"{low:.2f}-{high:.2f}"
    if estimate.kind == ALL_KINDS:
        decision = policy.decide(estimate.transform, estimate.version, estimate.mode, None)
        verdict = "clears" if decision.clears else "held back"
    else:
        verdict = "clears" if low is not None and low >= policy.min_validity else "held back"
        verdict = f"cell {verdict}"
    return [
        estimate.transform if estimate.kind == ALL_KINDS else f"  {estimate.kind}",
        f"v{estimate.version}" + ("" if estimate.mode == "rule" else f" {estimate.mode}"),
        str(data["n"]),
        str(data["unanswerable"]),
        str(data["conflicting"]),
        str(data["answerable"]),
        str(data["doubtful"]),
        _percent(data["estimate"]),
        interval,
        verdict,
        ", ".join(data["datasets"]),
    ]


def validity_table(policy: ValidityPolicy) -> Table:
    table = Table(
        title="Measured validity (blind readings at the current versions)",
        caption=f"validity = (unanswerable + conflicting) / n, Wilson 95% interval; a"
        f" counterpart is accepted offline when its cell's lower bound is >="
        f" {policy.min_validity:.2f} with n >= {policy.min_readings} (a transform x kind"
        " cell once it has 25 readings, else the transform)",
    )
    for column in (
        "transform / kind",
        "version",
        "n",
        "unans.",
        "confl.",
        "answ.",
        "doubt.",
        "validity",
        "95% CI",
        "policy",
        "read on",
    ):
        justify: Any = "right" if column in ("n", "unans.", "confl.", "answ.", "doubt.") else None
        table.add_column(column, justify=justify or "left")
    for estimate in policy.table.rows():
        table.add_row(*estimate_row(estimate, policy))
    return table


def print_validity(console: Console, policy: ValidityPolicy, registry_names: list[str]) -> None:
    table = policy.table
    console.print(validity_table(policy))
    unread = [name for name in registry_names if not any(t == name for t, _ in table.overall)]
    if unread:
        console.print(f"No readings at the current version: {', '.join(unread)}.")
    if table.carried:
        console.print(
            "Counted readings made of an earlier version whose item ships unchanged"
            " (audit --carry): "
            + ", ".join(f"{name} {n}" for name, n in sorted(table.carried.items()))
        )
    if table.set_apart:
        console.print(
            "Set apart, as no default build makes them: evidence edits of questions the"
            " offline blind check stops (read from builds that recorded its verdict only;"
            " the question gets rewrites instead): "
            + ", ".join(
                f"{name} {valid}/{n}" for name, (valid, n) in sorted(table.set_apart.items())
            )
        )
    flagged = {name: vn for name, vn in table.unflagged.items() if vn[1] < table.n_of(name)}
    if flagged:
        console.print(
            "The table counts every question read, as a new dataset holds questions like the"
            " ones the readings flag. Without the recalled and contested questions and those on"
            " documents readers remembered (what a"
            " build of the read questions emits, since they get no evidence edit): "
            + ", ".join(f"{name} {valid}/{n}" for name, (valid, n) in sorted(flagged.items()))
        )
    # A held-out measurement replaces the extrapolation (see the card).
    expected = {n: v for n, v in table.expected.items() if n not in table.held_out}
    if expected:
        console.print(
            "Expected on a new dataset, whose recalled and contested questions no reading has"
            " flagged yet (the two kinds' figures weighted by the share of the questions read"
            " that the readings flag; transforms measured on held-out datasets get that"
            " figure instead): "
            + ", ".join(
                f"{name} {value:.0%} ({k} of {m} questions flagged)"
                for name, (value, k, m) in sorted(expected.items())
            )
        )
    if table.held_out:
        console.print(
            "Measured on held-out datasets (ledger names ending ':heldout': questions and"
            " documents no rule was made on), what a new dataset gets: "
            + ", ".join(
                f"{name} {valid}/{n}" for name, (valid, n) in sorted(table.held_out.items())
            )
        )
    told = {name: counts for name, counts in table.bases.items() if any(b for b in counts if b)}
    if told:
        console.print(
            "What the counted readings that found an answer rest on (shipped: read or worked"
            " out from the item; memory: of this public document; knowledge; unrecorded:"
            " read before kits asked): "
            + "; ".join(
                f"{name} "
                + ", ".join(f"{basis or 'unrecorded'} {n}" for basis, n in sorted(c.items()))
                for name, c in sorted(told.items())
            )
        )
    if table.recalled:
        console.print(
            "Questions two readers or more answered from memory or knowledge (they test"
            " recall, not abstention; builds give them no evidence edit): "
            + _sources(table.recalled)
        )
    if table.recalled_documents:
        console.print(
            "Documents two readers or more gave golds of from memory (their other figures"
            " are remembered too; builds give none of their questions an evidence edit): "
            + ", ".join(f"{name} ({readers})" for name, readers in table.recalled_documents.items())
        )
    if table.contested:
        console.print(
            "Questions readers answer from the item with another answer than the gold, two"
            " readers or more and a fifth of their readings (a list's items missed, another"
            " reading of the question, a gold the document does not print: builds give them no"
            " evidence edit; worth checking before a benchmark keeps them): "
            + _sources(table.contested)
        )
    if table.retired:
        console.print(
            "Readings of older versions (history, not counted): "
            + ", ".join(f"{name} {n}" for name, n in table.retired.items())
        )


def _sources(sources: list[SourceReadings]) -> str:
    """Source questions as "ID (dataset, readers of n: transforms)", one after another."""
    return "; ".join(
        f"{s.source} ({s.dataset}, {s.readers} of {s.n}: {', '.join(s.transforms)})"
        for s in sources
    )
