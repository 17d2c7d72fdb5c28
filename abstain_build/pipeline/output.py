"""The output folder: append-safe records, a journal for resuming, and config guarding.

Commit protocol for one sample (assets are already in place, written atomically):

1. append its rows to ``data.jsonl`` and ``errors.jsonl``, flush and fsync;
2. append one journal line with the new end offsets of both files, flush and fsync.

A run killed at any point leaves at most one torn tail. On restart, the journal's last
complete line says how long each file must be; anything beyond is cut off and redone.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..blind.verdict import BlindVerdict
from ..config import public_settings
from ..errors import ConfigError
from ..media.files import atomic_write
from ..schema import ANSWER_CHANGED, COUNTERPART, EVIDENCE_SET, ORIGINAL, record_kind
from .jobs import SampleOutcome
from .output_lock import LOCK_FILE

STATE_DIR = "state"
DATA_FILE = "data.jsonl"
ERRORS_FILE = "errors.jsonl"
JOURNAL_FILE = f"{STATE_DIR}/journal.jsonl"
CONFIG_FILE = f"{STATE_DIR}/config.json"


def written_settings(root: Path) -> dict[str, Any] | None:
    """The settings ``root`` was built with, as written (its ``state/config.json``); None
    when it holds none that can be read."""
    try:
        settings = json.loads((root / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return settings if isinstance(settings, dict) else None


#: Files and folders of ``state/`` that --overwrite keeps (name prefixes).
KEPT_CACHES = ("ocr", "models.sqlite", "lock")


def dumps(record: dict[str, Any]) -> str:
    """One canonical JSON line (stable key order as built, no trailing spaces)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _valid_journal_lines(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Complete journal entries and the byte length they occupy (a torn tail is ignored)."""
    entries: list[dict[str, Any]] = []
    good_end = 0
    if not path.exists():
        return entries, 0
    with path.open("rb") as handle:
        offset = 0
        for line in handle:
            offset += len(line)
            if not line.endswith(b"\n"):
                break
            try:
                entry = json.loads(line)
            except ValueError:
                break
            entries.append(entry)
            good_end = offset
    return entries, good_end


class RunOutput:
    """The files of one build under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data_path = root / DATA_FILE
        self.errors_path = root / ERRORS_FILE
        self.journal_path = root / JOURNAL_FILE
        self.config_path = root / CONFIG_FILE
        self._data = self._errors = self._journal = None
        #: The dataset's folder: reasons name its files relative to it (see portable_reason).
        self.source_root: Path | None = None

    # -- opening ---------------------------------------------------------------------------
    def refuse_foreign(self, source: Path | None = None) -> None:
        """Only a folder this tool made (its ``state/config.json`` written before anything
        else) is resumed or overwritten: a folder that merely holds a ``data.jsonl`` or a
        ``state/`` of the user's is refused, and so is a source inside the output folder
        (resuming would truncate it, overwriting delete it)."""
        if source is not None:
            self._refuse_source_inside(source)
        if self.root.exists() and not self._empty() and not self.config_path.is_file():
            raise ConfigError(
                f"{self.root} is not empty and is not an abstain-build output"
                f" (no {CONFIG_FILE}); choose a new or empty --out folder"
            )

    def _empty(self) -> bool:
        """Nothing in the folder but, at most, the lock of a run that stopped before it
        wrote its config (the source could not be hashed, the process was killed): such a
        folder holds nothing of anyone's, and the next run may build there."""
        entries = list(self.root.iterdir())
        if not entries:
            return True
        state = self.root / STATE_DIR
        return (
            entries == [state]
            and state.is_dir()
            and {p.name for p in state.iterdir()} <= {Path(LOCK_FILE).name}
        )

    def prepare(self, fingerprint: dict[str, Any], overwrite: bool) -> list[dict[str, Any]]:
        """Create or resume (after :meth:`refuse_foreign`, with the folder locked); returns the
        journal entries of samples already done."""
        if self.root.exists() and not self._empty():
            if overwrite:
                self._clear()
            elif self.config_path.exists():
                self._check_same_config(fingerprint)
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / STATE_DIR).mkdir(exist_ok=True)
        if not self.config_path.exists():
            atomic_write(self.config_path, (json.dumps(fingerprint, indent=2) + "\n").encode())
        entries = self._recover()
        self._data = self.data_path.open("ab")
        self._errors = self.errors_path.open("ab")
        self._journal = self.journal_path.open("ab")
        return entries

    def _refuse_source_inside(self, source: Path) -> None:
        if not source.exists():
            return  # not a path (a dataset name): nothing of it lives under --out
        root, where = self.root.resolve(), source.resolve()
        if where == root or root in where.parents:
            raise ConfigError(
                f"the source {source} is inside --out {self.root}: building there would"
                " overwrite it; choose an --out folder outside the source"
            )

    def _clear(self) -> None:
        """Delete the previous build but keep its caches: their entries are keyed by content
        (OCR by image hash, model replies by the full request), so a rebuild reuses them."""
        for child in self.root.iterdir():
            if child.name != STATE_DIR:
                _remove(child)
        for child in (self.root / STATE_DIR).iterdir():
            if not child.name.startswith(KEPT_CACHES):
                _remove(child)

    def _check_same_config(self, fingerprint: dict[str, Any]) -> None:
        """Compared as written, models by their labels: a folder whose config.json still
        holds a URL's key (from an older version) resumes too, and is rewritten without it."""
        written = json.loads(self.config_path.read_text(encoding="utf-8"))
        stored = public_settings(written)
        if stored == fingerprint:
            if written != stored:
                atomic_write(self.config_path, (json.dumps(stored, indent=2) + "\n").encode())
            return
        changed = sorted(
            k for k in set(stored) | set(fingerprint) if stored.get(k) != fingerprint.get(k)
        )
        details = "; ".join(f"{k}: {stored.get(k)!r} -> {fingerprint.get(k)!r}" for k in changed)
        raise ConfigError(
            f"{self.root} holds a build with a different configuration ({details}). "
            "Re-run with the same settings to resume, pass --overwrite to start over, "
            "or choose another --out folder."
        )

    def _recover(self) -> list[dict[str, Any]]:
        entries, journal_end = _valid_journal_lines(self.journal_path)
        data_end = entries[-1]["data_end"] if entries else 0
        errors_end = entries[-1]["errors_end"] if entries else 0
        for path, end in (
            (self.journal_path, journal_end),
            (self.data_path, data_end),
            (self.errors_path, errors_end),
        ):
            if not path.exists():
                path.touch()
            if path.stat().st_size != end:
                with path.open("r+b") as handle:
                    handle.truncate(end)
        return entries

    # -- committing ------------------------------------------------------------------------
    def commit(self, outcome: SampleOutcome) -> dict[str, Any]:
        assert self._data and self._errors and self._journal, "prepare() first"
        if outcome.records:
            self._data.write("".join(dumps(r) + "\n" for r in outcome.records).encode("utf-8"))
        if outcome.problems:
            lines = "".join(dumps(self._portable(p.to_json())) + "\n" for p in outcome.problems)
            self._errors.write(lines.encode("utf-8"))
        for handle in (self._data, self._errors):
            handle.flush()
            os.fsync(handle.fileno())
        entry = journal_entry(outcome, self._data.tell(), self._errors.tell())
        self._journal.write((dumps(entry) + "\n").encode("utf-8"))
        self._journal.flush()
        os.fsync(self._journal.fileno())
        return entry

    def _portable(self, problem: dict[str, Any]) -> dict[str, Any]:
        """The same error wherever the dataset lives and whatever the memory layout: its
        root's absolute path and the addresses of Python objects leave the reason."""
        problem["reason"] = portable_reason(problem["reason"], self.source_root)
        return problem

    def close(self) -> None:
        for handle in (self._data, self._errors, self._journal):
            if handle is not None:
                handle.close()
        self._data = self._errors = self._journal = None

    def entries(self) -> Iterator[dict[str, Any]]:
        yield from _valid_journal_lines(self.journal_path)[0]


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def portable_reason(reason: str, root: Path | None) -> str:
    """``reason`` without what changes from run to run or machine to machine: object
    addresses (``<_io.BytesIO object at 0x7f...>``) and the dataset root's absolute path
    (its files are named relative to it, the root itself by its folder's name)."""
    reason = _ADDRESS.sub("", reason)
    if root is not None:
        for form in {str(root), str(root.resolve())}:
            reason = reason.replace(form + "/", "").replace(form, root.name)
    return reason


def journal_entry(outcome: SampleOutcome, data_end: int, errors_end: int) -> dict[str, Any]:
    """What the manifest needs to know about a committed sample, without re-reading data.jsonl."""
    return {
        "id": outcome.sample_id,
        "status": outcome.status,
        "skipped": outcome.skipped,
        "emitted": [
            [r["transform"]["name"], r["transform"]["family"], r["axis"]]
            for r in outcome.records
            if record_kind(r) == COUNTERPART
        ],
        "changed": [
            [r["transform"]["name"], r["transform"]["family"], r["axis"]]
            for r in outcome.records
            if record_kind(r) == ANSWER_CHANGED
        ],
        "controls": [r["axis"] for r in outcome.records if record_kind(r) == ORIGINAL],
        "sets": [
            [
                r["evidence_set"]["name"],
                r["answerable"],
                [d["score"] for d in r["evidence_set"]["distractors"]],
            ]
            for r in outcome.records
            if record_kind(r) == EVIDENCE_SET
        ],
        "errors": [[p.stage, p.transform] for p in outcome.problems],
        "not_applicable": outcome.not_applicable,
        "qc": outcome.qc,
        "gate": outcome.gate,
        "blind": None
        if outcome.blind is None
        else [outcome.blind["method"], outcome.blind["verdict"], outcome.blind_removed],
        "blind_grounds": _blind_grounds(outcome.blind),
        "rejected": outcome.rejections,
        "seconds": {k: round(v, 4) for k, v in outcome.seconds.items()},
        "data_end": data_end,
        "errors_end": errors_end,
    }


def _blind_grounds(verdict: dict[str, Any] | None) -> list[str]:
    """Why the blind check ruled evidence edits out: the question is answerable without
    its evidence, or contested (nothing when it did not)."""
    if verdict is None:
        return []
    found = BlindVerdict.from_json(verdict)
    return found.grounds() if found.rules_out_evidence_edits else []


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def rewrite_data(root: Path, lines: list[str]) -> None:
    """Replace ``data.jsonl`` with ``lines`` (the same records, in the same order, edited)
    and move the journal's offsets with it, so a later ``transform`` on this folder still
    resumes at the right byte (QC and human review rewrite records after a build)."""
    data_path, journal_path = root / DATA_FILE, root / JOURNAL_FILE
    body = "".join(line if line.endswith("\n") else line + "\n" for line in lines if line.strip())
    encoded = body.encode("utf-8")
    entries = _valid_journal_lines(journal_path)[0] if journal_path.exists() else []
    ends = []
    position, line_starts = 0, [0]
    for line in body.splitlines(keepends=True):
        position += len(line.encode("utf-8"))
        line_starts.append(position)
    count = 0
    for entry in entries:
        count += len(entry["controls"]) + len(entry["emitted"]) + len(entry.get("changed", []))
        if count >= len(line_starts):
            raise ValueError("data.jsonl has fewer records than its journal: not rewritten")
        ends.append(line_starts[count])
    for entry, end in zip(entries, ends, strict=True):
        entry["data_end"] = end
    journal = "".join(dumps(entry) + "\n" for entry in entries).encode("utf-8")
    atomic_write(data_path, encoded)
    if entries:
        atomic_write(journal_path, journal)
