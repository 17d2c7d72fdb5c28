"""Routing before building: every sample scored (in workers), then chosen in source order.

The decisions are appended to ``OUT/state/routing.jsonl`` as they are made. They form a
prefix of the source, so a killed run resumes the pass where it stopped with the same
balancing counts (replayed from the file), and a resumed build reuses every decision:
routing, like the build, does not depend on workers, timing or interruptions.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import FAMILIES, Sample
from ..models import merge_stats
from ..routing.route import Balancer, ClearsBar, RouteDecision
from .jobs import JobSpec
from .parallel import ordered_results

ROUTES_FILE = "routing.jsonl"


def read_decisions(path: Path) -> dict[str, RouteDecision]:
    """Decisions written so far; a torn last line (a kill mid-write) is dropped."""
    decisions: dict[str, RouteDecision] = {}
    if not path.exists():
        return decisions
    lines = path.read_bytes().split(b"\n")
    complete = lines[:-1]  # the part after the last newline is empty or torn
    for line in complete:
        if line.strip():
            decision = RouteDecision.from_json(json.loads(line))
            decisions[decision.sample_id] = decision
    valid = sum(len(line) + 1 for line in complete)
    if valid != path.stat().st_size:
        with path.open("r+b") as handle:
            handle.truncate(valid)
    return decisions


@dataclass
class RoutingPass:
    """What the routing pass decided, and what deciding cost this run."""

    decisions: dict[str, RouteDecision]
    #: Model calls made for the samples scored this run (LLM mode).
    usage: list[dict[str, Any]] = field(default_factory=list)
    #: Worker seconds spent scoring the samples this run (not those replayed from disk):
    #: build work as much as the samples' steps are.
    seconds: float = 0.0


def route_dataset(
    items: Iterable[Any],
    job: JobSpec,
    workers: int,
    state_dir: Path,
    progress: Callable[[int], None] | None = None,
) -> RoutingPass:
    """A decision for every sample among ``items`` (loader problems are passed over), the
    model calls made for them (LLM mode) and the seconds scoring them took."""
    path = state_dir / ROUTES_FILE
    decisions = read_decisions(path)
    balancer = Balancer(terminal=job.terminal, clears=validity_bar(job))
    for decision in decisions.values():
        balancer.replay(decision)
    pending = (item for item in items if isinstance(item, Sample) and item.id not in decisions)
    routed = RoutingPass(decisions)
    with path.open("ab") as handle:
        for scored in ordered_results(pending, job, workers, "score"):
            routed.usage = merge_stats([*routed.usage, *scored.model_usage])
            routed.seconds += scored.seconds
            decision = balancer.choose(scored)
            handle.write((json.dumps(decision.to_json(), ensure_ascii=False) + "\n").encode())
            handle.flush()
            os.fsync(handle.fileno())
            decisions[decision.sample_id] = decision
            if progress:
                progress(len(decisions))
    return routed


def validity_bar(job: JobSpec) -> ClearsBar | None:
    """Whether a transform clears the run's validity bar for a question kind; None when
    no bar is applied."""
    from ..validity.policy import clears_bar

    policy = job.qc.validity if job.qc is not None else None
    if policy is None or not policy.applied:
        return None
    return clears_bar(policy, job.build_transforms(), job.config.llm is not None)


def family_distribution(decisions: Iterable[RouteDecision]) -> dict[str, Any]:
    """How the chosen transforms spread over families: counts, shares and the spread
    (largest family share minus smallest, per axis)."""
    by_axis: dict[str, dict[str, int]] = {}
    for decision in decisions:
        if decision.family is None:
            continue
        axis = decision.features.get("axis", "")
        counts = by_axis.setdefault(axis, {})
        counts[decision.family] = counts.get(decision.family, 0) + 1
    out: dict[str, Any] = {}
    for axis, counts in sorted(by_axis.items()):
        for family in FAMILIES.get(axis, ()):  # a family never chosen counts as 0
            counts.setdefault(family, 0)
        total = sum(counts.values())
        shares = {family: count / total for family, count in counts.items()}
        out[axis] = {
            "counts": dict(sorted(counts.items())),
            "shares": {k: round(v, 4) for k, v in sorted(shares.items())},
            "spread": round(max(shares.values()) - min(shares.values()), 4),
        }
    return out
