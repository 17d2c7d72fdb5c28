"""Scoring a predictions file against a built dataset: cells, breakdowns, pairs, sweep."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..schema import EVIDENCE_SETS
from .abstention import Abstention, AbstentionMatcher
from .answers import Grade, grade
from .items import DatasetItems, Item
from .metrics import Confusion
from .predictions import Prediction, Predictions
from .selective import mas_metrics, method_of, probability_sweep

#: ``blind``: the blind check's verdict on the item's source ("knowledge": answerable without
#: its evidence; "evidence"; "unchecked" for datasets built without it): a model's accuracy
#: on knowledge originals is partly recall, not reading.
BREAKDOWNS = ("family", "transform", "subset", "blind")
TAUS = (1, 2, 3, 4)


@dataclass(frozen=True)
class Scored:
    """One item's response, how it was read, and its cell."""

    item: Item
    prediction: Prediction
    abstention: Abstention
    #: Answerable: graded against the gold. Unanswerable and answered: graded against the
    #: original's gold (a match is a prior override). Abstentions: None.
    grade: Grade | None
    cell: str
    #: Answer-changed items answered: graded against the original's gold as well.
    original_grade: Grade | None = None

    def cell_at(self, tau: float) -> str:
        """The cell when responses with confidence <= tau count as abstentions too."""
        confidence = self.prediction.confidence
        if self.abstention.abstained or confidence is None or confidence > tau:
            return self.cell
        return "FN" if self.item.answerable else "TN"

    def to_json(self) -> dict[str, Any]:
        grade = self.grade
        return {
            "id": self.item.id,
            "group_id": self.item.group_id,
            "answerable": self.item.answerable,
            "family": self.item.family,
            "transform": self.item.transform,
            "subset": self.item.subset,
            "qc_status": self.item.status,
            "cell": self.cell,
            "abstained": self.abstention.abstained,
            "phrase": self.abstention.phrase,
            "decided_by": self.abstention.where,
            "rule": grade.rule if grade else None,
            "parsed": grade.parsed if grade else None,
            "correct": grade.correct if grade and self.item.answerable else None,
            "repeated_gold": grade.correct if grade and not self.item.answerable else None,
            "kind": self.item.kind,
            "recited_original": self.recited if self.item.answer_changed else None,
            "confidence": self.prediction.confidence,
        }

    @property
    def recited(self) -> bool:
        """An answer-changed item answered with the original's gold, not the page's."""
        return self.original_grade is not None and self.original_grade.correct


def score_one(item: Item, prediction: Prediction, matcher: AbstentionMatcher) -> Scored:
    answers = [*item.options, item.gold] if item.gold else list(item.options)
    abstention = matcher.match(prediction.response, answers)
    result = None
    if not abstention.abstained and item.gold is not None:
        result = grade(
            prediction.response,
            item.gold,
            answer_format=item.answer_format,
            options=list(item.options) or None,
        )
    if item.answerable:
        if abstention.abstained:
            cell = "FN"
        else:
            cell = "TP" if result is not None and result.correct else "FP"
    else:
        cell = "TN" if abstention.abstained else "AU"
    original = None
    if item.answer_changed and not abstention.abstained and item.original_gold is not None:
        original = grade(
            prediction.response,
            item.original_gold,
            answer_format=item.answer_format,
            options=list(item.options) or None,
        )
    return Scored(item, prediction, abstention, result, cell, original)


def confusion(scored: Iterable[Scored], tau: float | None = None) -> Confusion:
    matrix = Confusion()
    for one in scored:
        matrix.add(one.cell if tau is None else one.cell_at(tau))
    return matrix


def pair_metrics(scored: Sequence[Scored]) -> dict[str, Any]:
    """Originals against their counterparts, and what answered counterparts said.

    ``both``: pairs whose original was answered correctly AND whose counterpart was
    abstained on. Of counterparts answered, ``repeated_gold`` gave the original's answer
    (the answerable prior overrode the missing evidence), ``other_answer`` something else,
    ``unreadable`` nothing the grader could read.
    """
    originals = {s.item.group_id: s for s in scored if s.item.kind == "original"}
    counterparts = [s for s in scored if not s.item.answerable]
    pairs = [(originals[c.item.group_id], c) for c in counterparts if c.item.group_id in originals]
    original_correct = sum(1 for o, _ in pairs if o.cell == "TP")
    both = sum(1 for o, c in pairs if o.cell == "TP" and c.cell == "TN")
    answered = [c for c in counterparts if c.cell == "AU"]
    repeated = sum(1 for c in answered if c.grade is not None and c.grade.correct)
    unreadable = sum(1 for c in answered if c.grade is None or c.grade.parsed is None)
    return {
        "pairs": len(pairs),
        "original_correct": original_correct,
        "both": both,
        "both_share": _share(both, len(pairs)),
        "abstained_given_original_correct": _share(both, original_correct),
        "counterparts_answered": len(answered),
        "repeated_gold": repeated,
        "repeated_gold_share": _share(repeated, len(answered)),
        "other_answer": len(answered) - repeated - unreadable,
        "unreadable": unreadable,
    }


def answer_changed_metrics(changed: Sequence[Scored]) -> dict[str, Any]:
    """Answer-changed items (the page now prints a new answer): answered with the new gold
    (``read``), with the original's (``recited``: the model answered from memory, not
    from the page), with something else, or abstained on. Kept out of the headline cells,
    so those stay comparable with builds without such items."""
    read = sum(1 for s in changed if s.cell == "TP")
    recited = sum(1 for s in changed if s.recited)
    abstained = sum(1 for s in changed if s.cell == "FN")
    return {
        "items": len(changed),
        "read_new_answer": read,
        "read_share": _share(read, len(changed)),
        "recited_original": recited,
        "recited_share": _share(recited, len(changed)),
        "abstained": abstained,
        "other_answer": len(changed) - read - recited - abstained,
    }


def evidence_set_metrics(sets: Sequence[Scored]) -> dict[str, Any]:
    """Per evidence set, the cells and metrics of its items (AAC on the answerable sets,
    UAC on the unanswerable ones), and the distractor-susceptibility index: AAC with the
    evidence pages alone minus AAC with them among distractors (MRAG-Suite's DSI), on the
    questions that have both. Kept out of the headline cells, like answer-changed items."""
    by_set: dict[str, list[Scored]] = defaultdict(list)
    for one in sets:
        by_set[str(one.item.evidence_set)].append(one)
    out: dict[str, Any] = {
        name: {"items": len(by_set[name]), **confusion(by_set[name]).to_json()}
        for name in EVIDENCE_SETS
        if by_set.get(name)
    }
    gold = {s.item.group_id: s for s in by_set.get("gold", [])}
    mixed = {s.item.group_id: s for s in by_set.get("gold+distractors", [])}
    both = sorted(set(gold) & set(mixed))
    if both:
        alone = sum(1 for g in both if gold[g].cell == "TP") / len(both)
        among = sum(1 for g in both if mixed[g].cell == "TP") / len(both)
        out["susceptibility"] = {
            "questions": len(both),
            "aac_gold": round(alone, 6),
            "aac_gold_distractors": round(among, 6),
            "dsi": round(alone - among, 6),
        }
    return out


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 6) if whole else None


def _keys(scored: Scored, by: str, group_keys: dict[str, set[str]]) -> set[str]:
    """The breakdown rows an item belongs to. An original belongs to the rows of its
    group's counterparts, so each row's AAC is measured on the originals of its items."""
    item = scored.item
    if by == "subset":
        return {item.subset}
    if by == "blind":
        return {item.blind}
    if item.answerable:
        return group_keys.get(item.group_id, set())
    value = item.family if by == "family" else item.transform
    return {value or "unknown"}


def breakdown(scored: Sequence[Scored], by: str, order: Sequence[str] = ()) -> list[dict[str, Any]]:
    """One row per family / transform / subset / blind verdict: cells, metrics and pair
    shares."""
    if by not in BREAKDOWNS:
        raise ValueError(f"--by must be one of {', '.join(BREAKDOWNS)}")
    group_keys: dict[str, set[str]] = defaultdict(set)
    if by in ("family", "transform"):
        for one in scored:
            if not one.item.answerable:
                value = one.item.family if by == "family" else one.item.transform
                group_keys[one.item.group_id].add(value or "unknown")
    rows: dict[str, list[Scored]] = defaultdict(list)
    for one in scored:
        for key in _keys(one, by, group_keys):
            rows[key].append(one)
    rank = {name: i for i, name in enumerate(order)}
    names = sorted(rows, key=lambda n: (rank.get(n, len(rank)), n))
    return [
        {by: name, **confusion(rows[name]).to_json(), "pairs": pair_metrics(rows[name])}
        for name in names
    ]


def sweep(scored: Sequence[Scored]) -> dict[str, Any] | None:
    """Abstain when confidence <= tau, for tau in 1..4; the best MCC is an oracle."""
    with_confidence = sum(1 for s in scored if s.prediction.confidence is not None)
    if not with_confidence:
        return None
    rows = [{"tau": tau, **confusion(scored, tau).to_json()} for tau in TAUS]
    defined = [r for r in rows if r["MCC"] is not None]
    best = max(defined, key=lambda r: r["MCC"])["tau"] if defined else None
    for row in rows:
        row["oracle"] = row["tau"] == best
    return {
        "rule": "abstain when a phrase matches or confidence <= tau",
        "with_confidence": with_confidence,
        "without_confidence": len(scored) - with_confidence,
        "oracle_tau": best,
        "note": "the oracle tau is chosen on the same items: an upper bound, not a result",
        "rows": rows,
    }


@dataclass
class Evaluation:
    """Everything ``abstain-build eval`` reports; ``to_json`` is the --json output."""

    dataset: DatasetItems
    predictions: Predictions
    scored: list[Scored]
    missing: list[str]
    extra: list[str]
    excluded_predicted: list[str]
    phrases: int
    phrase_files: list[str] = field(default_factory=list)
    #: Answer-changed items, scored apart (:func:`answer_changed_metrics`).
    changed: list[Scored] = field(default_factory=list)
    #: Evidence-set items (``--evidence-sets``), scored apart (:func:`evidence_set_metrics`).
    sets: list[Scored] = field(default_factory=list)
    predictions_path: str | None = None

    @property
    def overall(self) -> Confusion:
        return confusion(self.scored)

    def breakdown(self, by: str) -> list[dict[str, Any]]:
        return breakdown(self.scored, by, order=_family_order() if by == "family" else ())

    def unreadable_answers(self) -> int:
        return sum(
            1
            for s in self.scored
            if s.item.answerable and s.cell == "FP" and (s.grade is None or s.grade.parsed is None)
        )

    def to_json(self, by: Sequence[str] = BREAKDOWNS) -> dict[str, Any]:
        rules = Counter(s.grade.rule for s in self.scored if s.grade is not None)
        items = self.dataset.items
        return {
            "dataset": str(self.dataset.path),
            "predictions": self.predictions_path,
            "method": method_of(self.scored),
            "items": {
                "in_dataset": len(items),
                "scored": len(self.scored),
                "answerable": sum(1 for s in self.scored if s.item.answerable),
                "unanswerable": sum(1 for s in self.scored if not s.item.answerable),
                "answer_changed": len(self.changed),
                "evidence_sets": len(self.sets),
                "unanswerable_by_status": dict(
                    sorted(
                        Counter(s.item.status for s in self.scored if not s.item.answerable).items()
                    )
                ),
                "excluded_by_status": dict(Counter(self.dataset.excluded.values())),
            },
            "overall": self.overall.to_json(),
            "by": {name: self.breakdown(name) for name in by},
            "pairs": pair_metrics(self.scored),
            "answer_changed": answer_changed_metrics(self.changed),
            "evidence_sets": evidence_set_metrics(self.sets),
            "confidence_sweep": sweep(self.scored),
            "probability_sweep": probability_sweep(self.scored),
            "mas": mas_metrics(self.scored),
            "answers": {
                "rules": dict(sorted(rules.items())),
                "unreadable_on_answerable": self.unreadable_answers(),
            },
            "abstention": {"phrases": self.phrases, "phrase_files": self.phrase_files},
            "problems": {
                "missing": self.missing,
                "extra": self.extra,
                "excluded_but_predicted": self.excluded_predicted,
                "lines": self.predictions.problems,
            },
        }


def _family_order() -> list[str]:
    from ..model import FAMILIES

    return [family for families in FAMILIES.values() for family in families]


def evaluate(
    dataset: DatasetItems,
    predictions: Predictions,
    matcher: AbstentionMatcher,
    *,
    phrase_files: Sequence[Path] = (),
    progress: Callable[[int, int], None] | None = None,
    predictions_path: Path | None = None,
) -> Evaluation:
    """Score every item that has a prediction; report the rest instead of dropping it."""
    by_id = predictions.by_id
    known = {item.id for item in dataset.items}
    scored: list[Scored] = []
    changed: list[Scored] = []
    sets: list[Scored] = []
    missing: list[str] = []
    for index, item in enumerate(dataset.items, start=1):
        prediction = by_id.get(item.id)
        if prediction is None:
            missing.append(item.id)
        else:
            one = score_one(item, prediction, matcher)
            if item.evidence_set is not None:
                sets.append(one)
            else:
                (changed if item.answer_changed else scored).append(one)
        if progress is not None:
            progress(index, len(dataset.items))
    excluded = sorted(i for i in by_id if i in dataset.excluded)
    extra = sorted(i for i in by_id if i not in known and i not in dataset.excluded)
    return Evaluation(
        dataset=dataset,
        predictions=predictions,
        scored=scored,
        missing=missing,
        extra=extra,
        excluded_predicted=excluded,
        phrases=len(matcher.phrases),
        phrase_files=[str(p) for p in phrase_files],
        changed=changed,
        sets=sets,
        predictions_path=None if predictions_path is None else str(predictions_path),
    )
