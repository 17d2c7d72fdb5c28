"""The loader interface: a source streams samples (or problems) in a fixed order."""

from __future__ import annotations

import abc
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SampleError
from ..model import Sample, SampleProblem, SourceInfo
from .common import load_error

LoadedItem = Sample | SampleProblem


@dataclass(frozen=True)
class RawRecord:
    """A record as read from its file, with the id its sample or problem gets.

    ``error`` says why the record cannot even be read as one (malformed line, not an
    object, fields the id is made from are missing); ``record`` is then what could be
    read, possibly empty. Checking the record's content is left to the sample builder, so
    tools that need only the question text (routing statistics) can read every record.
    """

    sample_id: str
    source: SourceInfo
    file: Path  # the record file
    record: dict[str, Any]
    error: SampleError | None = None


class Source(abc.ABC):
    """A dataset on disk. Iteration streams records: memory does not grow with its size."""

    dataset: str = ""
    layout: str = ""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.root = path if path.is_dir() else path.parent

    @abc.abstractmethod
    def record_files(self) -> list[Path]:
        """The files holding the records (hashed into the manifest)."""

    @abc.abstractmethod
    def count(self) -> int:
        """Number of records, cheaply (for progress and ETA)."""

    def __iter__(self) -> Iterator[LoadedItem]:
        """Samples and problems, in the source's own order: a record that cannot be read,
        one the source marks unanswerable already (skipped), or one :meth:`sample` refuses
        is a problem, and the rest go on."""
        for raw in self.records():
            if raw.error is not None:
                yield self.problem(raw.sample_id, raw.error, raw.source)
                continue
            unanswerable = self.marked_unanswerable(raw.record)
            if unanswerable:
                yield self.problem(raw.sample_id, load_error(unanswerable), raw.source, skip=True)
                continue
            try:
                yield self.sample(raw)
            except SampleError as error:
                yield self.problem(raw.sample_id, error, raw.source)

    @abc.abstractmethod
    def sample(self, raw: RawRecord) -> Sample:
        """The sample a readable record makes; :class:`SampleError` when it makes none."""

    def marked_unanswerable(self, record: dict[str, Any]) -> str | None:
        """Why the source itself marks ``record`` unanswerable (it is skipped), else None."""
        return None

    @abc.abstractmethod
    def records(self) -> Iterator[RawRecord]:
        """Every record with its sample id, unvalidated, in the order ``__iter__`` uses."""

    def relative(self, path: Path) -> str:
        try:
            return str(path.resolve().relative_to(self.root.resolve()))
        except ValueError:
            return str(path)

    def fingerprint(self) -> dict[str, str]:
        """sha256 of every record file, relative path -> hex digest."""
        out: dict[str, str] = {}
        for file in self.record_files():
            digest = hashlib.sha256()
            with file.open("rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
            out[self.relative(file)] = digest.hexdigest()
        return out

    def problem(
        self, sample_id: str, error: SampleError, source: SourceInfo | None, skip: bool = False
    ) -> SampleProblem:
        return SampleProblem(
            sample_id=sample_id, stage=error.stage, reason=error.reason, skip=skip, source=source
        )
