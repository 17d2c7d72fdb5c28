"""The acceptance policy: a counterpart is accepted offline only where its transform's
measured validity is known to be high.

An item clears when the readings of its cell (transform x question kind; the transform
over every kind while the cell has fewer than :data:`.table.CELL_MIN_READINGS`) number at
least ``min_readings`` and their Wilson lower bound reaches ``min_validity`` (SPEC 8).
Otherwise a build marks the item ``flagged`` with the reason in one line, so it goes to
model judges or human review, and routing tries the transforms that clear first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .table import ALL_KINDS, Estimate, ValidityTable

if TYPE_CHECKING:
    from ..transforms.base import Transform

#: The default bar: 25 valid readings of 25 give a lower bound of 0.87; 38 of 40, 0.84.
DEFAULT_MIN_VALIDITY = 0.85
#: Fewer readings than this are no measurement, whatever they say.
MIN_READINGS = 20


@dataclass(frozen=True)
class ValidityDecision:
    """What the policy says of one item (recorded as ``qc.validity``)."""

    transform: str
    version: int
    estimate: Estimate
    clears: bool
    applied: bool
    min_validity: float
    reason: str
    ledger: str = ""

    def to_json(self, held: bool = False) -> dict[str, Any]:
        figures = self.estimate.to_json()
        return {
            "transform_version": self.version,
            "mode": figures["mode"],
            "cell": figures["kind"],
            "n": figures["n"],
            "valid": figures["valid"],
            "unanswerable": figures["unanswerable"],
            "conflicting": figures["conflicting"],
            "estimate": figures["estimate"],
            "low": figures["low"],
            "high": figures["high"],
            "source": figures["datasets"],
            "min_validity": self.min_validity,
            "applied": self.applied,
            "clears": self.clears,
            "held": held,
            "reason": self.reason,
            "ledger": self.ledger[:16],
        }


@dataclass(frozen=True)
class ValidityPolicy:
    """The table and the bar (picklable: every worker's QC holds one)."""

    table: ValidityTable
    min_validity: float = DEFAULT_MIN_VALIDITY
    min_readings: int = MIN_READINGS
    #: False: the decision is recorded, never applied (``--qc judges`` without the flag,
    #: or ``--min-validity 0``).
    applied: bool = True
    #: :func:`.ledger.ledger_digest` of the readings the table was built from.
    ledger: str = ""

    def decide(self, transform: str, version: int, mode: str, kind: str | None) -> ValidityDecision:
        """The policy's word on an item of ``transform`` at ``version`` (in ``mode``) whose
        source question is of ``kind``."""
        current = self.table.versions.get(transform)
        if current is not None and current != version:
            empty = Estimate(transform, version, mode, kind or ALL_KINDS, {})
            return self._decision(
                transform,
                version,
                empty,
                False,
                f"{transform}: the readings are of version {current}; this item was made by"
                f" version {version}",
            )
        estimate = self.table.lookup(transform, mode, kind)
        cell = "" if estimate.kind == ALL_KINDS else f" ({estimate.kind} questions)"
        shown = f"{transform}{cell}: {estimate.valid}/{estimate.n} valid"
        if estimate.n < self.min_readings:
            if estimate.n:
                shown += f", lower bound {estimate.low:.2f}"
            return self._decision(
                transform,
                version,
                estimate,
                False,
                f"{shown}; {estimate.n} reading(s) at v{version} < {self.min_readings}",
            )
        low = estimate.low
        clears = low >= self.min_validity
        sign = ">=" if clears else "<"
        return self._decision(
            transform,
            version,
            estimate,
            clears,
            f"{shown}, lower bound {low:.2f} {sign} {self.min_validity:.2f}",
        )

    def clears(self, transform: str, version: int, mode: str, kind: str | None) -> bool:
        return self.decide(transform, version, mode, kind).clears

    def _decision(
        self, transform: str, version: int, estimate: Estimate, clears: bool, reason: str
    ) -> ValidityDecision:
        return ValidityDecision(
            transform,
            version,
            estimate,
            clears,
            self.applied,
            self.min_validity,
            reason,
            self.ledger,
        )

    def describe(self) -> dict[str, Any]:
        """The policy as the manifest records it."""
        return {
            "min_validity": self.min_validity,
            "min_readings": self.min_readings,
            "applied": self.applied,
            "ledger": self.ledger,
            "table": self.table.to_json(),
        }


def load_policy(
    ledgers: Sequence[str | Path] = (),
    *,
    min_validity: float = DEFAULT_MIN_VALIDITY,
    applied: bool = True,
    plugins: Sequence[str] = (),
    package: bool = True,
    blind_policy: str = "rewrite",
) -> ValidityPolicy:
    """The policy over the package's readings (unless ``package`` is False) and
    ``ledgers``, at the registry's versions. Unless the build records the blind check
    only (``blind_policy="record"``), evidence edits' readings of questions it stops are
    set apart (:mod:`.cues`): the build makes no such item."""
    from ..blind.gate import removes_evidence
    from ..transforms.registry import get_registry
    from .ledger import ledger_digest, read_ledgers

    readings = read_ledgers([Path(p) for p in ledgers], package=package)
    registry = get_registry(tuple(plugins))
    versions = {cls.name: cls.version for cls in registry}
    edits = set() if blind_policy == "record" else {c.name for c in registry if removes_evidence(c)}
    table = ValidityTable.from_readings(readings, versions, edits)
    return ValidityPolicy(
        table,
        min_validity=min_validity,
        applied=applied and min_validity > 0,
        ledger=ledger_digest(readings),
    )


def clears_bar(
    policy: ValidityPolicy | None, transforms: Sequence[Transform], llm: bool
) -> Callable[[str, str | None], bool] | None:
    """Routing's question: does transform NAME clear the bar for a question of KIND (with
    the mode its items will have)? None when no bar is applied."""
    if policy is None or not policy.applied:
        return None
    by_name = {t.name: t for t in transforms}

    def clears(name: str, kind: str | None) -> bool:
        transform = by_name.get(name)
        if transform is None:
            return False
        return policy.clears(name, transform.version, transform.expected_mode(llm), kind)

    return clears


def run_policy(
    ledgers: Sequence[str | Path],
    min_validity: float | None,
    *,
    offline: bool,
    plugins: Sequence[str] = (),
    blind_policy: str = "rewrite",
) -> ValidityPolicy:
    """The policy a QC run judges by: with the offline judges the bar applies (default
    :data:`DEFAULT_MIN_VALIDITY`; 0 turns it off); with model judges the figures are
    recorded and the bar applies only when ``min_validity`` is given."""
    bar = DEFAULT_MIN_VALIDITY if min_validity is None else min_validity
    applied = bar > 0 and (offline or min_validity is not None)
    return load_policy(
        ledgers, min_validity=bar, applied=applied, plugins=plugins, blind_policy=blind_policy
    )
