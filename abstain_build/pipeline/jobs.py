"""What a build hands each worker (:class:`JobSpec`, a sample with its route) and what
comes back (:class:`SampleOutcome`). Plain data: it crosses process boundaries, and the
parent commits outcomes in source order (:mod:`.parallel`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import BuildConfig
from ..media.inputs import InputLimits
from ..model import Sample, SampleProblem
from ..models import ClientOptions
from ..qc.verify import QcSpec
from ..routing.route import RouteDecision
from ..transforms.base import Transform
from ..transforms.registry import get_registry


@dataclass(frozen=True)
class JobSpec:
    """What every worker needs to know about the run (picklable): the build's settings as
    given (:class:`..config.BuildConfig`, its paths made absolute), and what the parent
    resolved from them before anything was written. A new setting is a field of
    :class:`..config.BuildConfig` (and its option of ``transform``), nothing here: workers
    read it from :attr:`config`."""

    config: BuildConfig
    transforms: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]  # (name, params) in order
    #: How the model clients (rewrite model, blind check) behave; None: offline.
    model_options: ClientOptions | None = None
    #: Routing: the terminal fallbacks that end a document sample's chain (also in
    #: ``transforms``, so workers can run them).
    terminal: tuple[str, ...] = ()
    #: How items are verified (judges, self-check); None: structural checks only.
    qc: QcSpec | None = None
    #: Sources blind readers answered from recall (:mod:`..validity.recall`): id -> readers.
    recalled: tuple[tuple[str, int], ...] = ()
    #: Sources blind readers answered with another answer than the gold: id -> readers.
    contested: tuple[tuple[str, int], ...] = ()
    #: Documents blind readers remembered (golds given from memory): file name -> readers.
    recalled_documents: tuple[tuple[str, int], ...] = ()

    @property
    def out_dir(self) -> str:
        return self.config.out

    @property
    def limits(self) -> InputLimits:
        return InputLimits(max_pixels=self.config.max_pixels, dpi=self.config.dpi)

    @property
    def ocr_cache_dir(self) -> Path:
        cache = self.config.ocr_cache
        return Path(cache) if cache else Path(self.config.out) / "state" / "ocr"

    def build_transforms(self) -> list[Transform]:
        registry = get_registry(tuple(self.config.plugins))
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


def outcome_for_problem(problem: SampleProblem) -> SampleOutcome:
    """A loader problem: a skip (already unanswerable) or an error record."""
    if problem.skip:
        return SampleOutcome(sample_id=problem.sample_id, skipped=problem.reason)
    return SampleOutcome(sample_id=problem.sample_id, problems=[problem])
