"""Choosing which transforms a sample receives, and the question classifiers it rests on."""

from ..questions.classify import (
    AXIS_CLASSES,
    Classified,
    Distribution,
    classify_record,
    classify_source,
)
from ..questions.dependency import (
    DEPENDENCY_CLASSES,
    DependencyFeatures,
    DependencyResult,
    classify_dependency,
    classify_heuristic,
)
from ..questions.evidence_type import (
    EVIDENCE_TYPES,
    EvidenceTypeResult,
    classify_evidence,
    has_time_reference,
    time_references,
)
from ..questions.records import QuestionRecord, iter_questions
from .select import Selection, select_transforms

__all__ = [
    "AXIS_CLASSES",
    "DEPENDENCY_CLASSES",
    "EVIDENCE_TYPES",
    "Classified",
    "DependencyFeatures",
    "DependencyResult",
    "Distribution",
    "EvidenceTypeResult",
    "QuestionRecord",
    "Selection",
    "classify_dependency",
    "classify_evidence",
    "classify_heuristic",
    "classify_record",
    "classify_source",
    "has_time_reference",
    "iter_questions",
    "select_transforms",
    "time_references",
]
