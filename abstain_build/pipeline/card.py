"""The dataset card (README.md) and its transform-distribution chart."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from ..model import EVIDENCE, MODALITY
from ..schema import card_features_yaml
from .reasons import TOP
from .summary import BuildCounts
from .validity_card import validity_lines

CHART_FILE = "transform_distribution.png"
AXIS_TITLES = {
    MODALITY: "A-MMMU style (modality dependency: image items)",
    EVIDENCE: "A-MMLBD style (evidence sufficiency: document items)",
}


def transform_chart(counts: BuildCounts) -> bytes | None:
    """A horizontal bar chart of emitted items per transform, coloured by family."""
    if not counts.by_transform:
        return None
    from ..media.figures import figure_png, pyplot

    plt = pyplot()
    names = sorted(counts.by_transform, key=lambda n: (counts.family_of[n], n))
    families = sorted(set(counts.family_of[n] for n in names))
    palette = plt.get_cmap("tab10")
    colour = {family: palette(i % 10) for i, family in enumerate(families)}
    figure, axes = plt.subplots(figsize=(7, 0.45 * len(names) + 1.4), dpi=100)
    axes.barh(
        names,
        [counts.by_transform[n] for n in names],
        color=[colour[counts.family_of[n]] for n in names],
    )
    axes.invert_yaxis()
    axes.set_xlabel("unanswerable items")
    axes.set_title("Items per transform")
    axes.xaxis.set_major_locator(plt.MaxNLocator(integer=True))  # counts: no 0.5 ticks
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[f]) for f in families]
    # Below the axes, never over a bar.
    axes.legend(
        handles,
        [f.replace("_", " ") for f in families],
        fontsize=8,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.5 / (0.45 * len(names) + 1.4) - 0.12),
        ncol=2,
        frameon=False,
    )
    return figure_png(figure)


def _blind_lines(config: dict[str, Any], counts: BuildCounts) -> list[str]:
    """How many sources the blind check found answerable without their evidence, and how
    many readers answer otherwise."""
    blind = counts.blind_json()
    if not blind["checked"]:
        return []
    methods = ", ".join(blind["by_method"])
    outcomes = "; ".join(f"{n} {what}" for what, n in blind["outcomes"].items())
    contested = (
        f" Contested sources: {blind['contested']}; blind readers of their counterparts"
        " settled on another answer than the gold (validity ledger), so they get no evidence"
        " edit either."
        if blind["contested"]
        else ""
    )
    return [
        f"- Blind check ({methods}; policy `{config.get('blind_policy', 'rewrite')}`):"
        f" {blind['knowledge']} of {blind['checked']} sources are answerable without their"
        " images or document (knowledge, or the question's own text), so removing evidence"
        " cannot make them unanswerable."
        + contested
        + (f" What they became: {outcomes}." if outcomes else "")
        + " Each record's `blind` says why."
    ]


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def refresh_card(root: Path) -> None:
    """Write the card again from what the folder holds now (after ``qc`` or a review):
    its manifest (with the QC rates it records), its journal and its data.jsonl."""
    import json
    from collections import defaultdict

    from .output import RunOutput
    from .summary import count_entries

    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        return
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    counts = count_entries(RunOutput(root).entries())
    rates = (manifest.get("counts") or {}).get("qc")
    if rates:
        counts.qc = defaultdict(Counter)
        for family, block in rates["by_family"].items():
            counts.qc[family].update(block["counts"])
    write_card(root, manifest, counts)


def write_card(root: Path, manifest: dict[str, Any], counts: BuildCounts) -> None:
    """README.md (and the chart) of a built folder, from its manifest, its counts and what
    its data.jsonl (and a finalized review) say of each item's status."""
    from ..media.files import atomic_write
    from ..scoring.items import data_records
    from .validity_card import human_validity, item_statuses

    chart = transform_chart(counts)
    if chart is not None:
        atomic_write(root / CHART_FILE, chart)
    records = list(data_records(root))
    card = dataset_card(
        manifest,
        counts,
        has_chart=chart is not None,
        statuses=item_statuses(records),
        human=human_validity(root, records),
    )
    atomic_write(root / "README.md", card.encode("utf-8"))


def dataset_card(
    manifest: dict[str, Any],
    counts: BuildCounts,
    has_chart: bool,
    statuses: dict[str, dict[str, Any]] | None = None,
    human: dict[str, Counter] | None = None,
) -> str:
    """Markdown that depends only on what was built (no timings), so reruns reproduce it.
    ``statuses`` and ``human`` (see :mod:`.validity_card`) give the Validity section."""
    config = manifest["config"]
    source = manifest["source"]
    totals = counts.to_json()["items"]
    lines = [
        "---",
        "configs:",
        "- config_name: default",
        "  data_files: data.jsonl",
        *card_features_yaml(),
        "---",
        "",
        "# Abstention dataset built with abstain-build",
        "",
        f"Built from **{source['dataset']}** ({source['layout']} layout, {counts.records_in}"
        f" source records) with seed {config['seed']}. Each answerable original is kept as a"
        " control and shares a `group_id` with its unanswerable counterparts.",
        "",
        f"- Items: {totals['answerable']} answerable, {totals['unanswerable']} unanswerable"
        + (
            f", {totals['answer_changed']} answer-changed (a corruption printed one clean new"
            " answer: answerable with it, `kind` = `answer_changed`; by transform: "
            + ", ".join(f"{n} {c}" for n, c in sorted(counts.answer_changed_by_transform.items()))
            + ")."
            if totals.get("answer_changed")
            else "."
        ),
        "- Transform selection: "
        + (
            "routing off (`--no-routing`): every requested transform that fits a sample."
            if config["routing"] == "none"
            else "question-aware routing, one counterpart per sample (the least-used eligible"
            " family first; fallbacks when a transform fails)."
        ),
        *_routing_lines(manifest.get("routing") or {}),
        f"- Generation: {manifest['models']['mode']}.",
        *_usage_lines(manifest["models"].get("usage") or []),
        *_reread_lines(manifest, counts),
        *_blind_lines(config, counts),
        *_verification_lines(manifest, counts),
        "",
        "## Items per subset",
        "",
        _table(
            ["subset", "answerable", "unanswerable"],
            [
                [AXIS_TITLES.get(axis, axis), row["answerable"], row["unanswerable"]]
                for axis, row in counts.to_json()["by_axis"].items()
            ],
        ),
        "",
        "## Unanswerable items per family",
        "",
        _table(["family", "items"], [[f, n] for f, n in sorted(counts.by_family.items())]),
        "",
        "## Unanswerable items per transform",
        "",
        _table(
            ["transform", "family", "items"],
            [[n, counts.family_of[n], c] for n, c in sorted(counts.by_transform.items())],
        ),
        "",
    ]
    if has_chart:
        lines += [f"![Items per transform]({CHART_FILE})", ""]
    lines += _evidence_set_lines(counts)
    lines += validity_lines(manifest, statuses or {}, human)
    lines += _why_missing_lines(counts)
    skipped = sum(counts.skipped.values())
    lines += [
        "## Not included",
        "",
        f"- {skipped} source record(s) skipped"
        + (
            ": " + "; ".join(f"{n} x {reason}" for reason, n in counts.skipped.most_common())
            if skipped
            else "."
        ),
        f"- {counts.samples['error']} record(s) failed entirely and"
        f" {counts.samples['partial']} partly; see `errors.jsonl`.",
        "",
        "## Files",
        "",
        "- `data.jsonl`: one item per line; `kind` is `original`, `counterpart` (unanswerable)"
        " or `answer_changed` (answerable with the new printed value); `answer` is null for"
        " unanswerable items, `original_answer` always holds the source answer. Paths are"
        " relative to this folder.",
        (
            f"- `assets/`: the document evidence pages rendered at {config['dpi']} dpi, and"
            " the PDFs (one copy of each source document, and each perturbed one)."
            if counts.to_json()["by_axis"].get(EVIDENCE)
            else "- `assets/`: the images, as the source gave them and as perturbed."
        ),
        "- `manifest.json`: configuration, source hashes, counts and timings.",
        "- `errors.jsonl`: one line per failed sample or transform, with the stage and reason.",
        "",
        "```python",
        "from abstain_build.export import load_built",
        'ds = load_built("path/to/this/folder")  # images as images',
        "```",
        "",
        "`abstain-build export` writes it as Hub-ready parquet with the images inside.",
        "",
    ]
    return "\n".join(lines)


#: The card's heading for each of ``BuildCounts.why_missing``'s lists.
WHY_MISSING_HEADINGS = {
    "not_applicable": "Not applicable (a transform that could not act on a sample)",
    "blind": "Answerable without the evidence (the blind check's grounds)",
    "qc_rejected": "Rejected by QC (a judge that found the item answerable)",
}


def _why_missing_lines(counts: BuildCounts) -> list[str]:
    """The most frequent reasons samples got fewer items, with counts: a transform's
    other subset is left out (expected, not news), and per-sample details (pages, quoted
    words, measurements) are dropped so that one rule is counted once."""
    why = counts.why_missing()
    if not any(why.values()):
        return []
    lines = [
        "## Why items are missing",
        "",
        f"The {TOP} most frequent reasons of each kind; details of each sample (pages,"
        " quoted words, measurements) are left out, numbers shown as N.",
        "",
    ]
    for kind, heading in WHY_MISSING_HEADINGS.items():
        if why[kind]:
            rows = [[count, reason] for reason, count in why[kind].items()]
            lines += [f"### {heading}", "", _table(["count", "reason"], rows), ""]
    return lines


def _usage_lines(usage: list[dict[str, Any]]) -> list[str]:
    """Model calls of this run, one line per model."""
    return [
        f"- Model calls ({item['model']}, this run): {item['requests']} requests,"
        f" {item['calls']} sent, {item['cache_hits']} from the cache,"
        f" {item['failures']} failed; {item['input_tokens']} input and"
        f" {item['output_tokens']} output tokens."
        for item in usage
    ]


def _routing_lines(routing: dict[str, Any]) -> list[str]:
    """Routing's first choice per subset, with its spread (largest share minus smallest).

    These are plans, not items: the family tables below count what was built, after a
    transform that was not applicable, failed its re-read gate or was rejected by QC
    passed the sample to its next one, and after the blind check."""
    lines = []
    for axis, data in (routing.get("families") or {}).items():
        mix = ", ".join(f"{family} {count}" for family, count in data["counts"].items())
        lines.append(
            f"- Routing's first choice per sample ({AXIS_TITLES.get(axis, axis)}): {mix};"
            f" spread {data['spread']:.0%}. The tables below count what was built: a sample"
            " whose first choice could not act on it moved to its next transform, and a"
            " sample answerable without its evidence gets a question rewrite or nothing."
        )
    return lines


def _reread_lines(manifest: dict[str, Any], counts: BuildCounts) -> list[str]:
    """What a model sees of a document item, and what the re-read gates turned away."""
    gate = counts.to_json()["reread"]
    if not gate:
        return []
    from ..transforms import get_registry

    registry = get_registry()

    def target(name: str) -> str:
        return registry.get(name).target if name in registry else "document"

    documents = {name: v for name, v in gate.items() if target(name) == "document"}
    images = {name: v for name, v in gate.items() if target(name) == "image"}
    lines = []
    if documents:
        context = manifest["config"].get("context", "document")
        seen = (
            "the whole PDF (as MMLongBench-Doc evaluates), so every page that states the"
            " answer is edited"
            if context == "document"
            else "the evidence pages' images only"
        )
        read, failed, detail = _gate_counts(documents)
        lines += [
            f"- Context of document items (`context`): {seen}.",
            f"- Re-read gate: {read} perturbed documents read again (text layer, OCR, OCR"
            " after undoing a blur or darkening) before QC; still answerable (the answer"
            " stated, the rows it is computed from readable, or the pictures a counted or"
            " visual answer is read off left mostly intact), so replaced by the next"
            f" transform: {failed} ({detail}). `abstain-build audit` repeats the check on"
            " the built folder.",
        ]
    if images:
        read, failed, detail = _gate_counts(images)
        lines.append(
            f"- Image re-read gate: {read} perturbed image items read again by OCR (as shipped,"
            " and after a contrast stretch or sharpening where the edit darkened, veiled or"
            " blurred) before QC; an answer-bearing word (the gold, an option, a label the"
            " question names, an operand) read again at its place, so replaced by the next"
            f" transform: {failed} ({detail})."
        )
    return lines


def _gate_counts(gate: dict[str, dict[str, int]]) -> tuple[int, int, str]:
    """Items read, items failed, and the failures per transform."""
    read = sum(v["passed"] + v["failed"] for v in gate.values())
    failed = {name: v["failed"] for name, v in gate.items() if v["failed"]}
    detail = ", ".join(f"{name} {n}" for name, n in failed.items()) or "none"
    return read, sum(failed.values()), detail


def _verification_lines(manifest: dict[str, Any], counts: BuildCounts) -> list[str]:
    """How items were verified, and what QC decided per family."""
    config = manifest["config"]
    if config.get("qc", "none") == "none":
        return [
            "- Verification: structural checks only (`--qc none`), so unanswerable items"
            ' carry `qc.status = "unverified"`.'
        ]
    judges = manifest["models"].get("judges") or []
    reference = all(name.startswith("offline:") for name in judges)
    kind = (
        "offline reference judges (they compare with the original and its answer; they are"
        " checks, not test-takers)"
        if reference
        else "judges that see only the perturbed item"
    )
    qc = counts.to_json()["qc"]
    lines = [
        f"- Verification: {', '.join(f'`{j}`' for j in judges)}, {kind}. Both UNANSWERABLE:"
        " accepted; both ANSWERABLE: rejected (the sample moves to its next transform);"
        " split: flagged for human review, unless a judge read the gold answer on the item"
        " (then rejected); a judge that fails: `qc_error`.",
    ]
    overall = qc["overall"]
    if overall["judged"]:
        rates = ", ".join(
            f"{status} {overall['counts'][status]} ({overall['rates'][status]:.0%})"
            for status in overall["counts"]
        )
        lines.append(f"- QC decisions ({overall['judged']} items judged): {rates}.")
        for family, block in qc["by_family"].items():
            rates = ", ".join(
                f"{status} {block['rates'][status]:.0%}" for status in block["counts"]
            )
            lines.append(f"  - {family}: {block['judged']} judged; {rates}.")
    return lines


def _evidence_set_lines(counts: BuildCounts) -> list[str]:
    """The evidence sets (``--evidence-sets``): items per set, and how alike the
    distractors are to their questions."""
    sets = counts.to_json().get("evidence_sets")
    if not sets:
        return []
    return [
        "## Evidence sets",
        "",
        "Each question also asked with some of its evidence, unedited (`kind` ="
        " `evidence_set`, the set in `evidence_set.name`): `gold` its evidence alone,"
        " `gold+distractors` that among distractors (order drawn from the seed),"
        " `distractors` the distractors alone (unanswerable), `none` the question alone"
        " (answerable only when the blind check says knowledge answers it; so are"
        " `distractors` items then).",
        "",
        "- Documents: the evidence is the evidence pages (the item's PDF holds the pages in"
        " `evidence_set.pages`); distractors are the document's pages most like the"
        " question (MiniLM cosine) that print nothing of the answer: no statement, operand"
        " row or candidate in any channel the evidence map reads.",
        "- Image samples: the evidence is the sample's images; distractors are the first"
        " images of other samples, of the same subject first, whose questions are most"
        " like this one (MiniLM cosine), none of the sample's own images (bytes or"
        " difference hash) and none printing the gold (OCR). `evidence_set.images` says"
        " what each shipped image is; in `gold+distractors` the question's `<image N>`"
        " names the sample's image N where it is shown.",
        "",
        _table(
            ["set", "items", "answerable", "unanswerable", "distractors' mean cosine"],
            [
                [
                    name,
                    row["items"],
                    row["answerable"],
                    row["unanswerable"],
                    "-" if row["mean_score"] is None else f"{row['mean_score']:.3f}",
                ]
                for name, row in sets.items()
            ],
        ),
        "",
    ]
