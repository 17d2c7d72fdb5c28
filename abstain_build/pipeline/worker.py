"""One sample, start to finish: validate, write the control, apply each selected transform.

This runs in worker processes. It writes asset files itself (atomically, under names that
depend only on the sample and the transform) and returns the records for the parent to
commit in source order.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import RunStopped, SampleError
from ..media.inputs import InputLimits, SampleInputs
from ..model import Sample, SampleProblem
from ..models import ClientOptions, ModelClient, stats_delta
from ..routing import select_transforms
from ..textregions.ocr import configure_ocr_cache
from ..transforms.base import NotApplicable, Transform
from ..transforms.registry import get_registry
from .apply import TransformOutput, run_transform
from .assets import AssetStore
from .prefetch import prefetch_rewrites
from .records import ControlAssets, control_record, perturbed_record


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

    @property
    def status(self) -> str:
        if self.skipped is not None:
            return "skipped"
        if self.problems and not self.records:
            return "error"
        return "partial" if self.problems else "ok"


def outcome_for_problem(problem: SampleProblem) -> SampleOutcome:
    """A loader problem: a skip (already unanswerable) or an error record."""
    if problem.skip:
        return SampleOutcome(sample_id=problem.sample_id, skipped=problem.reason)
    return SampleOutcome(sample_id=problem.sample_id, problems=[problem])


class SampleProcessor:
    """Holds the instantiated transforms of a run; one per process."""

    def __init__(self, job: JobSpec) -> None:
        self.job = job
        self.transforms = job.build_transforms()
        self.assets = AssetStore(Path(job.out_dir))
        # Workers of one run, and a resumed run, share OCR results: no page is read twice.
        configure_ocr_cache(Path(job.out_dir) / "state" / "ocr")
        self.llm = ModelClient(job.llm, job.model_options) if job.llm else None

    def __call__(self, sample: Sample) -> SampleOutcome:
        if self.llm is None:
            return self._process(sample)
        before = self.llm.stats.to_json()
        outcome = self._process(sample)
        if self.llm.fatal_error:
            # Every later request would fail the same way: stop rather than write an error
            # record per sample. This sample is not committed, so a re-run redoes it.
            raise RunStopped(
                f"{self.llm.label} cannot be used: {self.llm.fatal_error}."
                " Fix the model settings and re-run the same command to resume."
            )
        outcome.model_usage.append(stats_delta(before, self.llm.stats.to_json()))
        return outcome

    def close(self) -> None:
        if self.llm is not None:
            self.llm.close()

    def _process(self, sample: Sample) -> SampleOutcome:
        outcome = SampleOutcome(sample_id=sample.id)
        inputs = SampleInputs(sample, self.job.limits)
        try:
            started = time.perf_counter()
            inputs.validate()
            control = self._write_control(sample, inputs)
            outcome.records.append(control_record(sample, control))
            outcome.seconds["original"] = time.perf_counter() - started
        except SampleError as error:
            outcome.problems.append(_problem(sample, error.stage, error.reason))
            inputs.close()
            return outcome
        except Exception as exc:  # an unexpected failure is still one sample's failure
            outcome.problems.append(_problem(sample, "validate", _describe(exc)))
            inputs.close()
            return outcome

        selection = select_transforms(sample, self.transforms, self.job.routing)
        outcome.not_applicable.update(selection.not_applicable)
        if self.llm is not None:
            _prefetch(selection.candidates, sample, inputs, self.llm)
        for transform in selection.candidates:
            try:
                output = run_transform(transform, sample, inputs, self.job.seed, llm=self.llm)
            except NotApplicable as reason:
                outcome.not_applicable[transform.name] = str(reason)
                continue
            except SampleError as error:
                outcome.problems.append(
                    _problem(sample, f"transform:{transform.name}", error.reason, transform.name)
                )
                continue
            except Exception as exc:
                outcome.problems.append(
                    _problem(sample, f"transform:{transform.name}", _describe(exc), transform.name)
                )
                continue
            outcome.seconds[transform.name] = output.seconds
            if not output.qc["passed"]:
                failed = [c for c in output.qc["checks"] if not c["passed"]]
                detail = "; ".join(f"{c['name']} {c['detail']}".strip() for c in failed)
                outcome.problems.append(
                    _problem(sample, "qc", f"structural check failed: {detail}", transform.name)
                )
                continue
            outcome.records.append(self._write_perturbed(sample, control, output, selection))
        inputs.close()
        return outcome

    def _write_control(self, sample: Sample, inputs: SampleInputs) -> ControlAssets:
        if sample.document is not None:
            document = self.assets.shared_document(sample.document.doc_id, inputs.document_bytes())
            images = [
                self.assets.variant_file(sample.id, "original", f"page-{page:04d}.png", png)
                for page, png in zip(sample.evidence_pages, inputs.evidence_renders(), strict=True)
            ]
            return ControlAssets(images=images, document=document)
        images = [
            self.assets.variant_file(sample.id, "original", f"{ref.key}.{ext}", data)
            for ref, data, ext in zip(
                sample.images, inputs.image_bytes(), inputs.image_extensions(), strict=True
            )
        ]
        return ControlAssets(images=images, document=None)

    def _write_perturbed(
        self, sample: Sample, control: ControlAssets, output: TransformOutput, selection: Any
    ) -> dict[str, Any]:
        name = output.record.name
        images, document = control.images, control.document
        if output.images is not None:
            if output.pages:
                names = [f"page-{page:04d}.png" for page in output.pages]
            else:
                names = [f"{ref.key}.png" for ref in sample.images]
            images = [
                self.assets.variant_file(sample.id, name, file_name, png)
                for file_name, png in zip(names, output.images, strict=True)
            ]
        if output.pdf is not None:
            document = self.assets.variant_file(sample.id, name, "document.pdf", output.pdf)
        return perturbed_record(
            sample,
            question=output.question,
            images=images,
            document=document,
            transform=output.record.to_json(),
            routing=selection.record(),
            preliminary=output.qc,
        )


def _prefetch(
    transforms: list[Transform], sample: Sample, inputs: SampleInputs, llm: ModelClient
) -> None:
    """Ask for the sample's rewrites together; a failure here resurfaces in its transform,
    where it becomes that transform's error record."""
    with contextlib.suppress(Exception):  # only a speed-up
        prefetch_rewrites(transforms, sample, inputs, llm)


def _problem(
    sample: Sample, stage: str, reason: str, transform: str | None = None
) -> SampleProblem:
    return SampleProblem(
        sample_id=sample.id, stage=stage, reason=reason, source=sample.source, transform=transform
    )


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


# Process-pool plumbing: one processor per worker process, built by the initializer.
_PROCESSOR: SampleProcessor | None = None


def init_worker(job: JobSpec) -> None:
    global _PROCESSOR
    _PROCESSOR = SampleProcessor(job)


def process_in_worker(sample: Sample) -> SampleOutcome:
    assert _PROCESSOR is not None, "init_worker was not called"
    return _PROCESSOR(sample)
