"""Scoring models on a built dataset: abstention, correctness, metrics, breakdowns.

``score("runs/mmlbd", "predictions.jsonl")`` computes what ``abstain-build eval`` does;
its ``overall.mcc`` and ``breakdown("family")`` are the headline numbers."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .abstention import DEFAULT_PHRASES, Abstention, AbstentionMatcher, build_matcher
from .answers import Grade, grade, rule_for
from .evaluate import Evaluation, evaluate
from .items import read_items
from .metrics import Confusion
from .predictions import read_predictions


def score(
    dataset: str | Path,
    predictions: str | Path,
    *,
    abstain_phrases: Sequence[str | Path] = (),
    verified_only: bool = False,
) -> Evaluation:
    """Score a predictions file against a built dataset, as ``abstain-build eval`` does."""
    files = [Path(p) for p in abstain_phrases]
    return evaluate(
        read_items(Path(dataset), verified_only=verified_only),
        read_predictions(Path(predictions)),
        build_matcher(files),
        phrase_files=files,
        predictions_path=Path(predictions),
    )


__all__ = [
    "DEFAULT_PHRASES",
    "Abstention",
    "AbstentionMatcher",
    "Confusion",
    "Evaluation",
    "Grade",
    "build_matcher",
    "grade",
    "rule_for",
    "score",
]
