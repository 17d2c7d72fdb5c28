"""Counting what a build produced, from its journal (so resumed runs count everything)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..blind.verdict import CONTESTED, EVIDENCE_NEEDED, KNOWLEDGE, NO_EVIDENCE_EDIT
from ..schema import EVIDENCE_SETS
from .reasons import TOP, other_subset, reason_kind, top_reasons

#: The blind check's verdicts, as a build counts them per method.
VERDICTS = (KNOWLEDGE, EVIDENCE_NEEDED, CONTESTED)


@dataclass
class BuildCounts:
    records_in: int = 0
    samples: Counter = field(default_factory=Counter)  # status -> n
    skipped: Counter = field(default_factory=Counter)  # reason -> n
    answerable: Counter = field(default_factory=Counter)  # axis -> n
    unanswerable: Counter = field(default_factory=Counter)  # axis -> n
    #: Answer-changed items (answerable, with a new printed gold): axis -> n, transform -> n.
    answer_changed: Counter = field(default_factory=Counter)
    answer_changed_by_transform: Counter = field(default_factory=Counter)
    by_family: Counter = field(default_factory=Counter)
    by_transform: Counter = field(default_factory=Counter)
    family_of: dict[str, str] = field(default_factory=dict)
    errors_by_stage: Counter = field(default_factory=Counter)
    not_applicable: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    seconds: Counter = field(default_factory=Counter)
    #: QC decisions per family: status -> n (rejected items included, though not written).
    qc: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    #: Re-read gate decisions per transform: "passed" / "failed" -> n.
    gate: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    #: The blind check: verdicts per method ("heuristic", "model:...", a failed model's
    #: fallback), samples whose evidence edits it ruled out, and what became of those.
    blind: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    blind_outcomes: Counter = field(default_factory=Counter)
    #: Why samples are missing items, grouped (:func:`.reasons.reason_kind`): not-applicable
    #: reasons as "transform: reason" (a transform's other subset left out), the blind
    #: check's grounds for a knowledge verdict, QC rejections as "transform: judge: why".
    why_not_applicable: Counter = field(default_factory=Counter)
    why_blind: Counter = field(default_factory=Counter)
    why_rejected: Counter = field(default_factory=Counter)
    #: Evidence-set items (``--evidence-sets``) per set: "items", "answerable",
    #: "unanswerable", and the distractors' cosines with the question ("scored", "score").
    evidence_sets: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))

    @property
    def failed_samples(self) -> int:
        return self.samples["error"] + self.samples["partial"]

    @property
    def total_items(self) -> int:
        return (
            sum(self.answerable.values())
            + sum(self.unanswerable.values())
            + sum(self.answer_changed.values())
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "records_in": self.records_in,
            "samples": dict(sorted(self.samples.items())),
            "skipped": dict(self.skipped.most_common()),
            "items": {
                "answerable": sum(self.answerable.values()),
                "unanswerable": sum(self.unanswerable.values()),
                "answer_changed": sum(self.answer_changed.values()),
            },
            "by_axis": {
                axis: {
                    "answerable": self.answerable[axis],
                    "unanswerable": self.unanswerable[axis],
                    "answer_changed": self.answer_changed[axis],
                }
                for axis in sorted(set(self.answerable) | set(self.unanswerable))
            },
            "by_family": dict(sorted(self.by_family.items())),
            "by_transform": dict(sorted(self.by_transform.items())),
            "answer_changed_by_transform": dict(sorted(self.answer_changed_by_transform.items())),
            "errors_by_stage": dict(sorted(self.errors_by_stage.items())),
            "not_applicable": {
                name: dict(reasons.most_common(10))
                for name, reasons in sorted(self.not_applicable.items())
            },
            "qc": qc_rates(self.qc),
            "reread": {
                name: {"passed": c["passed"], "failed": c["failed"]}
                for name, c in sorted(self.gate.items())
            },
            "blind": self.blind_json(),
            "why_missing": self.why_missing(),
            **({"evidence_sets": self.evidence_sets_json()} if self.evidence_sets else {}),
        }

    def evidence_sets_json(self) -> dict[str, dict[str, Any]]:
        """Per evidence set: its items, how many are answerable, and the distractors' mean
        cosine with the question (None for sets without distractors)."""
        out = {}
        for name in EVIDENCE_SETS:
            c = self.evidence_sets.get(name)
            if not c:
                continue
            out[name] = {
                "items": c["items"],
                "answerable": c["answerable"],
                "unanswerable": c["items"] - c["answerable"],
                "mean_score": round(c["score"] / c["scored"], 4) if c["scored"] else None,
            }
        return out

    def why_missing(self, n: int = TOP) -> dict[str, dict[str, int]]:
        """The ``n`` most frequent reasons of each kind, with their counts, most frequent
        first: what a user reads to learn why a build made fewer items than it had sources."""
        return {
            "not_applicable": dict(top_reasons(self.why_not_applicable, n)),
            "blind": dict(top_reasons(self.why_blind, n)),
            "qc_rejected": dict(top_reasons(self.why_rejected, n)),
        }

    def blind_json(self) -> dict[str, Any]:
        """How many sources the blind check found answerable without their evidence, by
        which method, and what they got instead of an evidence edit."""
        return {
            "by_method": {
                method: {verdict: c[verdict] for verdict in VERDICTS}
                for method, c in sorted(self.blind.items())
            },
            "knowledge": sum(c[KNOWLEDGE] for c in self.blind.values()),
            "contested": sum(c[CONTESTED] for c in self.blind.values()),
            "checked": sum(sum(c.values()) for c in self.blind.values()),
            "outcomes": dict(sorted(self.blind_outcomes.items())),
        }


def count_entries(entries: Iterable[dict[str, Any]]) -> BuildCounts:
    counts = BuildCounts()
    for entry in entries:
        counts.records_in += 1
        counts.samples[entry["status"]] += 1
        if entry.get("skipped"):
            counts.skipped[entry["skipped"]] += 1
        for axis in entry["controls"]:
            counts.answerable[axis] += 1
        for name, family, axis in entry["emitted"]:
            counts.unanswerable[axis] += 1
            counts.by_transform[name] += 1
            counts.by_family[family] += 1
            counts.family_of[name] = family
        for name, answerable, scores in entry.get("sets", []):
            tally = counts.evidence_sets[name]
            tally["items"] += 1
            tally["answerable"] += int(answerable)
            tally["scored"] += len(scores)
            tally["score"] += sum(scores)
        for name, _family, axis in entry.get("changed", []):
            counts.answer_changed[axis] += 1
            counts.answer_changed_by_transform[name] += 1
        for stage, _transform in entry["errors"]:
            counts.errors_by_stage[stage.split(":")[0]] += 1
        for name, reason in entry["not_applicable"].items():
            counts.not_applicable[name][reason] += 1
            if not other_subset(name, reason):
                counts.why_not_applicable[f"{name}: {reason_kind(reason)}"] += 1
        for ground in entry.get("blind_grounds", []):
            counts.why_blind[reason_kind(ground)] += 1
        for name, who, why in entry.get("rejected", []):
            counts.why_rejected[f"{name}: {who}: {reason_kind(why)}"] += 1
        for name, seconds in entry["seconds"].items():
            counts.seconds[name] += seconds
        for _name, family, status in entry.get("qc", []):
            counts.qc[family][status] += 1
        for name, decision in entry.get("gate", []):
            counts.gate[name][decision] += 1
        if entry.get("blind"):
            method, verdict, removed = entry["blind"]
            counts.blind[method][verdict] += 1
            if verdict in NO_EVIDENCE_EDIT:
                counts.blind_outcomes[_blind_outcome(entry, removed)] += 1
    return counts


def _blind_outcome(entry: dict[str, Any], removed: bool) -> str:
    """What a knowledge-recoverable (or contested) source became."""
    if entry.get("skipped"):
        return "skipped as a source"
    if not removed:
        return "unchanged (no evidence edit was a candidate, or the policy only records)"
    if entry["emitted"]:
        return "question rewrite instead of an evidence edit"
    return "no counterpart (no question rewrite applies)"


def qc_rates(by_family: dict[str, Counter]) -> dict[str, Any]:
    """Accepted / rejected / flagged / qc_error per family and overall, counts and rates."""
    from ..qc.consensus import STATUSES

    def block(counter: Counter) -> dict[str, Any]:
        total = sum(counter.values())
        return {
            "judged": total,
            "counts": {status: counter[status] for status in STATUSES},
            "rates": {
                status: round(counter[status] / total, 4) if total else None for status in STATUSES
            },
        }

    overall: Counter = Counter()
    for counter in by_family.values():
        overall.update(counter)
    return {
        "overall": block(overall),
        "by_family": {family: block(c) for family, c in sorted(by_family.items())},
    }
