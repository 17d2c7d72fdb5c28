"""What baselines add to a score: the probability sweep with RC-AUC (P(True), MaxProb)
and the multi-agent Verifier's override rate.

A probability ``p`` (0-1) on an answered item turns it into an abstention when
``p < tau``. RC-AUC is the chance that an answer the model should have given (a correct
answer to an answerable item) carries a higher probability than one it should not have
(a wrong answer, or any answer to an unanswerable item), ties counting half: 0.5 is a
probability that does not tell them apart, 1.0 one that ranks every good answer first.
AURC is the area under the risk-coverage curve (answers by falling probability; risk = the
share of bad answers among those kept): lower is better.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .metrics import Confusion

if TYPE_CHECKING:
    from .evaluate import Scored

#: Thresholds shown in the table (the oracle is searched over every distinct probability).
TAUS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)


def cell_below(scored: Scored, tau: float) -> str:
    """The cell when an answer with probability below ``tau`` counts as an abstention."""
    p = scored.prediction.probability
    if scored.abstention.abstained or p is None or p >= tau:
        return scored.cell
    return "FN" if scored.item.answerable else "TN"


def _confusion(scored: Sequence[Scored], tau: float) -> Confusion:
    matrix = Confusion()
    for one in scored:
        matrix.add(cell_below(one, tau))
    return matrix


def _mean_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks of ``values``, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in order[start : end + 1]:
            ranks[position] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def rc_auc(scored: Sequence[Scored]) -> dict[str, Any]:
    """RC-AUC and AURC over the answered items that carry a probability."""
    answered = [
        s for s in scored if not s.abstention.abstained and s.prediction.probability is not None
    ]
    values = [float(s.prediction.probability) for s in answered]  # type: ignore[arg-type]
    good = [s.cell == "TP" for s in answered]
    n_good = sum(good)
    n_bad = len(answered) - n_good
    auc = None
    if n_good and n_bad:  # Mann-Whitney: the good answers' rank sum, ties counting half
        rank_sum = sum(r for r, is_good in zip(_mean_ranks(values), good, strict=True) if is_good)
        auc = round((rank_sum - n_good * (n_good + 1) / 2) / (n_good * n_bad), 6)
    aurc = None
    if answered:
        ranked = sorted(answered, key=lambda s: -(s.prediction.probability or 0.0))
        errors, risks = 0, []
        for kept, one in enumerate(ranked, start=1):
            errors += one.cell != "TP"
            risks.append(errors / kept)
        aurc = round(sum(risks) / len(risks), 6)
    return {"rc_auc": auc, "aurc": aurc, "good_answers": n_good, "bad_answers": n_bad}


def _oracle_tau(scored: Sequence[Scored], values: Sequence[float]) -> float | None:
    """The threshold (0 or one of ``values``, the lowest on a tie) with the best MCC, in one
    pass over the answers sorted by probability: raising tau past an answer's probability
    moves that one answer to an abstention cell."""
    matrix = Confusion()
    flips = []
    for one in scored:
        matrix.add(one.cell)
        p = one.prediction.probability
        if not one.abstention.abstained and p is not None:
            flips.append((p, one.cell, "FN" if one.item.answerable else "TN"))
    flips.sort(key=lambda flip: flip[0])
    best_tau, best_mcc, moved = None, None, 0
    for tau in [0.0, *values]:
        while moved < len(flips) and flips[moved][0] < tau:
            _, before, after = flips[moved]
            matrix.add(before, -1.0)
            matrix.add(after)
            moved += 1
        mcc = matrix.mcc
        if mcc is not None and (best_mcc is None or mcc > best_mcc):
            best_tau, best_mcc = tau, mcc
    return best_tau


def probability_sweep(scored: Sequence[Scored]) -> dict[str, Any] | None:
    """Abstain when the probability is below tau; the oracle tau maximises MCC."""
    values = sorted({s.prediction.probability for s in scored} - {None})  # type: ignore[type-var]
    if not values:
        return None
    with_probability = sum(1 for s in scored if s.prediction.probability is not None)
    best_tau = _oracle_tau(scored, values)  # type: ignore[arg-type]
    rows = [{"tau": tau, **_confusion(scored, tau).to_json()} for tau in TAUS]
    oracle = None
    if best_tau is not None:
        oracle = {"tau": best_tau, **_confusion(scored, best_tau).to_json()}
    return {
        "rule": "abstain when a phrase matches or probability < tau",
        "with_probability": with_probability,
        "without_probability": len(scored) - with_probability,
        "oracle": oracle,
        "note": "the oracle tau is chosen on the same items: an upper bound, not a result",
        "rows": rows,
        **rc_auc(scored),
    }


def mas_metrics(scored: Sequence[Scored]) -> dict[str, Any] | None:
    """The multi-agent runs' rounds, decisions and the Verifier's override rate: of the
    items whose Reasoner answered, the share the Verifier replaced with an abstention."""
    runs = [(s, s.prediction.mas) for s in scored if s.prediction.mas is not None]
    if not runs:
        return None
    answered = [(s, m) for s, m in runs if m.get("reasoner_answered")]
    overridden = [(s, m) for s, m in answered if m.get("overridden")]
    decisions: Counter[str] = Counter()
    for _, m in runs:
        decisions.update(str(d) for d in m.get("decisions") or ())
    rounds = [int(m.get("rounds") or 0) for _, m in runs]
    revised = sum(1 for _, m in runs if "REQUEST_REVISION" in (m.get("decisions") or []))
    return {
        "items": len(runs),
        "reasoner_answered": len(answered),
        "overridden": len(overridden),
        "override_rate": round(len(overridden) / len(answered), 6) if answered else None,
        "overridden_answerable": sum(1 for s, _ in overridden if s.item.answerable),
        "overridden_unanswerable": sum(1 for s, _ in overridden if not s.item.answerable),
        "revised_items": revised,
        "mean_rounds": round(sum(rounds) / len(rounds), 6),
        "rounds": dict(sorted(Counter(rounds).items())),
        "decisions": dict(sorted(decisions.items())),
    }


def method_of(scored: Sequence[Scored]) -> str | None:
    """The method most lines name (``predict`` writes one per line)."""
    methods = Counter(s.prediction.method for s in scored if s.prediction.method)
    return methods.most_common(1)[0][0] if methods else None
