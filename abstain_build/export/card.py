"""The exported dataset's card: Hub metadata in YAML, then the build's own card.

The license is the source's (a derived dataset keeps its source's terms): MMMU is
Apache-2.0, MMLongBench-Doc CC BY-NC 4.0; a generic source takes ``--license`` (else
``unknown``, which the Hub accepts and which says that nobody checked).
"""

from __future__ import annotations

from typing import Any

from .shards import DATA_DIR, SPLITS, SplitFiles

#: source dataset name -> (license, Hub id of the source)
SOURCES = {
    "mmmu": ("apache-2.0", "MMMU/MMMU"),
    "mmlongbench-doc": ("cc-by-nc-4.0", "yubo2333/MMLongBench-Doc"),
}
DESCRIPTIONS = {
    "original": "the answerable source items, kept as controls",
    "counterpart": "the unanswerable counterparts, one or more per control (same `group_id`)",
    "answer_changed": "items an edit gave one clean new printed answer (answerable, new gold)",
}


def size_category(n: int) -> str:
    """The Hub's size bucket for ``n`` records."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M" if n < 1_000_000 else "n>1M"


def _yaml_list(key: str, values: list[str]) -> list[str]:
    return [f"{key}:", *(f"- {value}" for value in values)]


def export_card(
    manifest: dict[str, Any],
    splits: dict[str, SplitFiles],
    built_card: str,
    license: str | None,
    has_documents: bool,
    shipped_documents: bool,
    shipped_errors: bool = False,
) -> str:
    source = manifest.get("source") or {}
    dataset = str(source.get("dataset") or "")
    known_license, hub_id = SOURCES.get(dataset, ("unknown", None))
    chosen = license or known_license
    documents = has_documents
    tasks = ["visual-question-answering"] + (["document-question-answering"] if documents else [])
    total = sum(files.records for files in splits.values())
    pretty = f"{dataset or 'custom'} abstention counterparts (abstain-build)"
    lines = [
        "---",
        f"license: {chosen}",
        f"pretty_name: {pretty}",
        *_yaml_list("task_categories", tasks),
        *_yaml_list("language", ["en"]),
        *_yaml_list("size_categories", [size_category(total)]),
        *_yaml_list(
            "tags",
            ["abstention", "unanswerable-questions", "multimodal", "benchmark", "abstain-build"],
        ),
        *(_yaml_list("source_datasets", [hub_id]) if hub_id else []),
        "configs:",
        "- config_name: default",
        "  data_files:",
    ]
    for name in SPLITS:
        if name in splits:
            lines += [f"  - split: {name}", f"    path: {DATA_DIR}/{name}-*.parquet"]
    lines += ["---", ""]
    body = _body(built_card)
    rows = [
        f"| `{name}` | {splits[name].records} | {DESCRIPTIONS[name]} |"
        for name in SPLITS
        if name in splits
    ]
    lines += [
        body.rstrip(),
        "",
        "## Files and loading",
        "",
        "| split | records | holds |",
        "|---|---|---|",
        *rows,
        "",
        "```python",
        "from datasets import load_dataset",
        'ds = load_dataset("PATH_OR_REPO")',
        'ds["counterpart"][0]["images"][0]  # a PIL image',
        "```",
        "",
        "`images` holds the images (or the evidence pages) each item shows, as image bytes."
        + (
            " `document` is the path of the item's PDF under `documents/` (each PDF is stored"
            " once, not once per record)."
            if shipped_documents
            else " The PDFs are not included (`document` is null): `images` holds the"
            " evidence pages a model is shown."
            if documents
            else ""
        )
        + (
            " `errors.jsonl` lists the source records that failed, entirely or in part, with"
            " the stage and the reason."
            if shipped_errors
            else ""
        ),
        f"The source's license applies: {chosen}.",
        "",
    ]
    return "\n".join(lines)


#: Sections of the build's card that describe the build folder, not the export.
BUILD_ONLY_SECTIONS = ("## Files",)


def _body(card: str) -> str:
    """The built card without its YAML front matter (which names data.jsonl) and without
    the sections about the build folder's files (``data.jsonl``, ``assets/``, ...)."""
    if card.startswith("---\n"):
        end = card.find("\n---\n", 4)
        if end >= 0:
            card = card[end + 5 :].lstrip("\n")
    kept: list[str] = []
    skipping = False
    for line in card.splitlines():
        if line.startswith("## "):
            skipping = line.strip() in BUILD_ONLY_SECTIONS
        if not skipping:
            kept.append(line)
    return "\n".join(kept)
