"""The schema of a data.jsonl row, declared once.

Readers that infer types block by block (Arrow, Hugging Face ``datasets``) can otherwise
see ``[]`` in one block and a list of structs in the next and give up. The dataset card
carries this schema as ``dataset_info.features``, so ``load_dataset(OUT_DIR)`` reads every
row with the same types; :func:`hf_features` gives the same for
``load_dataset("json", data_files=..., features=hf_features())``.

Types: a string names a primitive, a one-item list is a list of that type, a dict is a
struct. Every field may be null.
"""

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = 10

#: Values of a record's ``kind``.
ORIGINAL = "original"
COUNTERPART = "counterpart"
ANSWER_CHANGED = "answer_changed"
EVIDENCE_SET = "evidence_set"
KINDS = (ORIGINAL, COUNTERPART, ANSWER_CHANGED, EVIDENCE_SET)

#: The evidence sets a sample can get (``--evidence-sets``), in record order.
EVIDENCE_SETS = ("gold", "gold+distractors", "distractors", "none")


def record_kind(record: dict[str, Any]) -> str:
    """A row's kind; rows written before ``kind`` existed are originals or counterparts."""
    kind = record.get("kind")
    if kind in KINDS:
        return str(kind)
    return ORIGINAL if record.get("answerable") else COUNTERPART


_REGION = {
    "bbox": ["float64"],
    "kind": "string",
    "image": "int64",
    "page": "int64",
    "unit": "string",
    "detector": "string",
    "role": "string",
}
_TOKEN = {
    "old": "string",
    "new": "string",
    "where": "string",
    "start": "int64",
    "end": "int64",
    "page": "int64",
    "bbox": ["float64"],
}
_CHECK = {"name": "string", "passed": "bool", "detail": "string"}
_STATEMENT = {
    "page": "int64",
    "channel": "string",
    "text": "string",
    "form": "string",
    "status": "string",
    "listed": "bool",
    "anchors": ["string"],
    "bbox": ["float64"],
}
#: An answer-bearing word of an image read again by the image re-read gate.
_READ_AGAIN = {
    "image": "int64",
    "channel": "string",
    "text": "string",
    "why": "string",
    "bbox": ["float64"],
}
_JUDGE = {
    "judge": "string",
    "verdict": "string",
    "confidence": "string",
    "justification": "string",
    "kind": "string",
    "score": "float64",
    "found": "string",
    #: The answer a model judge gave, and how it grades against the gold.
    "answer": "string",
    "answer_grade": "string",
}

RECORD: dict[str, Any] = {
    "id": "string",
    "group_id": "string",
    "answerable": "bool",
    #: "original" (the source item), "counterpart" (made unanswerable), "answer_changed"
    #: (an edit gave it a new printed answer: answerable, ``answer`` is the new gold) or
    #: "evidence_set" (the question with some pages of its document: ``evidence_set``).
    "kind": "string",
    "axis": "string",
    "question": "string",
    "options": ["string"],
    "answer": "string",
    "original_answer": "string",
    "answer_format": "string",
    "images": ["string"],
    "document": "string",
    #: What was removed from a document's PDF before it shipped (active content: see
    #: ``abstain_build.media.pdf_sanitise``), e.g. "javascript: 2"; empty when nothing was.
    "sanitised": ["string"],
    "context": "string",
    "evidence_pages": ["int64"],
    #: An evidence-set item's set ("gold", "gold+distractors", "distractors", "none"); for
    #: a document, the pages its PDF holds, in that order; for an image sample, what each
    #: of its images is ("image_1": the sample's own; "ID/image_1": sample ID's, a
    #: distractor); and the distractors among them (a page, or the sample that lent the
    #: image and whether it shares the subject; rank by similarity to the question,
    #: cosine); null for every other item.
    "evidence_set": {
        "name": "string",
        "pages": ["int64"],
        "images": ["string"],
        "distractors": [
            {
                "page": "int64",
                "sample": "string",
                "rank": "int64",
                "score": "float64",
                "same_subject": "bool",
            }
        ],
    },
    "transform": {
        "name": "string",
        "version": "int64",
        "family": "string",
        "axis": "string",
        "target": "string",
        "mode": "string",
        "seed": "int64",
        "attempt": "int64",
        "params": "string",  # JSON text: keys differ between transforms
        "edits": {
            "regions": [_REGION],
            "tokens": [_TOKEN],
            "pages_hidden": ["int64"],
            "pages_cropped": [{"page": "int64", "kept": "string", "reason": "string"}],
        },
        "intensity": "float64",
        "notes": ["string"],
        "rewrite": {
            "generator": "string",
            "template": "string",
            "attempts": "int64",
            "gates": [{"name": "string", "passed": "bool", "score": "float64", "detail": "string"}],
            "model": {
                "requests": "int64",
                "input_tokens": "int64",
                "output_tokens": "int64",
            },
        },
        "replay": "string",  # JSON text: what apply reads beyond params and edits
    },
    "routing": {
        "mode": "string",
        "candidates": ["string"],
        "score": "float64",
        "reason": "string",
        "dependency": "string",
        "evidence_type": "string",
        "classifier": "string",
        "eligible": ["string"],
        "relaxed": "bool",
        "scores": "string",  # JSON text: {transform: score}
        "attempts": [{"transform": "string", "reason": "string"}],
    },
    "blind": {
        "method": "string",
        "verdict": "string",
        "evidence": ["string"],
        "accuracy": "float64",
        "agreement": "float64",
    },
    "evidence": {
        "map": {
            "gold_forms": ["string"],
            "anchors": ["string"],
            "pages_read": "int64",
            "channels": ["string"],
            "statements": [_STATEMENT],
            "statement_pages": ["int64"],
            "other_mentions": "int64",
            "operands": [_STATEMENT],
            "related_pages": ["int64"],
            "named_figures": [{"page": "int64", "bbox": ["float64"]}],
            "notes": ["string"],
        },
        "reread": {
            "policy": "string",
            "passed": "bool",
            "pages_read": "int64",
            "pages_reread": ["int64"],
            "channels": ["string"],
            "found": [_STATEMENT],
            "untouched": ["string"],
            "derived": [{"page": "int64", "channel": "string", "rule": "string", "how": "string"}],
            "images_read": "int64",
            "read_again": [_READ_AGAIN],
            "detail": "string",
        },
    },
    "qc": {
        "status": "string",
        "preliminary": {"passed": "bool", "checks": [_CHECK]},
        "judges": [_JUDGE],
        "self_check": "string",  # JSON text: the model's attempt (LLM mode)
        "rejected": [{"transform": "string", "reason": "string", "judges": [_JUDGE]}],
        #: The validity policy's word (SPEC 8): the transform's measured validity at the
        #: version that made the item, the cell it was judged by, and whether it cleared.
        "validity": {
            "transform_version": "int64",
            "mode": "string",
            "cell": "string",
            "n": "int64",
            "valid": "int64",
            "unanswerable": "int64",
            "conflicting": "int64",
            "estimate": "float64",
            "low": "float64",
            "high": "float64",
            "source": ["string"],
            "min_validity": "float64",
            "applied": "bool",
            "clears": "bool",
            "held": "bool",
            "reason": "string",
            "ledger": "string",
        },
        "human": {
            "label": "string",
            "outcome": "string",
            "votes": [{"annotator": "string", "vote": "string"}],
            "reason": "string",
            "status_before": "string",
        },
    },
    "source": {
        "dataset": "string",
        "layout": "string",
        "file": "string",
        "index": "int64",
        "id": "string",
        "doc_id": "string",
    },
    "metadata": "string",  # JSON text: keys differ between sources
}

_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "bool": (bool,),
    "int64": (int,),
    "float64": (int, float),
}


def schema_errors(value: Any, spec: Any = None, path: str = "") -> list[str]:
    """Where ``value`` departs from the schema (empty when it conforms)."""
    spec = RECORD if spec is None else spec
    if value is None:
        return []
    if isinstance(spec, str):
        allowed = _PYTHON_TYPES[spec]
        if isinstance(value, bool) and spec != "bool":
            return [f"{path or '.'}: expected {spec}, got bool"]
        return (
            []
            if isinstance(value, allowed)
            else [f"{path or '.'}: expected {spec}, got {type(value).__name__}"]
        )
    if isinstance(spec, list):
        if not isinstance(value, list):
            return [f"{path}: expected a list, got {type(value).__name__}"]
        return [
            e for i, item in enumerate(value) for e in schema_errors(item, spec[0], f"{path}[{i}]")
        ]
    if not isinstance(value, dict):
        return [f"{path}: expected an object, got {type(value).__name__}"]
    errors = [f"{path}.{key}: not in the schema" for key in value if key not in spec]
    errors += [f"{path}.{key}: missing" for key in spec if key not in value]
    for key, sub in spec.items():
        if key in value:
            errors += schema_errors(value[key], sub, f"{path}.{key}")
    return errors


def _yaml_feature(name: str, spec: Any, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(spec, str):
        return [f"{pad}- name: {name}", f"{pad}  dtype: {spec}"]
    if isinstance(spec, list):
        inner = spec[0]
        if isinstance(inner, str):
            return [f"{pad}- name: {name}", f"{pad}  list: {inner}"]
        lines = [f"{pad}- name: {name}", f"{pad}  list:"]
        for key, sub in inner.items():
            lines += _yaml_feature(key, sub, indent + 2)
        return lines
    lines = [f"{pad}- name: {name}", f"{pad}  struct:"]
    for key, sub in spec.items():
        lines += _yaml_feature(key, sub, indent + 2)
    return lines


def card_features_yaml() -> list[str]:
    """``dataset_info.features`` lines for the dataset card's YAML header."""
    lines = ["dataset_info:", "  features:"]
    for key, spec in RECORD.items():
        lines += _yaml_feature(key, spec, 2)
    return lines


def hf_features() -> Any:
    """The schema as ``datasets.Features`` (needs the ``datasets`` package)."""
    from datasets import Features, List, Value

    def convert(spec: Any) -> Any:
        if isinstance(spec, str):
            return Value(spec)
        if isinstance(spec, list):
            return List(convert(spec[0]))
        return {key: convert(sub) for key, sub in spec.items()}

    return Features(convert(RECORD))
