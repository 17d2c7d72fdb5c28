"""The dataset card's Validity section: what the measured validity let through, per
transform, and (after ``review --finalize``) what this dataset's own reviewers found."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..questions.kinds import shown_status
from ..schema import COUNTERPART, record_kind
from ..validity.table import wilson

#: Where ``review --finalize`` leaves its summary (see :mod:`..review.finalize`).
REVIEW_SUMMARY = "review/summary.json"


def item_statuses(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per transform of the written counterparts: its version and how many ended in each
    status ("held" for the items only the validity policy flagged)."""
    out: dict[str, dict[str, Any]] = {}
    for record in records:
        if record_kind(record) != COUNTERPART:
            continue
        transform = record["transform"]
        status = shown_status(record)
        block = out.setdefault(
            transform["name"],
            {
                "version": transform.get("version"),
                "mode": transform.get("mode"),
                "statuses": Counter(),
            },
        )
        block["statuses"][status] += 1
    return dict(sorted(out.items()))


def human_validity(root: Path, records: Iterable[dict[str, Any]]) -> dict[str, Counter]:
    """Per transform, the majority labels of this dataset's audit sample
    (``review --audit N`` then ``--finalize``); empty when there was no review."""
    path = root / REVIEW_SUMMARY
    if not path.is_file():
        return {}
    summary = json.loads(path.read_text(encoding="utf-8"))
    transform_of = {
        r["id"]: r["transform"]["name"] for r in records if record_kind(r) == COUNTERPART
    }
    out: dict[str, Counter] = defaultdict(Counter)
    for item in summary.get("items", []):
        if item.get("reason") != "audit" or item["id"] not in transform_of:
            continue
        out[transform_of[item["id"]]][item.get("label") or "undecided"] += 1
    return dict(sorted(out.items()))


def _interval(valid: int, n: int) -> str:
    if not n:
        return "-"
    low, high = wilson(valid, n)
    return f"{valid / n:.0%} ({low:.2f}-{high:.2f})"


def validity_lines(
    manifest: dict[str, Any],
    statuses: dict[str, dict[str, Any]],
    human: dict[str, Counter] | None = None,
) -> list[str]:
    """The card's Validity section (empty when the build recorded no policy)."""
    policy = manifest.get("validity")
    if not policy or not statuses:
        return []
    table = {(e["transform"], e["mode"]): e for e in policy["table"]["transforms"]}
    by_name: dict[str, dict[str, Any]] = defaultdict(dict)
    for (name, mode), estimate in table.items():
        by_name[name][mode] = estimate
    bar = policy["min_validity"]
    applied = policy["applied"]
    lines = [
        "## Validity",
        "",
        "How many counterparts of each transform are truly unanswerable was measured by blind"
        " readers (each given only what a record ships, answering before the key was opened):"
        " validity is the share of readings that found no answer (or two contradicting values"
        " and nothing saying which is true), at the transform version that built the item,"
        " with a Wilson 95% interval. The figures ship with abstain-build"
        f" (`abstain-build validity`; ledger {policy['ledger'][:12]}).",
        "",
        (
            f"Policy: an item the judges accept is accepted only when the lower bound of its"
            f" cell (transform x question kind once the cell has 25 readings, else the"
            f" transform) is at least {bar:.2f} with at least {policy['min_readings']}"
            " readings; otherwise it is flagged (held back) for model judges or human review."
            if applied
            else "Policy: recorded, not applied (`--min-validity 0`, or model judges without"
            " `--min-validity`): every item's `qc.validity` holds its transform's figures."
        ),
        "",
    ]
    rows = []
    totals: Counter = Counter()
    for name, block in statuses.items():
        counts = block["statuses"]
        totals.update(counts)
        estimates = by_name.get(name, {})
        estimate = estimates.get(block["mode"])
        if estimate and estimate["n"]:
            measured = (
                f"{estimate['estimate']:.0%} (n {estimate['n']}; {estimate['low']:.2f}-"
                f"{estimate['high']:.2f})"
            )
            where = ", ".join(estimate["datasets"])
        else:
            measured, where = "not measured", "-"
        rows.append(
            [
                name,
                f"v{block['version']}",
                sum(counts.values()),
                counts["accepted"],
                counts["held"],
                measured,
                where,
            ]
        )
    lines += [
        "| transform | version | emitted | accepted | held back | measured validity | read on |",
        "|---|---|---|---|---|---|---|",
        *("| " + " | ".join(str(cell) for cell in row) + " |" for row in rows),
        "",
        f"- {totals['accepted']} of {sum(totals.values())} counterparts accepted,"
        f" {totals['held']} held back by the policy (status `flagged`, `qc.validity.held`),"
        f" {totals['flagged']} flagged by their judges. Each record's `qc.validity` says which"
        " figures it was judged by.",
        "",
    ]
    expected = policy["table"].get("expected_on_new_questions", {})
    held_out = policy["table"].get("held_out", {})
    # A held-out measurement replaces the extrapolation: on held-out documents the
    # expected figure said two thirds or more where readers found about half.
    used = [name for name in statuses if name in expected and name not in held_out]
    if used:
        lines += _figures_line(
            "The measured validity counts every question read. Some questions fail whatever"
            " the edit: readers recall their answer, or settle on another one than the gold;"
            " the readings flag them and builds give them no evidence edit, but a question"
            " never read cannot be flagged. Expected where none was read (each kind's figure"
            " weighted by the share of the questions read that the readings flag): ",
            [
                f"{name} {expected[name]['estimate']:.0%}"
                f" ({expected[name]['flagged_questions']} of {expected[name]['questions']}"
                " flagged)"
                for name in used
            ],
        )
    measured = [name for name in statuses if name in held_out]
    if measured:
        lines += _figures_line(
            "Measured on held-out datasets, whose questions and documents no rule was made"
            " on (what a new dataset gets): ",
            [
                f"{name} {held_out[name]['valid']} of {held_out[name]['n']} valid"
                for name in measured
            ],
        )
    apart = policy["table"].get("set_apart", {})
    shown = [name for name in statuses if name in apart]
    if shown:
        lines += _figures_line(
            "Not counted: readings of these evidence edits made on questions the offline blind"
            " check stops (built with the verdict only recorded; a build that applies it gives"
            " such a question rewrites only, so they measure the blind check): ",
            [f"{name} {apart[name]['valid']} of {apart[name]['n']} valid" for name in shown],
        )
    if human:
        lines += [
            "### This dataset's own review",
            "",
            "Majority labels of the audit sample (`review --audit N`, then `--finalize`):"
            " validity = unanswerable / labelled, with a Wilson 95% interval.",
            "",
            "| transform | audited | unanswerable | answerable | undecided | validity |",
            "|---|---|---|---|---|---|",
        ]
        for name, labels in human.items():
            valid, wrong = labels["UNANSWERABLE"], labels["ANSWERABLE"]
            lines.append(
                f"| {name} | {sum(labels.values())} | {valid} | {wrong} |"
                f" {labels['undecided']} | {_interval(valid, valid + wrong)} |"
            )
        lines.append("")
    return lines


def _figures_line(intro: str, figures: list[str]) -> list[str]:
    """A bullet of the card's validity section: what the figures are, then each."""
    return [f"- {intro}" + ", ".join(figures) + ".", ""]
