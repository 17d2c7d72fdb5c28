"""One sample, start to finish: validate, write the control, apply each selected transform.

This runs in worker processes. It writes asset files itself (atomically, under names that
depend only on the sample and the transform) and returns the records for the parent to
commit in source order.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..blind import BlindGate, BlindVerdict, removes_evidence
from ..errors import SampleError, raise_if_environmental
from ..evidence.map import evidence_map
from ..evidence.policy import QUESTION
from ..media.inputs import SampleInputs
from ..model import Sample, SampleProblem
from ..models import ModelClient, stats_delta, stop_if_unusable
from ..qc.items import output_item
from ..qc.verify import QcResult, Verifier
from ..routing import select_transforms
from ..routing.features import sample_features
from ..routing.route import NOT_ROUTED, RouteDecision, SampleScores, score_sample
from ..schema import ANSWER_CHANGED
from ..textregions.ocr import configure_ocr_cache
from ..transforms.base import NotApplicable, Transform
from . import fates
from .apply import LeftWhole, TransformOutput, left_whole_gate, reread, run_transform
from .assets import AssetStore
from .evidence_sets import add_evidence_sets
from .fates import Fate
from .jobs import JobSpec, RoutedSample, SampleOutcome
from .prefetch import prefetch_rewrites
from .records import ControlAssets, control_record, evidence_block, perturbed_record

#: QC rejections after the first before a routed sample is given up (the method's 5).
MAX_QC_RETRIES = 5


@dataclass
class ChainRun:
    """What a chain run left: the routing record's attempts, the items QC rejected, and
    whether an item was written."""

    attempts: list[dict[str, str]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    shipped: bool = False
    routed: bool = True


class SampleProcessor:
    """Holds the instantiated transforms of a run; one per process."""

    def __init__(self, job: JobSpec) -> None:
        self.job = job
        self.transforms = job.build_transforms()
        self.by_name = {t.name: t for t in self.transforms}
        self.assets = AssetStore(Path(job.out_dir))
        # Workers of one run, a resumed run and the builds given one --ocr-cache share OCR
        # results: no page is read twice.
        configure_ocr_cache(job.ocr_cache_dir)
        self.llm = ModelClient(job.config.llm, job.model_options) if job.config.llm else None
        blind_gate = job.config.blind_gate
        blind_client = ModelClient(blind_gate, job.model_options) if blind_gate else None
        self.blind = BlindGate(
            job.config.blind_policy,
            blind_client,
            dict(job.recalled),
            dict(job.contested),
            dict(job.recalled_documents),
        )
        self._verifier: Verifier | None = None

    @property
    def verifier(self) -> Verifier | None:
        """The run's judges, built on first use (a routing-only process needs none)."""
        if self._verifier is None and self.job.qc is not None:
            self._verifier = Verifier(self.job.qc, self.llm)
        return self._verifier

    def _clients(self) -> list[ModelClient]:
        clients = [self.llm] if self.llm is not None else []
        if self.blind.client is not None:
            clients.append(self.blind.client)
        if self.job.qc is not None and self.verifier is not None:
            clients += self.verifier.model_clients()
        return clients

    def __call__(self, item: Sample | RoutedSample) -> SampleOutcome:
        """Validate, write the control, then the perturbed item(s) (routed: at most one)."""
        clients = self._clients()
        if not clients:
            return self._process(item)
        before = [c.stats.to_json() for c in clients]
        outcome = self._process(item)
        self._stop_if_model_unusable()
        outcome.model_usage += [
            stats_delta(b, c.stats.to_json()) for b, c in zip(before, clients, strict=True)
        ]
        return outcome

    def _stop_if_model_unusable(self) -> None:
        """Stop the run (``RunStopped``) when a model can no longer be used. The current
        sample is not committed, so a re-run redoes it."""
        stop_if_unusable(self._clients())

    def score(self, sample: Sample) -> SampleScores:
        """Routing step 1 for one sample: its features and every candidate's score."""
        clients = [c for c in (self.llm, self.blind.client) if c is not None]
        before = [c.stats.to_json() for c in clients]
        started = time.perf_counter()
        scored = self._score(sample)
        scored.seconds = time.perf_counter() - started
        self._stop_if_model_unusable()
        scored.model_usage += [
            stats_delta(b, c.stats.to_json()) for b, c in zip(before, clients, strict=True)
        ]
        return scored

    def _score(self, sample: Sample) -> SampleScores:
        inputs = SampleInputs(sample, self.job.limits)
        try:
            inputs.validate(render=False)
            features = sample_features(sample, inputs, self.llm)
            if self.blind.decides:
                features.blind = self.blind.check(sample).verdict
        except SampleError as error:
            return SampleScores(sample.id, sample.axis, problem=error.reason)
        except Exception as exc:
            raise_if_environmental(exc)
            return SampleScores(sample.id, sample.axis, problem=_describe(exc))
        finally:
            inputs.close()
        return score_sample(sample, self.transforms, features)

    def close(self) -> None:
        if self.llm is not None:
            self.llm.close()
        if self._verifier is not None:
            self._verifier.close()

    def _process(self, item: Sample | RoutedSample) -> SampleOutcome:
        sample = item.sample if isinstance(item, RoutedSample) else item
        outcome = SampleOutcome(sample_id=sample.id)
        verdict = self.blind.check(sample)
        outcome.blind = verdict.to_json()
        if verdict.rules_out_evidence_edits and self.blind.policy == "skip":
            outcome.skipped = verdict.reason()
            return outcome
        inputs = SampleInputs(sample, self.job.limits)
        try:
            started = time.perf_counter()
            inputs.validate()
            control = self._write_control(sample, inputs)
            emap = evidence_map(sample, inputs) if sample.document is not None else None
            outcome.records.append(
                control_record(sample, control, self.job.config.context, emap, outcome.blind)
            )
            outcome.seconds["original"] = time.perf_counter() - started
        except SampleError as error:
            outcome.problems.append(_problem(sample, error.stage, error.reason))
            inputs.close()
            return outcome
        except Exception as exc:  # an unexpected failure is still one sample's failure
            raise_if_environmental(exc)
            outcome.problems.append(_problem(sample, "validate", _describe(exc)))
            inputs.close()
            return outcome

        if isinstance(item, RoutedSample):
            self._routed(item.decision, sample, inputs, control, outcome, verdict)
        else:
            self._all_that_fit(sample, inputs, control, outcome, verdict)
        if self.job.config.evidence_sets:
            config = self.job.config
            add_evidence_sets(outcome, sample, inputs, control, emap, verdict, config, self.assets)
        inputs.close()
        return outcome

    def _all_that_fit(
        self,
        sample: Sample,
        inputs: SampleInputs,
        control: ControlAssets,
        outcome: SampleOutcome,
        verdict: BlindVerdict,
    ) -> None:
        """``--no-routing``: the chain runner over every requested transform that fits, each
        reported on its own (a rejected item is counted, not written). A question
        answerable without its evidence gets no evidence edit (blind check, unless its
        policy is "record")."""
        selection = select_transforms(sample, self.transforms, self.job.config.routing)
        if verdict.rules_out_evidence_edits and self.blind.decides:
            for transform in [t for t in selection.candidates if removes_evidence(t)]:
                selection.candidates.remove(transform)
                selection.not_applicable[transform.name] = verdict.reason()
                outcome.blind_removed = True
        outcome.not_applicable.update(selection.not_applicable)
        if self.llm is not None:
            _prefetch(selection.candidates, sample, inputs, self.llm)
        self.run_chain(
            selection.candidates,
            sample,
            inputs,
            control,
            outcome,
            lambda _: selection.record(),
            every=True,
        )

    def _routed(
        self,
        decision: RouteDecision,
        sample: Sample,
        inputs: SampleInputs,
        control: ControlAssets,
        outcome: SampleOutcome,
        verdict: BlindVerdict,
    ) -> None:
        """Routing: the chosen transform, else its fallbacks in order; one item at most.

        With QC, an item the judges reject (or the self-check answers) sends the sample on
        to its next eligible transform, up to :data:`MAX_QC_RETRIES` times.
        """
        gated = verdict.rules_out_evidence_edits and self.blind.decides
        outcome.blind_removed = gated and any(
            removes_evidence(t) for t in self.transforms if t.check(sample) is None
        )
        if not decision.chain:
            if decision.reason.startswith(NOT_ROUTED):  # scoring failed: an error, with why
                outcome.problems.append(_problem(sample, "routing", decision.reason))
            else:
                outcome.not_applicable["blind" if gated else "routing"] = decision.reason
            return
        names = list(decision.chain)
        if self.job.qc is not None:  # QC retries may go past the chain's fallbacks
            names += [n for n in decision.eligible if n not in names]
        kind = _kind(sample)
        chain = self._measured_first([self.by_name[n] for n in names if n in self.by_name], kind)
        if self.llm is not None:
            _prefetch(chain[:1], sample, inputs, self.llm)
        ran = self.run_chain(chain, sample, inputs, control, outcome, decision.record, kind=kind)
        if ran.shipped:
            return
        tried = "; ".join(f"{a['transform']}: {a['reason']}" for a in ran.attempts)
        if gated:
            # Evidence edits were ruled out and no question rewrite applies: a source the
            # benchmark cannot use, not a failure.
            outcome.not_applicable["blind"] = f"{verdict.reason()}; no question rewrite applies"
            return
        if ran.rejected:
            # QC doing its job (the method drops about 15%), not a failure of the run.
            outcome.not_applicable["qc"] = (
                f"given up: QC rejected {len(ran.rejected)} item(s) and no other transform was left"
            )
            return
        outcome.problems.append(
            _problem(sample, "routing", f"no transform of the chain gave an item ({tried})")
        )

    def run_chain(
        self,
        chain: list[Transform],
        sample: Sample,
        inputs: SampleInputs,
        control: ControlAssets,
        outcome: SampleOutcome,
        routing: Callable[[list[dict[str, str]]], dict[str, Any]],
        *,
        every: bool = False,
        kind: str = "",
    ) -> ChainRun:
        """Try ``chain`` in order, each transform's :meth:`fate` decided in one place.

        Routed (``every`` False): the first accepted item ends the chain; up to
        :data:`MAX_QC_RETRIES` rejections after the first; an item the validity policy
        holds back is written (flagged) only when no transform that clears the bar gives
        an accepted one. ``--no-routing`` (``every``): every transform's item is written,
        held back ones flagged, and each fate without one is reported on its own.
        ``routing`` gives the routing record from the attempts so far."""
        ran = ChainRun(routed=not every)
        #: The first item the validity policy held back (routed only).
        held: Fate | None = None
        for transform in chain:
            if not every and len(ran.rejected) > MAX_QC_RETRIES:
                break
            if held is not None and not self._clears(transform, kind):
                continue  # another unmeasured item would be held back too
            record = partial(routing, ran.attempts)  # made only for an answer-changed item
            fate = self.fate(transform, sample, inputs, control, outcome, record)
            if fate.kind == fates.ACCEPTED or (every and fate.ships):
                self._ship(fate, sample, inputs, control, outcome, routing(ran.attempts), ran)
                if not every:
                    return ran
                continue
            ran.attempts.append(fate.attempt())
            if fate.kind == fates.REJECTED:
                verdicts = fate.verification.verdicts if fate.verification is not None else []
                ran.rejected.append(
                    {
                        "transform": transform.name,
                        "reason": fate.reason,
                        "judges": [v.to_json() for v in verdicts],
                    }
                )
            elif fate.kind == fates.HELD:
                held = held or fate
            elif fate.kind == fates.NOT_APPLICABLE or (
                every and fate.kind in (fates.LEAK, fates.CHANGED_DROPPED)
            ):
                outcome.not_applicable[transform.name] = fate.reason
            elif every and fate.kind in (fates.ERROR, fates.STRUCTURAL):
                outcome.problems.append(_problem(sample, fate.stage, fate.reason, transform.name))
        if held is not None:
            self._ship(held, sample, inputs, control, outcome, routing(ran.attempts), ran)
        return ran

    def _ship(
        self,
        fate: Fate,
        sample: Sample,
        inputs: SampleInputs,
        control: ControlAssets,
        outcome: SampleOutcome,
        routing: dict[str, Any],
        ran: ChainRun,
    ) -> None:
        """Write ``fate``'s item; a routed one's QC block names the items QC rejected on the
        way."""
        assert fate.output is not None
        qc = None if fate.verification is None else fate.verification.to_json()
        if qc is not None and ran.routed:
            qc = dict(qc, rejected=ran.rejected)
        outcome.records.append(
            self._write_perturbed(sample, inputs, control, fate.output, routing, qc)
        )
        ran.shipped = True

    def fate(
        self,
        transform: Transform,
        sample: Sample,
        inputs: SampleInputs,
        control: ControlAssets,
        outcome: SampleOutcome,
        routing: Callable[[], dict[str, Any]],
    ) -> Fate:
        """What becomes of ``transform`` on this sample (:mod:`.fates`): declined, failed or
        caught by the re-read gate; an answer-changed item (written here, at most one per
        sample); rejected or held back by QC; or accepted. ``routing`` gives the record an
        answer-changed item is written with (made only for one)."""
        fate = self._attempt(transform, sample, inputs, outcome)
        output = fate.output
        if output is None:
            return fate
        if output.plan.new_answer is not None:
            reason = self._answer_changed(sample, inputs, control, output, routing(), outcome)
            return Fate(
                transform.name,
                fates.CHANGED_DROPPED if reason else fates.CHANGED_KEPT,
                reason,
                output=output,
            )
        verification = self._verify(transform, sample, inputs, output, outcome)
        if verification is not None and verification.rejected:
            return Fate(
                transform.name, fates.REJECTED, verification.reason(), "", output, verification
            )
        if verification is not None and verification.held:
            return Fate(transform.name, fates.HELD, verification.reason(), "", output, verification)
        return Fate(transform.name, fates.ACCEPTED, output=output, verification=verification)

    def _clears(self, transform: Transform, kind: str) -> bool:
        """Whether ``transform``'s measured validity clears the run's bar for a question of
        ``kind`` (True when no bar is applied)."""
        policy = self.job.qc.validity if self.job.qc is not None else None
        if policy is None or not policy.applied:
            return True
        mode = transform.expected_mode(self.llm is not None)
        return policy.clears(transform.name, transform.version, mode, kind)

    def _measured_first(self, chain: list[Transform], kind: str) -> list[Transform]:
        """The chain with the transforms that clear the validity bar moved to the front (in
        chain order); the others, the terminal fallbacks among them, keep their order. With
        no bar applied, the chain as routed."""
        policy = self.job.qc.validity if self.job.qc is not None else None
        if policy is None or not policy.applied:
            return chain
        cleared = [t for t in chain if not t.terminal_fallback and self._clears(t, kind)]
        return cleared + [t for t in chain if t not in cleared]

    def _answer_changed(
        self,
        sample: Sample,
        inputs: SampleInputs,
        control: ControlAssets,
        output: TransformOutput,
        routing: dict[str, Any],
        outcome: SampleOutcome,
    ) -> str:
        """Keep an item whose edit printed a new answer as an answer-changed item (at most
        one per sample). Returns why it was not kept, or "" when it was."""
        if not self.job.config.answer_changed:
            return (
                f"the answer now reads {output.plan.new_answer}: a new answer, not none"
                " (answer-changed items are off)"
            )
        if any(r.get("kind") == ANSWER_CHANGED for r in outcome.records):
            return "the sample already has an answer-changed item"
        outcome.records.append(self._write_perturbed(sample, inputs, control, output, routing))
        return ""

    def _verify(
        self,
        transform: Transform,
        sample: Sample,
        inputs: SampleInputs,
        output: TransformOutput,
        outcome: SampleOutcome,
    ) -> QcResult | None:
        """QC of one item (None when QC is off); the decision is counted in ``outcome``."""
        if self.verifier is None:
            return None
        result = self.verifier.verify(output_item(sample, inputs, transform.name, output))
        outcome.qc.append([transform.name, transform.family, result.status])
        if result.rejected:
            outcome.rejections += [[transform.name, *ground] for ground in result.grounds()]
        return result

    def _attempt(
        self, transform: Transform, sample: Sample, inputs: SampleInputs, outcome: SampleOutcome
    ) -> Fate:
        """One transform on one sample: its output (an ``accepted`` fate until QC says
        otherwise), or why there is none (not applicable, an error, a failed structural
        check, or the answer still stated)."""
        name = transform.name
        stage = f"transform:{name}"
        started = time.perf_counter()
        try:
            output = run_transform(
                transform,
                sample,
                inputs,
                self.job.config.seed,
                llm=self.llm,
                context=self.job.config.context,
                before_apply=left_whole_gate(transform, sample, inputs, self.job.config.context),
            )
        except NotApplicable as reason:
            return Fate(name, fates.NOT_APPLICABLE, str(reason), stage)
        except LeftWhole as left:
            outcome.gate.append([transform.name, "failed"])
            return Fate(name, fates.LEAK, f"re-read gate: {left.gate.reason()}", "reread")
        except SampleError as error:
            return Fate(name, fates.ERROR, error.reason, stage)
        except Exception as exc:  # one transform's bug is one sample's error record
            raise_if_environmental(exc)
            return Fate(name, fates.ERROR, _describe(exc), stage)
        outcome.seconds[transform.name] = output.seconds
        if not output.qc["passed"]:
            failed = [c for c in output.qc["checks"] if not c["passed"]]
            detail = "; ".join(f"{c['name']} {c['detail']}".strip() for c in failed)
            return Fate(name, fates.STRUCTURAL, f"structural check failed: {detail}", "qc")
        try:
            gate = reread(transform, sample, inputs, output, self.job.config.context)
        except SampleError as error:
            return Fate(name, fates.ERROR, error.reason, "reread")
        except Exception as exc:
            raise_if_environmental(exc)
            return Fate(name, fates.ERROR, _describe(exc), "reread")
        outcome.seconds[transform.name] = time.perf_counter() - started
        if gate is not None and gate.policy != QUESTION:  # a rewrite's evidence is not read
            outcome.gate.append([transform.name, "passed" if gate.passed else "failed"])
            if not gate.passed:
                return Fate(name, fates.LEAK, f"re-read gate: {gate.reason()}", "reread")
        return Fate(name, fates.ACCEPTED, output=output)

    def _write_control(self, sample: Sample, inputs: SampleInputs) -> ControlAssets:
        if sample.document is not None:
            document = self.assets.shared_document(sample.document.doc_id, inputs.document_bytes())
            images = [
                self.assets.variant_file(sample.id, "original", f"page-{page:04d}.png", png)
                for page, png in zip(sample.evidence_pages, inputs.evidence_renders(), strict=True)
            ]
            return ControlAssets(
                images=images, document=document, sanitised=inputs.document_removed()
            )
        images = [
            self.assets.variant_file(sample.id, "original", f"{ref.key}.{ext}", data)
            for ref, (data, ext) in zip(sample.images, inputs.control_images(), strict=True)
        ]
        return ControlAssets(images=images, document=None)

    def _write_perturbed(
        self,
        sample: Sample,
        inputs: SampleInputs,
        control: ControlAssets,
        output: TransformOutput,
        routing: dict[str, Any],
        verification: dict[str, Any] | None = None,
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
        emap = evidence_map(sample, inputs) if sample.document is not None else None
        return perturbed_record(
            sample,
            question=output.question,
            images=images,
            document=document,
            transform=output.record.to_json(),
            routing=routing,
            preliminary=output.qc,
            verification=verification,
            context=self.job.config.context,
            evidence=evidence_block(emap, output.gate),
            new_answer=output.plan.new_answer,
            blind=self.blind.check(sample).to_json(),
            sanitised=control.sanitised,
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


def _kind(sample: Sample) -> str:
    from ..questions.kinds import question_kind

    return question_kind(
        sample.question, sample.options, len(sample.images), document=sample.document is not None
    )


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


# Process-pool plumbing: one processor per worker process, built by the initializer.
_PROCESSOR: SampleProcessor | None = None


def init_worker(job: JobSpec) -> None:
    global _PROCESSOR
    _PROCESSOR = SampleProcessor(job)


def process_in_worker(item: Sample | RoutedSample) -> SampleOutcome:
    assert _PROCESSOR is not None, "init_worker was not called"
    return _PROCESSOR(item)


def score_in_worker(sample: Sample) -> SampleScores:
    assert _PROCESSOR is not None, "init_worker was not called"
    return _PROCESSOR.score(sample)
