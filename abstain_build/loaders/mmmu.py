"""MMMU in both published layouts: Hugging Face parquet, and the repository's JSONL tool format."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from ..errors import ConfigError
from ..model import ImageRef, Sample, SourceInfo
from .base import RawRecord, Source
from .common import (
    IdAllocator,
    checked_metadata,
    content_id,
    given_id,
    load_error,
    option_texts,
    required_answer,
    required_question,
    resolve_inside,
    surrogate_in_id,
)
from .jsonl import JsonLinesSource

MAX_IMAGES = 7
PLACEHOLDER = re.compile(r"<image\s*(\d+)>", re.IGNORECASE)
METADATA_KEYS = (
    "explanation",
    "img_type",
    "topic_difficulty",
    "question_type",
    "subfield",
    "subject",
)


def _placeholders(question: str, options: list[str]) -> set[int]:
    found = {int(n) for n in PLACEHOLDER.findall(question)}
    for option in options:
        found |= {int(n) for n in PLACEHOLDER.findall(option)}
    return found


class _MMMUBase(Source):
    dataset = "mmmu"

    def _build(
        self,
        sample_id: str,
        record: dict[str, Any],
        info: SourceInfo,
        images: list[ImageRef],
    ) -> Sample:
        missing = [key for key in ("question", "answer") if key not in record]
        if missing:
            raise load_error(f"missing required field(s): {', '.join(missing)}")
        surrogate_in_id(record)
        question = required_question(record)
        options = list(option_texts(record.get("options")))
        if not images:
            raise load_error("the record has no image (image_1 ... image_7 are all empty)")
        have = {int(ref.key.split("_")[1]) for ref in images}
        absent = sorted(n for n in _placeholders(question, options) if n not in have)
        if absent:
            raise load_error(
                "the text refers to "
                + ", ".join(f"<image {n}>" for n in absent)
                + " but the record has no such image"
            )
        metadata = {key: record[key] for key in METADATA_KEYS if record.get(key) is not None}
        return Sample(
            id=sample_id,
            source=info,
            question=question.strip(),
            answer=required_answer(record),
            answer_format="multiple-choice" if options else "open",
            options=tuple(options),
            images=tuple(images),
            metadata=checked_metadata(metadata),
        )


class MMMUParquetSource(_MMMUBase):
    """A parquet file, or a folder of them (searched recursively, in sorted order)."""

    layout = "hf-parquet"

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.files = [path] if path.is_file() else sorted(path.rglob("*.parquet"))
        if not self.files:
            raise ConfigError(f"no parquet files under {path}")

    def record_files(self) -> list[Path]:
        return list(self.files)

    def count(self) -> int:
        return sum(pq.ParquetFile(file).metadata.num_rows for file in self.files)

    def records(self) -> Iterator[RawRecord]:
        ids = IdAllocator()
        for file in self.files:
            relative = self.relative(file)
            index = 0
            # Small batches, no pre-buffering: image cells are large, and Arrow's allocator
            # keeps what a batch used (batch_size 16 peaked at 3x the RSS of batch_size 2).
            reader = pq.ParquetFile(file, pre_buffer=False)
            for batch in reader.iter_batches(batch_size=2, use_threads=False):
                for row in batch.to_pylist():
                    info = SourceInfo(self.dataset, self.layout, relative, index, given_id(row))
                    index += 1
                    wanted = info.source_id or content_id(
                        Path(relative).stem, row.get("question"), info.index
                    )
                    yield RawRecord(ids(wanted), info, file, row)

    def sample(self, raw: RawRecord) -> Sample:
        images = self._images(raw.record, raw.file.parent)
        return self._build(raw.sample_id, raw.record, raw.source, images)

    def _images(self, row: dict[str, Any], folder: Path) -> list[ImageRef]:
        refs: list[ImageRef] = []
        for n in range(1, MAX_IMAGES + 1):
            cell = row.get(f"image_{n}")
            if cell is None:
                continue
            if not isinstance(cell, dict):
                raise load_error(f"image_{n}: expected a struct {{bytes, path}}")
            if cell.get("bytes"):
                refs.append(ImageRef(key=f"image_{n}", data=cell["bytes"], name=cell.get("path")))
            elif cell.get("path"):
                path = resolve_inside(self.root, str(cell["path"]), f"image_{n}", base=folder)
                refs.append(ImageRef(key=f"image_{n}", path=path, name=Path(cell["path"]).name))
        return refs


class MMMUJsonlSource(JsonLinesSource, _MMMUBase):
    """The MMMU repository's JSONL tool layout: ``image_N`` paths relative to the file."""

    layout = "mmmu-jsonl"

    def __init__(self, path: Path) -> None:
        super().__init__(path if path.is_file() else path / "samples.jsonl")

    def _sample(self, sample_id: str, record: dict[str, Any], info: SourceInfo) -> Sample:
        images = [
            ImageRef(
                key=f"image_{n}",
                path=resolve_inside(self.root, record[f"image_{n}"], f"image_{n}"),
                name=Path(str(record[f"image_{n}"])).name,
            )
            for n in range(1, MAX_IMAGES + 1)
            if record.get(f"image_{n}")
        ]
        return self._build(sample_id, record, info, images)

    def _wanted_id(self, record: dict[str, Any], line_number: int) -> str:
        first = record.get("image_1")
        if isinstance(first, str) and first:
            return re.sub(r"_1$", "", Path(first).stem)
        return f"line-{line_number:05d}"
