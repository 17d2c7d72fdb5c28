"""What a build hands each worker (:class:`JobSpec`, a sample with its route) and what
comes back (:class:`SampleOutcome`). Plain data: it crosses process boundaries, and the
parent commits outcomes in source order (:mod:`.parallel`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..evidence.context import DEFAULT_CONTEXT
from ..media.inputs import InputLimits
from ..model import Sample, SampleProblem
from ..models import ClientOptions
from ..qc.verify import QcSpec
from ..routing.route import RouteDecision
from ..transforms.base import Transform
from ..transforms.registry import get_registry


@dataclass(frozen=True)
class JobSpec:
    """What every worker needs to know about the run (picklable)."""

    out_dir: str
    seed: int
    transforms: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]  # (name, params) in order
    plugins: tuple[str, ...] = ()
    routing: str = "none"
    limits: InputLimits = field(default_factory=InputLimits)
    #: The rewrite model's spec (LLM mode) and how its client behaves; None: offline.
    llm: str | None = None
    model_options: ClientOptions | None = None
    #: Routing: the terminal fallbacks that end a document sample's chain (also in
    #: ``transforms``, so workers can run them).
    terminal: tuple[str, ...] = ()
    #: How items are verified (judges, self-check); None: structural checks only.
    qc: QcSpec | None = None
    #: What a model is meant to see of a document: "document" (the whole PDF) or "pages".
    context: str = DEFAULT_CONTEXT
    #: Keep an edit that printed a new answer as an answer-changed item (SPEC 7); False:
    #: drop it and go on to the next transform, as for any item that is not unanswerable.
    answer_changed: bool = True
    #: The blind check's model spec (text only); None: the offline cues.
    blind_gate: str | None = None
    #: What a knowledge-recoverable (or contested) sample gets: "rewrite", "skip" or
    #: "record".
    blind_policy: str = "rewrite"
    #: Sources blind readers answered from recall (:mod:`..validity.recall`): id -> readers.
    recalled: tuple[tuple[str, int], ...] = ()
    #: Sources blind readers answered with another answer than the gold: id -> readers.
    contested: tuple[tuple[str, int], ...] = ()
    #: Documents blind readers remembered (golds given from memory): file name -> readers.
    recalled_documents: tuple[tuple[str, int], ...] = ()
    #: The OCR and page-reading cache folder; None: ``OUT/state/ocr``.
    ocr_cache: str | None = None

    @property
    def ocr_cache_dir(self) -> Path:
        return Path(self.ocr_cache) if self.ocr_cache else Path(self.out_dir) / "state" / "ocr"

    def build_transforms(self) -> list[Transform]:
        registry = get_registry(self.plugins)
        return [registry.get(name)(**dict(params)) for name, params in self.transforms]


@dataclass
class SampleOutcome:
    """Everything the parent commits for one source record."""

    sample_id: str
    records: list[dict[str, Any]] = field(default_factory=list)
    problems: list[SampleProblem] = field(default_factory=list)
    skipped: str | None = None
    not_applicable: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    #: Model calls made for this sample (``ModelStats`` deltas, one per model).
    model_usage: list[dict[str, Any]] = field(default_factory=list)
    #: Every QC decision for this sample: [transform, family, status], rejections included.
    qc: list[list[str]] = field(default_factory=list)
    #: What rejected each rejected item: [transform, who, why] (``QcResult.grounds``).
    rejections: list[list[str]] = field(default_factory=list)
    #: Every re-read gate decision: [transform, "passed" | "failed"].
    gate: list[list[str]] = field(default_factory=list)
    #: The blind check's verdict (``BlindVerdict.to_json``), and whether it took evidence
    #: edits away from the sample.
    blind: dict[str, Any] | None = None
    blind_removed: bool = False

    @property
    def status(self) -> str:
        if self.skipped is not None:
            return "skipped"
        if self.problems and not self.records:
            return "error"
        return "partial" if self.problems else "ok"


@dataclass(frozen=True)
class RoutedSample:
    """A sample with its routing decision, as phase two of a routed build receives it."""

    sample: Sample
    decision: RouteDecision

    @property
    def id(self) -> str:
        return self.sample.id

    @property
    def source(self) -> Any:
        return self.sample.source


@dataclass(frozen=True)
class Failure:
    """Why one transform gave the sample no counterpart: declined, failed or rejected."""

    kind: str  # "not_applicable", "error", "qc"
    stage: str
    reason: str


def outcome_for_problem(problem: SampleProblem) -> SampleOutcome:
    """A loader problem: a skip (already unanswerable) or an error record."""
    if problem.skip:
        return SampleOutcome(sample_id=problem.sample_id, skipped=problem.reason)
    return SampleOutcome(sample_id=problem.sample_id, problems=[problem])
