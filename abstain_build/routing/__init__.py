"""Choosing which transforms a sample receives, and the question classifiers it rests on."""

from .classify import AXIS_CLASSES, Classified, Distribution, classify_record, classify_source
from .dependency import (
    DEPENDENCY_CLASSES,
    DependencyFeatures,
    DependencyResult,
    classify_dependency,
    classify_heuristic,
)
from .evidence_type import (
    EVIDENCE_TYPES,
    EvidenceTypeResult,
    classify_evidence,
    has_time_reference,
    time_references,
)
from .questions import QuestionRecord, iter_questions
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
