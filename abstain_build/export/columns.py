"""The card's field table: every exported column, its type and what it holds.

The types are read off the ``datasets.Features`` the shards are written with, so the table
cannot drift from the data; only the meanings are written here.
"""

from __future__ import annotations

from typing import Any

#: column -> what it holds, in the export (images embedded, documents under documents/).
MEANINGS = {
    "id": "`<group_id>/original` for a control, `<group_id>/<transform>` for an item made from it",
    "group_id": "shared by a control and the items made from it: pairs the splits again",
    "answerable": "`true` for controls and answer-changed items, `false` for counterparts",
    "kind": "`original`, `counterpart`, `answer_changed` or `evidence_set`: the split the row"
    " is in",
    "axis": "`modality_dependency` (image items) or `evidence_sufficiency` (document items)",
    "question": "the question as a model is asked it (question transforms rewrite it)",
    "options": "the answer options of a multiple-choice item, as shown; empty otherwise",
    "answer": "the gold answer (for an answer-changed item, the new printed value);"
    " null for unanswerable items",
    "original_answer": "the source's answer, on every row",
    "answer_format": "the source's answer type (MMLongBench-Doc: `Int`, `Float`, `Str`,"
    " `List`); null when the source has none",
    "images": "the images a model is shown, embedded (for documents: the evidence pages, rendered)",
    "document": "the item's PDF, as a path under `documents/` relative to this folder; null"
    " for image items and when the PDFs are not included",
    "sanitised": "what was removed from the PDF before it shipped (JavaScript, actions that"
    " open files, addresses or other documents, embedded files, XFA forms), e.g."
    " `javascript: 2`; empty when nothing was, null for image items",
    "context": "what a model is meant to see: `document` (the whole PDF), `pages` (the"
    " evidence pages in `images`) or `images`",
    "evidence_pages": "the 1-based pages of the document that hold the evidence",
    "evidence_set": "evidence-set rows: the set (`gold`, `gold+distractors`, `distractors`,"
    " `none`), the source pages the row's PDF and images hold (documents) or what each"
    " image is (image samples: its own, or the sample that lent it), and each distractor's"
    " rank and cosine with the question; null for other rows",
    "transform": "null for controls; else what made the item: `name`, `family`, `axis`,"
    " `target`, `mode`, `seed`, `attempt`, `params` (JSON text), `edits` (regions, tokens,"
    " pages hidden or cropped), `intensity`, `notes`, `rewrite`",
    "routing": "null for controls; else why this transform was chosen: `candidates` in"
    " order, their `scores` (JSON text), the `attempts` that failed first",
    "blind": "the blind check on the source: whether its question is answerable without"
    " the images or document, and the cues or blind answers that say so",
    "evidence": "where the answer is stated on each page of a document (`map`) and, for"
    " counterparts, what the re-read gate found after the edit (`reread`)",
    "qc": "verification: `status` (`control` for originals, else e.g. `accepted` or"
    " `flagged`), structural checks, judge verdicts, measured validity, human labels",
    "source": "the source record: dataset, layout, file, index, id, document id",
    "metadata": "the source's own metadata as JSON text (MMMU subfield and image type;"
    " MMLongBench-Doc doc_type and evidence_sources)",
}


def type_name(feature: Any) -> str:
    """A feature's type as the card's YAML spells it: ``string``, ``list<image>``, ``struct``."""
    from datasets import Image, List, Value

    if isinstance(feature, Value):
        return str(feature.dtype)
    if isinstance(feature, Image):
        return "image"
    if isinstance(feature, List):
        return f"list<{type_name(feature.feature)}>"
    if isinstance(feature, dict):
        return "struct"
    return type(feature).__name__


def columns_table(features: Any) -> list[str]:
    """Markdown rows for every column of ``features``, in order."""
    rows = ["| column | type | holds |", "|---|---|---|"]
    rows += [
        f"| `{name}` | `{type_name(feature)}` | {MEANINGS[name]} |"
        for name, feature in features.items()
    ]
    return rows
