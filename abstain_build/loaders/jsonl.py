"""Generic JSONL: one record per line with question, answer and images and/or a PDF.

Schema (README, "Bring your own data")::

    {"id": "optional-stable-id",
     "question": "What was revenue in 2019?",          # required, non-empty
     "answer": "12.5",                                 # required (string, number or list)
     "options": ["A ...", "B ..."],                    # optional
     "images": ["images/chart.png"],                   # paths relative to the JSONL file, or
     "pdf": "docs/report.pdf", "evidence_pages": [3],  # a PDF with 1-based evidence pages
     "answer_format": "Float",                         # optional
     "metadata": {...}}                                # optional, carried through
"""

from __future__ import annotations

import abc
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import SampleError
from ..model import DocumentRef, ImageRef, Sample, SourceInfo
from .base import RawRecord, Source
from .common import (
    IdAllocator,
    checked_metadata,
    content_id,
    given_id,
    load_error,
    option_texts,
    optional_format,
    parse_list,
    parse_pages,
    placeholder_numbers,
    required_answer,
    required_question,
    resolve_inside,
    surrogate_in_id,
)

UNANSWERABLE_MARKERS = {"not answerable", "unanswerable"}


def iter_json_lines(
    path: Path,
) -> Iterator[tuple[int, int, dict[str, Any], SampleError | None]]:
    """(record index, 1-based line number, record, error) for every non-blank line."""
    for index, (line_number, raw) in enumerate(_lines(path)):
        record, error = _parse_line(raw, line_number)
        yield index, line_number, record, error


def _parse_line(raw: bytes, line_number: int) -> tuple[dict[str, Any], SampleError | None]:
    """One line's JSON object, or the reason it is none (not UTF-8, malformed, not an object)."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return {}, load_error(
            f"line {line_number}: not valid UTF-8 (byte 0x{raw[exc.start]:02x} at byte"
            f" {exc.start}); save the file as UTF-8"
        )
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as exc:
        return {}, load_error(f"line {line_number}: malformed JSON ({exc})")
    if not isinstance(record, dict):
        return {}, load_error(
            f"line {line_number}: expected a JSON object, got {type(record).__name__}"
        )
    return record, None


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, bytes) of every non-blank line; a UTF-8 byte-order mark at the
    start of the file is dropped. Bytes, so that a line that is not UTF-8 is reported, not
    silently repaired."""
    with path.open("rb") as handle:
        for line_number, line in enumerate(handle, start=1):
            if line_number == 1 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if line.strip():
                yield line_number, line


def count_json_lines(path: Path) -> int:
    """The number of records ``iter_json_lines`` yields: lines read and stripped the same way."""
    return sum(1 for _ in _lines(path))


class JsonLinesSource(Source):
    """One record per line; a malformed line becomes an error record and reading goes on."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.file = path

    def record_files(self) -> list[Path]:
        return [self.file]

    def count(self) -> int:
        return count_json_lines(self.file)

    def records(self) -> Iterator[RawRecord]:
        ids = IdAllocator()
        relative = self.relative(self.file)
        for index, line_number, record, error in iter_json_lines(self.file):
            info = SourceInfo(self.dataset, self.layout, relative, index, given_id(record))
            if error is not None:
                yield RawRecord(ids(f"line-{line_number:05d}"), info, self.file, record, error)
                continue
            sample_id = ids(info.source_id or self._wanted_id(record, line_number))
            yield RawRecord(sample_id, info, self.file, record)

    def marked_unanswerable(self, record: dict[str, Any]) -> str | None:
        if str(record.get("answer", "")).strip().lower() in UNANSWERABLE_MARKERS:
            return "already unanswerable in the source"
        return None

    def sample(self, raw: RawRecord) -> Sample:
        return self._sample(raw.sample_id, raw.record, raw.source)

    @abc.abstractmethod
    def _wanted_id(self, record: dict[str, Any], line_number: int) -> str:
        """An id for a record that has none of its own."""

    @abc.abstractmethod
    def _sample(self, sample_id: str, record: dict[str, Any], info: SourceInfo) -> Sample:
        """The sample a record describes; raises ``SampleError`` with a clear reason."""


class JsonlSource(JsonLinesSource):
    dataset = "jsonl"
    layout = "jsonl"

    def _wanted_id(self, record: dict[str, Any], line_number: int) -> str:
        return content_id(
            "item",
            record.get("question"),
            record.get("answer"),
            record.get("pdf"),
            record.get("images"),
        )

    def _sample(self, sample_id: str, record: dict[str, Any], info: SourceInfo) -> Sample:
        missing = [key for key in ("question", "answer") if key not in record]
        if missing:
            raise load_error(f"missing required field(s): {', '.join(missing)}")
        surrogate_in_id(record)
        question = required_question(record)
        image_paths = parse_list(record.get("images"), "images")
        images = tuple(
            ImageRef(
                key=f"image_{n}",
                path=resolve_inside(self.root, p, f"images[{n - 1}]"),
                name=Path(str(p)).name,
            )
            for n, p in enumerate(image_paths, start=1)
        )
        document = None
        pages: tuple[int, ...] = ()
        if record.get("pdf"):
            pdf = resolve_inside(self.root, record["pdf"], "pdf")
            document = DocumentRef(path=pdf, doc_id=Path(str(record["pdf"])).name)
            pages = parse_pages(record.get("evidence_pages"))
            if not pages:
                raise load_error("a record with a pdf needs evidence_pages (1-based)")
        if not images and document is None:
            raise load_error("the record has neither images nor a pdf")
        options = option_texts(record.get("options"))
        referred = placeholder_numbers(question, *options)  # the MMMU layouts check this too
        beyond = sorted(n for n in referred if n > len(images))
        if beyond:
            raise load_error(
                "the text refers to "
                + ", ".join(f"<image {n}>" for n in beyond)
                + f" but the record has {len(images)} image(s)"
            )
        if images and document is not None:
            raise load_error("a record has images or a pdf, not both")
        metadata = record.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise load_error("metadata must be a JSON object")
        return Sample(
            id=sample_id,
            source=info,
            question=question.strip(),
            answer=required_answer(record),
            answer_format=optional_format(record),
            options=options,
            images=images,
            document=document,
            evidence_pages=pages,
            metadata=checked_metadata(metadata),
        )
