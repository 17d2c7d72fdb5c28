"""The exported dataset's card: Hub metadata in YAML, then the build's own card, how to
load it, every field, and how to cite it.

The license is the source's (a derived dataset keeps its source's terms): MMMU is
Apache-2.0, MMLongBench-Doc CC BY-NC 4.0; a generic source takes ``--license`` (else
``unknown``, which the Hub accepts and which says that nobody checked).
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import ConfigError
from ..models.spec import ModelSpec, hide_endpoints, parse_spec
from .citation import METHOD_BIBTEX, dataset_bibtex
from .columns import columns_table
from .shards import DATA_DIR, SPLITS, SplitFiles, export_features

#: source dataset name -> (license, Hub id of the source)
SOURCES = {
    "mmmu": ("apache-2.0", "MMMU/MMMU"),
    "mmlongbench-doc": ("cc-by-nc-4.0", "yubo2333/MMLongBench-Doc"),
}
DESCRIPTIONS = {
    "original": "the answerable source items, kept as controls",
    "counterpart": "the unanswerable counterparts, one or more per control (same `group_id`)",
    "answer_changed": "items an edit gave one clean new printed answer (answerable, new gold)",
    "evidence_set": "questions asked with some of their evidence, unedited (`evidence_set`:"
    " gold, gold+distractors, distractors (unanswerable), none)",
}


def size_category(n: int) -> str:
    """The Hub's size bucket for ``n`` records."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M" if n < 1_000_000 else "n>1M"


def hub_metadata(
    splits: dict[str, SplitFiles], license: str, tasks: list[str], pretty: str, source: str | None
) -> str:
    """The card's YAML, written as ``datasets`` writes it on ``push_to_hub``: the Hub fields,
    ``dataset_info`` (the features of the shards as written, each split's ``num_examples``
    and ``num_bytes``) and one config whose splits point at the shards."""
    from datasets import DatasetInfo, SplitDict, SplitInfo
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCardData

    total = sum(files.records for files in splits.values())
    data = DatasetCardData(
        license=license,
        pretty_name=pretty,
        task_categories=tasks,
        language=["en"],
        size_categories=[size_category(total)],
        tags=["abstention", "unanswerable-questions", "multimodal", "benchmark", "abstain-build"],
        source_datasets=[source] if source else None,
    )
    sizes = SplitDict()
    for files in splits.values():
        sizes.add(SplitInfo(name=files.name, num_bytes=files.num_bytes, num_examples=files.records))
    info = DatasetInfo(
        features=export_features(),
        splits=sizes,
        download_size=sum(files.file_bytes for files in splits.values()),
        dataset_size=sum(files.num_bytes for files in splits.values()),
    )
    DatasetInfosDict({"default": info}).to_dataset_card_data(data)
    data["configs"] = [
        {
            "config_name": "default",
            "data_files": [
                {"split": name, "path": f"{DATA_DIR}/{name}-*.parquet"} for name in splits
            ],
        }
    ]
    return data.to_yaml()


def loading_call(repo: str | None, local: str) -> str:
    """The ``load_dataset`` call that opens this export: from the Hub when it is pushed
    there, else from ``local`` (its folder)."""
    if repo:
        return f"load_dataset({json.dumps(repo)})"
    return f'load_dataset("parquet", data_dir={json.dumps(local)})'


def export_card(
    manifest: dict[str, Any],
    splits: dict[str, SplitFiles],
    built_card: str,
    license: str | None,
    has_documents: bool,
    shipped_documents: bool,
    *,
    repo: str | None = None,
    local: str = ".",
    shipped_errors: bool = False,
) -> str:
    """The export's README.md. ``repo``: the Hub dataset it is pushed to; ``local``: its
    folder, as the loading example names it when it is not pushed."""
    source = manifest.get("source") or {}
    dataset = str(source.get("dataset") or "")
    known_license, hub_id = SOURCES.get(dataset, ("unknown", None))
    chosen = license or known_license
    documents = has_documents
    tasks = ["visual-question-answering"] + (["document-question-answering"] if documents else [])
    pretty = f"{dataset or 'custom'} abstention counterparts (abstain-build)"
    lines = ["---", hub_metadata(splits, chosen, tasks, pretty, hub_id), "---", ""]
    # Published: models by provider and name, never the server they were called at.
    body = hide_endpoints(_body(built_card))
    rows = [
        f"| `{name}` | {splits[name].records} | {DESCRIPTIONS[name]} |"
        for name in SPLITS
        if name in splits
    ]
    lines += [
        body.rstrip(),
        "",
        *model_lines(manifest),
        "## Intended use",
        "",
        "For evaluating whether a model abstains when the evidence does not support an"
        " answer. Not for training: a model trained on these items learns the edits that"
        " made them (masks, blur, rewritten phrasing) rather than when evidence is missing,"
        " and the benchmark stops measuring anything for it.",
        "",
        "## Files and loading",
        "",
        "| split | records | holds |",
        "|---|---|---|",
        *rows,
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f"ds = {loading_call(repo, local)}",
        'ds["counterpart"][0]["images"][0]  # a PIL image',
        "```",
        "",
        ("" if repo else "The path is relative to the folder the export ran from. ")
        + "`images` holds the images (or the evidence pages) each item shows, as image bytes."
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
        "## Fields",
        "",
        *columns_table(export_features()),
        "",
        "## Citation",
        "",
        "Cite the dataset and the paper that describes the method that built it"
        + (f" (and the source dataset, `{hub_id}`):" if hub_id else ":"),
        "",
        "```bibtex",
        dataset_bibtex(pretty, hub_id, repo),
        "",
        METHOD_BIBTEX,
        "```",
        "",
    ]
    return "\n".join(lines)


#: What each model setting of a build did, for the card's list of models.
MODEL_ROLES = (("llm", "question rewrites"), ("blind_gate", "blind check"), ("judges", "QC judge"))


def model_lines(manifest: dict[str, Any]) -> list[str]:
    """The models the build called, each by provider and name with the kind of server that
    answered ("a local OpenAI-compatible server"), never its address; nothing when none."""
    config = manifest.get("config") or {}
    roles: dict[ModelSpec, list[str]] = {}
    for key, role in MODEL_ROLES:
        given = config.get(key)
        for text in given if isinstance(given, list) else [given]:
            try:
                spec = parse_spec(text) if isinstance(text, str) else None
            except ConfigError:
                spec = None  # a registered judge (offline:leak), not a model
            if spec is not None:
                roles.setdefault(spec, []).append(role)
    if not roles:
        return []
    return [
        "## Models",
        "",
        *(
            f"- `{spec.name}` ({', '.join(dict.fromkeys(done))}): {spec.server}."
            for spec, done in roles.items()
        ),
        "",
    ]


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
