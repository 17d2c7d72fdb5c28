"""How an evaluation is shown: rich tables on the terminal, a PNG chart, files on disk."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from .evaluate import Evaluation
from .metrics import CELLS

REPORT_FILE = "report.json"
ITEMS_FILE = "items.jsonl"
CHART_FILE = "aac_uac_by_family.png"
SHOW_IDS = 5


def percent(block: dict[str, Any]) -> str:
    """``78.9 ±2.4`` from a metric block, ``-`` when undefined."""
    if block["value"] is None:
        return "-"
    return f"{100 * block['value']:.1f} ±{100 * block['se']:.1f}"


def mcc_text(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _count(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:.2f}"


def metrics_table(title: str, rows: Sequence[dict[str, Any]], key: str | None) -> Table:
    table = Table(title=title, title_justify="left")
    if key:
        table.add_column(key)
    for column in ("N", *CELLS, "AAC %", "UAC %", "AR %", "MCC"):
        table.add_column(column, justify="right")
    if key and rows and "pairs" in rows[0]:
        table.add_column("pairs both %", justify="right")
    for row in rows:
        cells = [_count(row["counts"][c]) for c in CELLS]
        values = [
            _count(row["n"]),
            *cells,
            percent(row["AAC"]),
            percent(row["UAC"]),
            percent(row["AR"]),
            mcc_text(row["MCC"]),
        ]
        if key and "pairs" in row:
            share = row["pairs"]["both_share"]
            values.append("-" if share is None else f"{100 * share:.1f}")
        table.add_row(*([str(row[key])] if key else []), *values)
    return table


def _threshold_table(title: str, caption: str, rows: Sequence[tuple[str, dict[str, Any]]]) -> Table:
    """A sweep as a table: one (threshold label, metrics block) per row."""
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    for column in ("tau", "AAC %", "UAC %", "AR %", "MCC"):
        table.add_column(column, justify="right")
    for label, row in rows:
        table.add_row(
            label,
            percent(row["AAC"]),
            percent(row["UAC"]),
            percent(row["AR"]),
            mcc_text(row["MCC"]),
        )
    return table


def sweep_table(block: dict[str, Any]) -> Table:
    return _threshold_table(
        f"Confidence sweep: {block['rule']} ({block['with_confidence']} responses with a"
        " confidence)",
        "* oracle: the best MCC on these same items (an upper bound)",
        [(f"{row['tau']}{' *' if row['oracle'] else ''}", row) for row in block["rows"]],
    )


def probability_table(block: dict[str, Any]) -> Table:
    auc, aurc, oracle = block["rc_auc"], block["aurc"], block["oracle"]
    rows = [(f"{row['tau']:g}", row) for row in block["rows"]]
    if oracle is not None:
        rows.append((f"{oracle['tau']:.4g} *", oracle))
    return _threshold_table(
        f"Probability sweep: {block['rule']} ({block['with_probability']} responses with a"
        f" probability); RC-AUC {'undefined' if auc is None else f'{auc:.3f}'} (0.5 = chance),"
        f" AURC {'-' if aurc is None else f'{aurc:.3f}'} (lower is better)",
        "* oracle: the best MCC over every threshold, on these same items (an upper bound)",
        rows,
    )


def mas_line(block: dict[str, Any]) -> str:
    rate = block["override_rate"]
    decisions = ", ".join(f"{k} {v}" for k, v in block["decisions"].items())
    return (
        f"[bold]Multi-agent[/]: {block['items']} items, {block['mean_rounds']:.2f} rounds on"
        f" average; the Reasoner answered {block['reasoner_answered']}, the Verifier overrode"
        f" {block['overridden']} ({'-' if rate is None else f'{100 * rate:.1f}%'} override"
        f" rate: {block['overridden_answerable']} answerable, {block['overridden_unanswerable']}"
        f" unanswerable); {block['revised_items']} item(s) revised; decisions: {decisions}"
    )


def _some(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:SHOW_IDS])
    return shown + (f", ... ({len(ids) - SHOW_IDS} more)" if len(ids) > SHOW_IDS else "")


def print_report(console: Console, data: dict[str, Any], by: str, written: Path | None) -> None:
    """Print ``data`` (an :meth:`Evaluation.to_json` result) with the ``by`` breakdown."""
    items = data["items"]
    excluded = ", ".join(f"{k} {v}" for k, v in items["excluded_by_status"].items())
    statuses = ", ".join(f"{k} {v}" for k, v in items["unanswerable_by_status"].items())
    if data.get("method"):
        console.print(f"[bold]method[/] {data['method']}", highlight=False)
    console.print(
        f"[bold]scored[/] {items['scored']} of {items['in_dataset']} items"
        f" ({items['answerable']} answerable, {items['unanswerable']} unanswerable"
        + (f": {statuses}" if statuses else "")
        + ")"
        + (f"; not scored by QC status: {excluded}" if excluded else ""),
        highlight=False,
    )
    console.print(metrics_table("Overall", [data["overall"]], None))
    console.print(metrics_table(f"By {by}", data["by"][by], by))
    pairs = data["pairs"]
    if pairs["pairs"] or pairs["counterparts_answered"]:
        both = pairs["both_share"]
        answered = pairs["counterparts_answered"]
        console.print(
            f"[bold]Pairs[/]: {pairs['pairs']} original/counterpart pairs;"
            f" original correct AND counterpart abstained: {pairs['both']}"
            + ("" if both is None else f" ({100 * both:.1f}%)")
            + f". Counterparts answered: {answered}"
            + (
                f" (repeated the original's gold: {pairs['repeated_gold']},"
                f" another answer: {pairs['other_answer']}, unreadable: {pairs['unreadable']})"
                if answered
                else ""
            ),
            highlight=False,
        )
    changed = data["answer_changed"]
    if changed["items"]:
        console.print(
            f"[bold]Answer-changed items[/] (scored apart): {changed['items']};"
            f" read the new answer: {changed['read_new_answer']},"
            f" recited the original's: {changed['recited_original']},"
            f" abstained: {changed['abstained']}, another answer: {changed['other_answer']}",
            highlight=False,
        )
    sets = data.get("evidence_sets") or {}
    rows = [{"evidence set": name, **row} for name, row in sets.items() if name != "susceptibility"]
    if rows:
        console.print(metrics_table("Evidence sets (scored apart)", rows, "evidence set"))
        index = sets.get("susceptibility")
        if index:
            console.print(
                f"[bold]Distractor susceptibility[/] (AAC with the evidence pages alone minus"
                f" AAC with them among distractors, {index['questions']} questions):"
                f" {100 * index['aac_gold']:.1f}% - {100 * index['aac_gold_distractors']:.1f}%"
                f" = {100 * index['dsi']:+.1f} points",
                highlight=False,
            )
    if data["confidence_sweep"]:
        console.print(sweep_table(data["confidence_sweep"]))
    if data.get("probability_sweep"):
        console.print(probability_table(data["probability_sweep"]))
    if data.get("mas"):
        console.print(mas_line(data["mas"]), highlight=False)
    answers = data["answers"]
    rules = ", ".join(f"{k} {v}" for k, v in answers["rules"].items()) or "none"
    console.print(
        f"[bold]Answers graded[/] (answerable items, and answered counterparts against the"
        f" original's gold) by rule: {rules};"
        f" unreadable answers on answerable items (counted wrong):"
        f" {answers['unreadable_on_answerable']}",
        highlight=False,
    )
    problems = data["problems"]
    for key, label in (
        ("missing", "items without a prediction (not scored)"),
        ("extra", "predictions for ids not in the dataset"),
        ("excluded_but_predicted", "predictions for items not scored by QC status"),
    ):
        if problems[key]:
            console.print(
                f"[yellow]{len(problems[key])} {label}[/]: {_some(problems[key])}",
                highlight=False,
            )
    if problems["lines"]:
        console.print(f"[yellow]{len(problems['lines'])} prediction line(s) with problems:[/]")
        for problem in problems["lines"][:SHOW_IDS]:
            console.print(f"  line {problem['line']}: {problem['problem']}", highlight=False)
    if written is not None:
        console.print(
            f"written: {written / REPORT_FILE}, {written / ITEMS_FILE}"
            + (f", {written / CHART_FILE}" if (written / CHART_FILE).exists() else ""),
            highlight=False,
        )


def family_chart(rows: Sequence[dict[str, Any]]) -> bytes | None:
    """Grouped bars: AAC and UAC per family, with standard-error whiskers."""
    rows = [r for r in rows if r["AAC"]["value"] is not None or r["UAC"]["value"] is not None]
    if not rows:
        return None
    import numpy as np

    from ..media.figures import figure_png, pyplot

    plt = pyplot()
    names = [
        str(r["family"]).replace("_", "\n")
        + f"\n(n={_count(r['counts']['TN'] + r['counts']['AU'])})"
        for r in rows
    ]
    x = np.arange(len(rows))
    figure, axes = plt.subplots(figsize=(max(5.0, 1.5 * len(rows) + 1.5), 4.2), dpi=100)
    for offset, metric, colour in ((-0.2, "AAC", "#4c72b0"), (0.2, "UAC", "#dd8452")):
        values = [100 * (r[metric]["value"] or 0.0) for r in rows]
        errors = [100 * (r[metric]["se"] or 0.0) for r in rows]
        axes.bar(x + offset, values, 0.4, yerr=errors, capsize=3, label=metric, color=colour)
    axes.set_xticks(x, names, fontsize=8)
    axes.set_ylim(0, 118)
    axes.set_yticks(range(0, 101, 20))
    axes.set_ylabel("%  (whiskers: standard error)")
    axes.set_title("Answerable (AAC) and unanswerable (UAC) accuracy per family")
    axes.legend(loc="upper center", ncol=2, fontsize=8, frameon=False)
    return figure_png(figure)


def write_outputs(evaluation: Evaluation, out: Path) -> dict[str, Any]:
    """report.json, items.jsonl (one line per scored item) and the family chart."""
    out.mkdir(parents=True, exist_ok=True)
    data = evaluation.to_json()
    (out / REPORT_FILE).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    with (out / ITEMS_FILE).open("w", encoding="utf-8") as handle:
        for scored in [*evaluation.scored, *evaluation.changed]:
            handle.write(json.dumps(scored.to_json(), ensure_ascii=False) + "\n")
    chart = family_chart(data["by"]["family"])
    if chart is not None:
        (out / CHART_FILE).write_bytes(chart)
    else:
        (out / CHART_FILE).unlink(missing_ok=True)
    return data
