"""The grammar gate: a rewrite keeps the original's placeholders and adds no defect.

The defects are those of :func:`.grammar.grammar_issues` (unbalanced brackets or quotes,
doubled words, sentences under 3 words, a sentence stopping on an article, conjunction or
object-less preposition, an asking sentence with no verb). The rewrite fails when

* its multiset of exact ``<image N>`` tokens differs from the original's (dropped,
  renumbered, duplicated or misspelt placeholders), or
* it has a defect the original does not have: defects are compared by kind as
  multisets, so a rewrite inherits the dataset's own quirks (an MMMU sentence-completion
  stem ending in "was painted by", inch marks that leave quotes unpaired) but may not add
  any.

``score`` is the number of problems found (placeholder change + new defects).

Measured by ``bench/gate_thresholds.py``: the defect rule alone passes 95.1% of the
1,730 unmodified MMMU-Pro questions. The 85 that fail are the dataset's own: 43
sentence-completion stems that stop on a preposition or article ("<image 1> was painted
by", "... the tradition of?"), 20 asking sentences without a verb ("Diagnosis?", "True or
False.", "This lesion: <image 1>"), 16 sentences under three words ("Your diagnosis?",
"Use <image 1>."), 5 questions that are only placeholders, 5 with inch or second marks
that leave double quotes unpaired, one unclosed brace, one "the the". The gate passes
99.5% of the genuine rewrites of the benchmark recipes; those it fails are broken (a
placeholder glued to a word, an imperative replaced by a noun phrase).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .grammar import Issue, grammar_issues_many, placeholders
from .result import GateResult


def _new_issues(original: list[Issue], rewrite: list[Issue]) -> list[Issue]:
    budget = Counter(issue.key for issue in original)
    fresh = []
    for issue in rewrite:
        if budget[issue.key] > 0:
            budget[issue.key] -= 1
        else:
            fresh.append(issue)
    return fresh


def _judge(original: str, rewrite: str, before: list[Issue], after: list[Issue]) -> GateResult:
    problems = []
    want, have = placeholders(original), placeholders(rewrite)
    if want != have:
        lost = sorted((want - have).elements())
        added = sorted((have - want).elements())
        problems.append(f"placeholders changed: lost {lost}, added {added}")
    fresh = _new_issues(before, after)
    problems.extend(f"{issue.key}: {issue.detail}" for issue in fresh)
    inherited = len(after) - len(fresh)
    note = f" ({inherited} inherited from the original)" if inherited else ""
    if problems:
        return GateResult("grammar", False, float(len(problems)), "; ".join(problems) + note)
    return GateResult("grammar", True, 0.0, "no new defect" + note)


def check_grammar_many(pairs: Sequence[tuple[str, str]]) -> list[GateResult]:
    """The grammar gate for many ``(original, rewrite)`` pairs; each text is parsed once."""
    texts = list(dict.fromkeys(text for pair in pairs for text in pair))
    issues = dict(zip(texts, grammar_issues_many(texts), strict=True))
    return [_judge(a, b, issues[a], issues[b]) for a, b in pairs]


def check_grammar(original: str, rewrite: str) -> GateResult:
    """The grammar gate for one rewrite (see the module docstring)."""
    return check_grammar_many([(original, rewrite)])[0]
