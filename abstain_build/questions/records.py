"""Reading only the questions of a source, for classification and routing statistics.

The loaders refuse records whose images or documents are missing, which is right for a
build but loses the question. Classification needs only the text, the options and how
many images the question refers to, so this reads every record through the loaders' own
``records()`` (same ids, same file parsing) and keeps whatever has a question.

Decisions:

- The axis comes from the layout: MMLongBench-Doc records are ``evidence_sufficiency``,
  MMMU records ``modality_dependency``; a generic JSONL record is ``evidence_sufficiency``
  when it names a PDF (``pdf``, ``doc_id`` or ``evidence_pages``), else
  ``modality_dependency``.
- ``n_images`` is the number of images the record has, or, when it has none on disk (a
  question-only file), the number of distinct ``<image N>`` placeholders in its question
  and options. Documents have 0.
- Records the source marks as already unanswerable ("Not answerable") are read and
  flagged ``answerable=False``: their question type is still a property of the question.
- A record without a question string is yielded with ``error`` set, so a caller can count
  it; unparseable options become no options, with a ``note``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SampleError
from ..loaders import JsonlSource, MMLongBenchSource, MMMUParquetSource, Source, open_source
from ..loaders.base import RawRecord
from ..loaders.common import parse_list, resolve_inside
from ..loaders.jsonl import UNANSWERABLE_MARKERS
from ..loaders.mmlongbench import NOT_ANSWERABLE
from ..loaders.mmmu import MAX_IMAGES
from ..model import EVIDENCE, MODALITY, Axis, ImageRef, SourceInfo

PLACEHOLDER = re.compile(r"<image\s*(\d+)>", re.IGNORECASE)
_DOCUMENT_KEYS = ("pdf", "doc_id", "evidence_pages")


@dataclass(frozen=True)
class QuestionRecord:
    """What classification needs of one source record."""

    id: str
    axis: Axis
    question: str
    options: tuple[str, ...]
    n_images: int
    source: SourceInfo
    answerable: bool = True
    #: Images present on disk or in the record (LLM mode shows them); may be empty.
    images: tuple[ImageRef, ...] = ()
    error: str | None = None
    note: str | None = None


def placeholder_numbers(*texts: str) -> set[int]:
    """The N of every ``<image N>`` in ``texts``."""
    return {int(n) for text in texts for n in PLACEHOLDER.findall(text)}


def iter_questions(
    path: str | Path, format: str | None = None, *, limit: int | None = None
) -> Iterator[QuestionRecord]:
    """Every record of the source at ``path`` (layout detected unless ``format`` is given)."""
    source = open_source(path, format)
    for position, raw in enumerate(source.records()):
        if limit is not None and position >= limit:
            return
        yield _question(source, raw)


def source_label(path: str | Path, format: str | None = None) -> tuple[str, str]:
    """(dataset, layout) of the source, for headers."""
    source = open_source(path, format)
    return source.dataset, source.layout


def _question(source: Source, raw: RawRecord) -> QuestionRecord:
    record = raw.record
    axis = _axis(source, record)
    question = record.get("question")
    if not isinstance(question, str) or not question.strip():
        reason = raw.error.reason if raw.error is not None else "the record has no question"
        return QuestionRecord(raw.sample_id, axis, "", (), 0, raw.source, error=reason)
    note = None
    try:
        options = tuple(str(o) for o in parse_list(record.get("options"), "options"))
    except SampleError as exc:
        options, note = (), exc.reason
    images = _images(source, raw) if axis == MODALITY else ()
    referenced = placeholder_numbers(question, *options)
    n_images = 0 if axis == EVIDENCE else max(len(images), len(referenced))
    return QuestionRecord(
        id=raw.sample_id,
        axis=axis,
        question=question.strip(),
        options=options,
        n_images=n_images,
        source=raw.source,
        answerable=_answerable(source, record),
        images=images,
        note=note,
    )


def _axis(source: Source, record: dict[str, Any]) -> Axis:
    if isinstance(source, MMLongBenchSource):
        return EVIDENCE
    if isinstance(source, JsonlSource) and any(record.get(key) for key in _DOCUMENT_KEYS):
        return EVIDENCE
    return MODALITY


def _answerable(source: Source, record: dict[str, Any]) -> bool:
    answer = str(record.get("answer", "")).strip().lower()
    if isinstance(source, MMLongBenchSource):
        return answer != NOT_ANSWERABLE
    if isinstance(source, MMMUParquetSource):
        return True
    return answer not in UNANSWERABLE_MARKERS


def _images(source: Source, raw: RawRecord) -> tuple[ImageRef, ...]:
    """The record's images that can actually be read; missing ones are left out quietly."""
    record = raw.record
    if isinstance(source, JsonlSource):
        try:
            paths = [str(p) for p in parse_list(record.get("images"), "images")]
        except SampleError:
            return ()
        keys = [f"image_{n}" for n in range(1, len(paths) + 1)]
    else:
        keys = [f"image_{n}" for n in range(1, MAX_IMAGES + 1) if record.get(f"image_{n}")]
        paths = [record[key] for key in keys]
    refs: list[ImageRef] = []
    for key, value in zip(keys, paths, strict=True):
        if isinstance(value, dict):  # a parquet cell {bytes, path}
            if value.get("bytes"):
                refs.append(ImageRef(key=key, data=value["bytes"], name=value.get("path")))
                continue
            value = value.get("path")
        if not isinstance(value, str) or not value:
            continue
        base = raw.file.parent
        try:
            refs.append(ImageRef(key=key, path=resolve_inside(source.root, value, key, base)))
        except SampleError:
            continue
    return tuple(refs)
