"""What a judge sees, what it returns, and the registry judges are found in.

A judge is named on the command line: ``offline:leak`` and ``offline:retention`` are
registered reference judges; ``openai:MODEL[@URL]`` and ``anthropic:MODEL[@URL]`` make a
model judge. Users register their own with :func:`register_judge`, as with transforms.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ...registry import Registry, RegistryError

ANSWERABLE = "ANSWERABLE"
UNANSWERABLE = "UNANSWERABLE"
#: The judge could not decide (a model call that failed after its retries, unreadable
#: input): the item gets ``qc_error``, never acceptance.
ERROR = "ERROR"
CONFIDENCES = ("LOW", "MEDIUM", "HIGH")


@dataclass(frozen=True)
class Reference:
    """The original, for reference judges only: never shown to a model judge."""

    question: str
    answer: str
    answer_format: str | None
    #: The original images, or the original evidence pages rendered (PNG), in the same
    #: order as the perturbed item's ``images``.
    images: tuple[bytes, ...] = ()
    #: The original PDF (documents).
    document: bytes | None = None


@dataclass(frozen=True)
class JudgeItem:
    """One perturbed item, as a judge receives it."""

    id: str
    axis: str
    question: str
    options: tuple[str, ...] = ()
    #: The perturbed images, or the perturbed evidence pages rendered (PNG).
    images: tuple[bytes, ...] = ()
    #: The perturbed PDF (documents); its text layer is what a model could read.
    document: bytes | None = None
    #: 1-based evidence page numbers, one per image for documents.
    pages: tuple[int, ...] = ()
    #: The item's ``transform`` record (name, family, target, edits...). Reference judges
    #: may use it (e.g. to undo a darkening before reading); model judges never see it.
    transform: dict[str, Any] = field(default_factory=dict)
    reference: Reference | None = None


@dataclass(frozen=True)
class Verdict:
    """One judge's decision on one item."""

    judge: str
    verdict: str  # ANSWERABLE, UNANSWERABLE or ERROR
    confidence: str  # LOW, MEDIUM or HIGH ("" for ERROR)
    justification: str
    #: "model" (sees only the perturbed item) or "reference" (compares with the original).
    kind: str
    #: The measurement behind a reference verdict (e.g. the share of evidence retained).
    score: float | None = None
    #: The gold answer as the judge read it on the item, and where ("page 4 (ocr):
    #: '$8.8 billion'"); empty when it read none. A verdict that read the gold is decisive:
    #: the item is rejected whatever the other judge says (:func:`..consensus.consensus`).
    found: str = ""
    #: The answer a model judge gave (``"none"`` when it gave none); empty for judges that
    #: do not answer.
    answer: str = ""
    #: How ``answer`` grades against the gold (``eval``'s graders): "gold", "other" or
    #: "none"; "reconciled" for a caption item whose judge settled on the document's value
    #: (the conflict it must see, not a leak). Empty when not graded.
    answer_grade: str = ""

    @property
    def read_gold(self) -> bool:
        """The judge read (or reached) the gold on the item: decisive, whatever verdict it
        states, unless it could not decide at all."""
        return self.verdict != ERROR and bool(self.found)

    def to_json(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "verdict": self.verdict,
            "confidence": self.confidence,
            "justification": self.justification,
            "kind": self.kind,
            "score": None if self.score is None else round(float(self.score), 4),
            "found": self.found or None,
            "answer": self.answer or None,
            "answer_grade": self.answer_grade or None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Verdict:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["found"] = known.get("found") or ""
        known["answer"] = known.get("answer") or ""
        known["answer_grade"] = known.get("answer_grade") or ""
        return cls(**known)


class Judge(abc.ABC):
    """Base of every judge. ``name`` is what users type after ``--judge``."""

    name: ClassVar[str] = ""
    kind: ClassVar[str] = "reference"
    description: ClassVar[str] = ""

    @abc.abstractmethod
    def judge(self, item: JudgeItem) -> Verdict:
        """The verdict on ``item``; a failure to decide is ``Verdict(..., ERROR, ...)``."""

    def close(self) -> None:  # noqa: B027 - most judges hold nothing
        """Release what the judge holds (model clients, OCR engines)."""

    def verdict(
        self,
        verdict: str,
        confidence: str,
        justification: str,
        score: float | None = None,
        found: str = "",
        answer: str = "",
    ) -> Verdict:
        """A verdict signed by this judge (``found``: the gold as read on the item;
        ``answer``: the answer a model judge gave)."""
        return Verdict(
            self.name, verdict, confidence, justification, self.kind, score, found, answer
        )


#: Entry-point group through which installed packages add judges.
ENTRY_POINT_GROUP = "abstain_build.judges"


def _validate(cls: type[Judge]) -> None:
    if not cls.name or ":" not in cls.name:
        raise TypeError(f"{cls.__name__}: a judge name looks like 'offline:leak'")


#: The judges a run may name (``--judge NAME``): the same kind of registry as the
#: transforms', with entry points, origins and close matches for a misspelt name.
judges: Registry[Judge] = Registry(Judge, ENTRY_POINT_GROUP, "judge", _validate)
#: Class decorator: make a judge class available as ``--judge <its name>``.
register_judge = judges.register


def judge_names() -> list[str]:
    _load_builtin()
    return judges.names()


def get_judge(spec: str, model_factory: Callable[[str], Judge] | None = None) -> Judge:
    """The judge named ``spec``: a registered one, else a model judge made from the spec."""
    from ...models.spec import PROVIDERS

    if spec.split(":", 1)[0] in PROVIDERS and spec not in judges and model_factory:
        return model_factory(spec)  # no need to load the offline judges' OCR and models
    _load_builtin()
    if spec in judges:
        return judges.get(spec)()
    if model_factory is None:
        from ...errors import ConfigError

        try:
            judges.get(spec)
        except RegistryError as exc:
            raise ConfigError(
                f"{exc}; or a model spec (openai:MODEL[@URL], anthropic:MODEL[@URL])"
            ) from None
    return model_factory(spec)


def _load_builtin() -> None:
    from . import offline  # noqa: F401  (registers offline:leak and offline:retention)

    judges.load_entry_points()
