"""Verifying one perturbed item: self-check (with a model), then two judges and consensus.

Built once per worker process from a picklable :class:`QcSpec`. Judges of one item run
side by side (model judges wait on the network); each model judge has its own client,
sharing the run's reply cache, so a re-run asks no judge twice.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..errors import raise_if_environmental
from ..evidence.form_search import find_in_string
from ..evidence.forms import gold_items
from ..models import ClientOptions, ModelClient
from .consensus import ACCEPTED, FLAGGED, REJECTED, consensus
from .judges.base import ANSWERABLE, ERROR, Judge, JudgeItem, Verdict, get_judge
from .self_check import self_check

if TYPE_CHECKING:
    from ..validity.policy import ValidityDecision, ValidityPolicy

#: The offline pair: what ``--qc offline`` (and a build without ``--judge``) uses.
OFFLINE_JUDGES = ("offline:leak", "offline:retention")
QC_MODES = ("offline", "judges", "none")


@dataclass(frozen=True)
class QcSpec:
    """How items are verified in a run (picklable: workers build their judges from it)."""

    judges: tuple[str, ...] = OFFLINE_JUDGES
    self_check: bool = False  # ask the rewrite model (--llm) first
    model_options: ClientOptions | None = None
    #: The measured validity each item is judged by (recorded as ``qc.validity``; applied
    #: when the policy says so); None: not recorded.
    validity: ValidityPolicy | None = None


@dataclass
class QcResult:
    """The verdicts on one item and what they decide."""

    status: str
    verdicts: list[Verdict] = field(default_factory=list)
    self_check: dict[str, Any] | None = None
    #: The validity policy's word (``ValidityDecision.to_json``), when the run has one.
    validity: dict[str, Any] | None = None

    @property
    def rejected(self) -> bool:
        return self.status == REJECTED

    @property
    def held(self) -> bool:
        """Accepted by the judges, flagged because the transform's measured validity is
        not known to be high enough."""
        return bool(self.validity and self.validity.get("held"))

    def reason(self) -> str:
        """Why an item was rejected (or held back), in one line."""
        if self.held and self.validity is not None:
            return f"held back by the validity policy: {self.validity['reason']}"
        if self.self_check and self.self_check.get("rejects"):
            return (
                f"self-check: {self.self_check['model']} answered"
                f" {self.self_check.get('answer')!r} with {self.self_check['confidence']}"
                " confidence"
            )
        return "; ".join(f"{v.judge}: {v.verdict} ({v.justification})" for v in self.verdicts)

    def grounds(self) -> list[tuple[str, str]]:
        """What rejected the item, as (who, why), one per voice against it: the self-check,
        or each judge that found it answerable. For counts over a build."""
        if self.self_check and self.self_check.get("rejects"):
            return [("self-check", f"{self.self_check['model']} answered the question")]
        return [
            (v.judge, v.justification)
            for v in self.verdicts
            if v.read_gold or v.verdict == ANSWERABLE
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "judges": [v.to_json() for v in self.verdicts],
            "self_check": self.self_check,
            "validity": self.validity,
        }


def make_judge(spec: str, options: ClientOptions | None) -> Judge:
    """A registered judge by name, or a model judge from a model spec."""
    from .judges.model_judge import ModelJudge

    return get_judge(spec, model_factory=lambda s: ModelJudge(s, options))


class Verifier:
    """Self-check and judges for one process."""

    def __init__(self, spec: QcSpec, llm: ModelClient | None = None) -> None:
        self.spec = spec
        self.llm = llm if spec.self_check else None
        self.judges = [make_judge(name, spec.model_options) for name in spec.judges]

    def verify(self, item: JudgeItem) -> QcResult:
        checked = self_check(self.llm, item) if self.llm is not None else None
        if checked is not None and checked["rejects"]:
            return QcResult(REJECTED, [], checked)
        with ThreadPoolExecutor(max_workers=max(1, len(self.judges))) as pool:
            verdicts = list(pool.map(lambda judge: _safe(judge, item), self.judges))
        verdicts = [graded_answer(v, item) for v in verdicts]
        result = QcResult(consensus(verdicts), verdicts, checked)
        if self.spec.validity is not None:
            apply_validity(result, self.spec.validity.decide(*validity_key(item)))
        return result

    def model_clients(self) -> list[ModelClient]:
        """The judges' clients, for call and token counts."""
        return [
            j.client for j in self.judges if isinstance(getattr(j, "client", None), ModelClient)
        ]

    def close(self) -> None:
        for judge in self.judges:
            judge.close()


def validity_key(item: JudgeItem) -> tuple[str, int, str, str | None]:
    """(transform, version, mode, question kind) of an item, for the validity policy. The
    kind is the source question's (the reference's), so a rewrite is judged by the cell of
    the question it rewrote."""
    from ..questions.kinds import question_kind

    transform = item.transform
    reference = item.reference
    kind = None
    if reference is not None:
        kind = question_kind(
            reference.question,
            item.options,
            len(reference.images),
            document=reference.document is not None,
        )
    return (
        str(transform.get("name", "")),
        int(transform.get("version") or 1),
        str(transform.get("mode") or "rule"),
        kind,
    )


def record_validity_key(
    record: dict[str, Any], control: dict[str, Any] | None
) -> tuple[str, int, str, str | None]:
    """:func:`validity_key` of a written record (its control gives the source question)."""
    from ..questions.kinds import control_kind

    transform = record["transform"]
    kind = control_kind(control) if control is not None else None
    return (
        str(transform["name"]),
        int(transform.get("version") or 1),
        str(transform.get("mode") or "rule"),
        kind,
    )


def apply_validity(result: QcResult, decision: ValidityDecision) -> None:
    """Record the policy's word; an item the judges accepted whose figures do not clear
    the bar is flagged (held back), when the policy is applied."""
    held = result.status == ACCEPTED and decision.applied and not decision.clears
    if held:
        result.status = FLAGGED
    result.validity = decision.to_json(held=held)


def _safe(judge: Judge, item: JudgeItem) -> Verdict:
    """A judge that crashes gives an ERROR verdict (so ``qc_error``), not a lost sample."""
    try:
        return judge.judge(item)
    except Exception as exc:
        raise_if_environmental(exc)  # a full disk is no judge's verdict
        return judge.verdict("ERROR", "", f"the judge failed: {type(exc).__name__}: {exc}")


#: Transform families whose item is unanswerable because two values conflict: a judge
#: that settles on the document's value has seen one side of the conflict (recorded as
#: "reconciled"), not read a leak.
CONFLICT_FAMILIES = ("semantic_contradiction",)


def graded_answer(verdict: Verdict, item: JudgeItem) -> Verdict:
    """Grade a model judge's answer against the gold with ``eval``'s graders.

    A judge that reaches the gold has read it on the item, whatever verdict it states: the
    verdict becomes decisive (``found``), so consensus rejects the item. On a caption item
    the gold reached is recorded as ``reconciled`` instead. An answer-less judge (older
    replies) is still caught when it says ANSWERABLE and its justification gives the gold.
    """
    if verdict.kind != "model" or verdict.verdict == ERROR or item.reference is None:
        return verdict
    reference = item.reference
    if verdict.answer:
        grade = _answer_grade(verdict.answer, reference.answer, reference.answer_format, item)
        if grade != "gold":
            return replace(verdict, answer_grade=grade)
        if item.transform.get("family") in CONFLICT_FAMILIES:
            return replace(verdict, answer_grade="reconciled")
        return replace(
            verdict, answer_grade="gold", found=f"the judge's answer: {verdict.answer!r}"
        )
    if verdict.verdict != ANSWERABLE or verdict.found:
        return verdict
    golds = gold_items(reference.answer, reference.answer_format, item.options)
    matches = find_in_string(golds, verdict.justification)
    if not matches:
        return verdict
    return replace(verdict, found=f"the judge's answer: {matches[0].printed!r}")


def _answer_grade(answer: str, gold: str, answer_format: str | None, item: JudgeItem) -> str:
    """ "gold", "other" or "none" (no answer, or an abstention)."""
    from ..scoring.abstention import default_matcher
    from ..scoring.answers import grade

    text = answer.strip()
    options = list(item.options)
    if not text or text.lower() in ("none", "n/a", "unknown", "unanswerable"):
        return "none"
    if default_matcher().match(text, [*options, gold]).abstained:
        return "none"
    return (
        "gold"
        if grade(text, gold, answer_format=answer_format, options=options).correct
        else "other"
    )
