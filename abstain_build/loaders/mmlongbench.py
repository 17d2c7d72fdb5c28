"""MMLongBench-Doc as published: ``samples.json`` (a JSON list) beside ``documents/``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..model import DocumentRef, Sample, SourceInfo
from .base import RawRecord, Source
from .common import (
    IdAllocator,
    checked_metadata,
    checked_text,
    content_id,
    load_error,
    optional_format,
    parse_list,
    parse_pages,
    required_answer,
    required_question,
    resolve_inside,
)

NOT_ANSWERABLE = "not answerable"
REQUIRED = ("doc_id", "question", "answer", "evidence_pages")


class MMLongBenchSource(Source):
    dataset = "mmlongbench-doc"
    layout = "mmlongbench"

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.samples_file = path if path.is_file() else path / "samples.json"
        self.documents = self.root / "documents"
        self._records: list[Any] | None = None

    def _load(self) -> list[Any]:
        if self._records is None:
            try:
                records = json.loads(self.samples_file.read_text(encoding="utf-8-sig"))
            except FileNotFoundError:
                raise ConfigError(f"{self.samples_file} does not exist") from None
            except (ValueError, RecursionError) as exc:
                raise ConfigError(f"{self.samples_file} is not valid JSON: {exc}") from None
            if not isinstance(records, list):
                raise ConfigError(f"{self.samples_file} must hold a JSON list of records")
            self._records = records
        return self._records

    def record_files(self) -> list[Path]:
        return [self.samples_file]

    def count(self) -> int:
        return len(self._load())

    def records(self) -> Iterator[RawRecord]:
        ids = IdAllocator()
        file = self.relative(self.samples_file)
        for index, record in enumerate(self._load()):
            info = SourceInfo(self.dataset, self.layout, file, index)
            fallback_id = ids(f"record-{index:05d}")
            if not isinstance(record, dict):
                error = load_error("record is not a JSON object")
                yield RawRecord(fallback_id, info, self.samples_file, {}, error)
                continue
            missing = [key for key in REQUIRED if key not in record]
            if missing:
                error = load_error(f"missing required field(s): {', '.join(missing)}")
                yield RawRecord(fallback_id, info, self.samples_file, record, error)
                continue
            doc_id = str(record["doc_id"])
            sample_id = ids(
                content_id(
                    Path(doc_id).stem,
                    record["question"],
                    record["answer"],
                    record["evidence_pages"],
                )
            )
            yield RawRecord(sample_id, info, self.samples_file, record)

    def marked_unanswerable(self, record: dict[str, Any]) -> str | None:
        if str(record["answer"]).strip().lower() == NOT_ANSWERABLE:
            return "already unanswerable in the source (answer is 'Not answerable')"
        return None

    def sample(self, raw: RawRecord) -> Sample:
        return self._sample(raw.sample_id, raw.record, raw.source)

    def _sample(self, sample_id: str, record: dict[str, Any], info: SourceInfo) -> Sample:
        question = required_question(record)
        doc_id = record["doc_id"]
        if not isinstance(doc_id, str):
            raise load_error(f"doc_id: expected a file name (text), got {type(doc_id).__name__}")
        pdf = resolve_inside(self.root, f"documents/{doc_id}", "doc_id")
        pages = parse_pages(record["evidence_pages"])
        if not pages:
            raise load_error(
                "evidence_pages is empty: the record does not say where the evidence is"
            )
        sources = parse_list(record.get("evidence_sources"), "evidence_sources")
        return Sample(
            id=sample_id,
            source=info,
            question=question.strip(),
            answer=required_answer(record),
            answer_format=optional_format(record),
            document=DocumentRef(path=pdf, doc_id=checked_text(doc_id, "doc_id")),
            evidence_pages=pages,
            metadata=checked_metadata(
                {
                    "doc_type": record.get("doc_type"),
                    "evidence_sources": [str(s) for s in sources],
                }
            ),
        )
