"""Validity estimates from blind readings: per transform, and per transform x question kind.

Validity = (unanswerable + conflicting) / n over the readings of the transform's current
version (and mode: offline template rewrites and model rewrites are measured apart), with
a Wilson 95% interval. Readings of other versions are kept as history (``retired``).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cues import set_apart
from .ledger import ANSWERABLE, CONFLICTING, DOUBTFUL, UNANSWERABLE, Reading
from .recall import (
    SourceReadings,
    contested,
    contested_sources,
    recalled,
    recalled_documents,
    sources_where,
)

#: Two-sided 95%.
Z95 = 1.959963984540054
#: A transform x kind cell speaks for itself from this many readings on; below, the
#: transform's figure over all kinds is used (SPEC 8).
CELL_MIN_READINGS = 25
#: The label of a transform's figure over every question kind.
ALL_KINDS = "all"


def wilson(valid: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``valid`` successes in ``n`` trials."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= valid <= n:
        raise ValueError(f"{valid} successes in {n} trials")
    p = valid / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Estimate:
    """The readings of one transform (or one of its cells) and what they say."""

    transform: str
    version: int
    mode: str
    kind: str
    verdicts: Mapping[str, int]
    datasets: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        return sum(self.verdicts.values())

    @property
    def valid(self) -> int:
        return self.verdicts.get(UNANSWERABLE, 0) + self.verdicts.get(CONFLICTING, 0)

    @property
    def estimate(self) -> float | None:
        return self.valid / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.valid, self.n)

    @property
    def low(self) -> float:
        return self.interval[0]

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "transform": self.transform,
            "version": self.version,
            "mode": self.mode,
            "kind": self.kind,
            "n": self.n,
            "valid": self.valid,
            "unanswerable": self.verdicts.get(UNANSWERABLE, 0),
            "conflicting": self.verdicts.get(CONFLICTING, 0),
            "answerable": self.verdicts.get(ANSWERABLE, 0),
            "doubtful": self.verdicts.get(DOUBTFUL, 0),
            "estimate": None if self.estimate is None else round(self.estimate, 4),
            "low": round(low, 4) if self.n else None,
            "high": round(high, 4) if self.n else None,
            "datasets": list(self.datasets),
        }


def _estimate(
    transform: str, version: int, mode: str, kind: str, readings: list[Reading]
) -> Estimate:
    return Estimate(
        transform,
        version,
        mode,
        kind,
        dict(Counter(r.verdict for r in readings)),
        tuple(sorted({r.dataset for r in readings})),
    )


@dataclass
class ValidityTable:
    """Estimates at the current versions, built once from the readings (picklable)."""

    #: (transform, mode) -> the transform's estimate over every kind.
    overall: dict[tuple[str, str], Estimate] = field(default_factory=dict)
    #: (transform, mode, kind) -> the cell's estimate.
    cells: dict[tuple[str, str, str], Estimate] = field(default_factory=dict)
    #: Readings of other versions, per transform: history, not counted.
    retired: dict[str, int] = field(default_factory=dict)
    #: The current version of each transform the table knows.
    versions: dict[str, int] = field(default_factory=dict)
    #: Counted readings made of an earlier version whose item ships unchanged, per
    #: transform (:mod:`.carry`).
    carried: dict[str, int] = field(default_factory=dict)
    #: What the counted readings that found an answer (answerable or doubtful) rest on,
    #: per transform: {"shipped": 3, "memory": 5, "": 2} ("" where the reading predates
    #: the question): the failures an edit can still fix, and those no edit can.
    bases: dict[str, dict[str, int]] = field(default_factory=dict)
    #: The sources builds give no evidence edit, from all readings of any version: those
    #: several readers answered from recall (:func:`.recall.recalled_sources`), and those
    #: readers answered from the item with another answer than the gold
    #: (:func:`.recall.contested_sources`).
    recalled: list[SourceReadings] = field(default_factory=list)
    contested: list[SourceReadings] = field(default_factory=list)
    #: The documents two readers or more gave golds of from memory, whose questions builds
    #: give no evidence edit either (:func:`.recall.recalled_documents`): file name -> readers.
    recalled_documents: dict[str, int] = field(default_factory=dict)
    #: Per transform: (valid, n) of the counted readings of questions neither recalled nor
    #: contested, nor on a recalled document. The table counts every question, flagged or
    #: not, as a new dataset holds both; this is what a build of the read questions emits,
    #: flags applied.
    unflagged: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Per transform: the validity expected on questions no reading has flagged yet (a new
    #: dataset), when both kinds of question were read: the flagged and the other
    #: questions' figures weighted by the share of the questions it was read on that the
    #: readings flag (:func:`expected_on_new_questions`).
    expected: dict[str, tuple[float, int, int]] = field(default_factory=dict)
    #: Per transform: (valid, n) of the counted readings made on held-out datasets (named
    #: ``...:heldout`` in the ledger: questions and documents no rule was made on). What a
    #: new dataset gets, measured; the expected figure above only extrapolates from the
    #: flags, and the failures no reading had named yet are missing from it.
    held_out: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Per transform: (valid, n) of the readings at the current version that no default
    #: build could have made, evidence edits of questions the offline blind check stops
    #: (:mod:`.cues`). Counted apart: they measure the blind check, not the transform.
    set_apart: dict[str, tuple[int, int]] = field(default_factory=dict)

    @classmethod
    def from_readings(
        cls,
        readings: Iterable[Reading],
        versions: Mapping[str, int] | None = None,
        evidence_edits: Collection[str] = (),
    ) -> ValidityTable:
        """``versions``: each transform's current version (the registry's); a transform
        missing from it counts the readings of the highest version the ledger holds.
        ``evidence_edits``: the transforms whose readings of questions the offline blind
        check stops are set apart (none with ``--blind-policy record``)."""
        readings = list(readings)
        current = dict(versions or {})
        for reading in readings:
            if reading.transform not in (versions or {}):
                current[reading.transform] = max(current.get(reading.transform, 0), reading.version)
        table = cls(versions=current)
        by_transform: dict[tuple[str, str], list[Reading]] = defaultdict(list)
        by_cell: dict[tuple[str, str, str], list[Reading]] = defaultdict(list)
        for reading in readings:
            if reading.version != current.get(reading.transform):
                table.retired[reading.transform] = table.retired.get(reading.transform, 0) + 1
                continue
            if set_apart(reading, evidence_edits):
                valid, n = table.set_apart.get(reading.transform, (0, 0))
                table.set_apart[reading.transform] = (valid + reading.valid, n + 1)
                continue
            if reading.carried_from is not None:
                table.carried[reading.transform] = table.carried.get(reading.transform, 0) + 1
            if not reading.valid:
                counts = table.bases.setdefault(reading.transform, {})
                counts[reading.basis] = counts.get(reading.basis, 0) + 1
            by_transform[(reading.transform, reading.mode)].append(reading)
            by_cell[(reading.transform, reading.mode, reading.kind)].append(reading)
        table.recalled = sources_where(readings, recalled)
        flagged = contested_sources(readings)
        table.contested = [s for s in sources_where(readings, contested) if s.source in flagged]
        table.recalled_documents = recalled_documents(readings)
        left_out = {s.source for s in table.recalled} | set(flagged)
        left_out |= {r.source for r in readings if r.document in table.recalled_documents}
        kinds = split_by_flag(by_transform, left_out)
        table.unflagged = {name: (sum(plain), len(plain)) for name, (plain, _) in kinds.items()}
        table.expected = expected_on_new_questions(readings, kinds, left_out)
        for (name, _mode), group in sorted(by_transform.items()):
            fresh = [r.valid for r in group if is_held_out(r.dataset)]
            if fresh:
                valid, n = table.held_out.get(name, (0, 0))
                table.held_out[name] = (valid + sum(fresh), n + len(fresh))
        for (name, mode), group in sorted(by_transform.items()):
            table.overall[(name, mode)] = _estimate(name, current[name], mode, ALL_KINDS, group)
        for (name, mode, kind), group in sorted(by_cell.items()):
            table.cells[(name, mode, kind)] = _estimate(name, current[name], mode, kind, group)
        return table

    def lookup(self, transform: str, mode: str, kind: str | None) -> Estimate:
        """The figure an item of ``transform`` (in ``mode``) with a question of ``kind`` is
        judged by: its cell once that has :data:`CELL_MIN_READINGS` readings, else the
        transform's over every kind (an empty estimate when there is none)."""
        if kind is not None:
            cell = self.cells.get((transform, mode, kind))
            if cell is not None and cell.n >= CELL_MIN_READINGS:
                return cell
        found = self.overall.get((transform, mode))
        if found is not None:
            return found
        return Estimate(transform, self.versions.get(transform, 1), mode, ALL_KINDS, {})

    def n_of(self, transform: str) -> int:
        """The readings counted for ``transform``, every mode."""
        return sum(e.n for (name, _mode), e in self.overall.items() if name == transform)

    def rows(self, *, cells: bool = True) -> list[Estimate]:
        """Each transform's estimate, followed by its cells of at least
        :data:`CELL_MIN_READINGS` readings (all of them with ``cells`` False: none)."""
        out: list[Estimate] = []
        for (name, mode), overall in sorted(self.overall.items()):
            out.append(overall)
            if cells:
                out += [
                    cell
                    for (cname, cmode, _), cell in sorted(self.cells.items())
                    if (cname, cmode) == (name, mode) and cell.n >= CELL_MIN_READINGS
                ]
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "transforms": [e.to_json() for e in self.overall.values()],
            "cells": [e.to_json() for e in self.cells.values()],
            "retired": dict(sorted(self.retired.items())),
            "carried": dict(sorted(self.carried.items())),
            "failed_on": {name: dict(sorted(c.items())) for name, c in sorted(self.bases.items())},
            "recalled_sources": [source.to_json() for source in self.recalled],
            "contested_sources": [source.to_json() for source in self.contested],
            "recalled_documents": dict(self.recalled_documents),
            "unflagged": {
                name: {"valid": valid, "n": n} for name, (valid, n) in self.unflagged.items()
            },
            "expected_on_new_questions": {
                name: {"estimate": round(value, 4), "flagged_questions": k, "questions": m}
                for name, (value, k, m) in self.expected.items()
            },
            "held_out": {
                name: {"valid": valid, "n": n} for name, (valid, n) in self.held_out.items()
            },
            "set_apart": {
                name: {"valid": valid, "n": n} for name, (valid, n) in self.set_apart.items()
            },
            "cell_min_readings": CELL_MIN_READINGS,
        }


#: The ledger name's suffix of a dataset no rule was made on ("mmlongbench-doc:heldout").
HELD_OUT_SUFFIX = ":heldout"


def is_held_out(dataset: str) -> bool:
    """Was the reading made on a held-out dataset (see :data:`HELD_OUT_SUFFIX`)?"""
    return dataset.endswith(HELD_OUT_SUFFIX)


def split_by_flag(
    counted: Mapping[tuple[str, str], Sequence[Reading]], flagged: set[str]
) -> dict[str, tuple[list[bool], list[bool]]]:
    """Per transform, every mode: whether each counted reading was valid, for the
    questions the readings do not flag and for those they flag."""
    out: dict[str, tuple[list[bool], list[bool]]] = {}
    for (name, _mode), group in sorted(counted.items()):
        plain, marked = out.setdefault(name, ([], []))
        for reading in group:
            (marked if reading.source in flagged else plain).append(reading.valid)
    return out


def expected_on_new_questions(
    readings: Sequence[Reading],
    kinds: Mapping[str, tuple[list[bool], list[bool]]],
    flagged: set[str],
) -> dict[str, tuple[float, int, int]]:
    """Per transform: (expected validity, flagged questions, questions) on a dataset no
    reading has flagged yet. Rounds read what is new, so the counted readings hold the two
    kinds of question in no set proportion: their shares (``kinds``, :func:`split_by_flag`)
    are weighted by how many of the questions the transform was ever read on (any
    version) the readings flag. A new dataset holds recalled and contested questions too,
    and no build leaves them out before they are read."""
    asked: dict[str, set[str]] = defaultdict(set)
    for reading in readings:
        asked[reading.transform].add(reading.source)
    out: dict[str, tuple[float, int, int]] = {}
    for name, (plain, marked) in kinds.items():
        if not plain or not marked:
            continue
        share = len(asked[name] & flagged) / len(asked[name])
        value = (1 - share) * sum(plain) / len(plain) + share * sum(marked) / len(marked)
        out[name] = (value, len(asked[name] & flagged), len(asked[name]))
    return out
