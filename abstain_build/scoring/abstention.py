"""Did the model abstain? Case-insensitive phrase matching on the response.

A response abstains when an abstention phrase ("I don't know", "cannot be determined",
"not enough information", ...) occurs in it, with one exception: when the response
states an explicit final answer ("Answer: B", "the answer is 40%"), only that statement
decides. "I don't know for sure, but the answer is B" is an answer;
"After looking closely, the answer is: it cannot be determined" is an abstention.
Without an explicit answer statement any phrase anywhere counts, as in the method's
substring rule.

A phrase that is part of one of the item's own answers, an option's text or the gold,
quoted in the response, is that answer: MMMU has options like "There is insufficient
evidence to conclude that the variances are different", and choosing one is an answer.

Phrases match at word boundaries, whitespace- and apostrophe-insensitive ("can’t" is
"can't"). A phrase starting with ``=`` matches only as the *whole* final answer: ``=n/a``
makes "Answer: N/A" an abstention without making every "n/a" in a table one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from .final_answer import clean, final_answer, normalize_quotes

#: The default list, documented in the README. Users extend it with --abstain-phrases.
DEFAULT_PHRASES: tuple[str, ...] = (
    # not knowing
    "i don't know",
    "i do not know",
    "i dont know",
    "i'm not sure",
    "i am not sure",
    "i am unsure",
    "i'm unsure",
    "no way to know",
    # cannot answer
    "unanswerable",
    "not answerable",
    "cannot be answered",
    "can't be answered",
    "could not be answered",
    "cannot answer",
    "can't answer",
    "unable to answer",
    "not able to answer",
    "impossible to answer",
    "no answer can be given",
    # cannot determine
    "cannot be determined",
    "can't be determined",
    "could not be determined",
    "cannot determine",
    "can't determine",
    "cannot be inferred",
    "cannot infer",
    "unable to determine",
    "not possible to determine",
    "impossible to determine",
    "impossible to tell",
    "not possible to tell",
    "cannot tell",
    "can't tell",
    "unable to tell",
    "cannot be identified",
    "unable to identify",
    "cannot identify",
    "cannot be calculated",
    "unable to calculate",
    "cannot calculate",
    "cannot be computed",
    "cannot be read",
    "unable to read",
    "cannot read",
    "can't read",
    "cannot see",
    "can't see",
    "unable to see",
    "cannot be found",
    "unable to find",
    "cannot find",
    "cannot verify",
    "unable to verify",
    "cannot be verified",
    "cannot confirm",
    "unable to confirm",
    "cannot provide",
    "unable to provide",
    "cannot accurately",
    "can't accurately",
    # evidence missing
    "not enough information",
    "not enough evidence",
    "not enough context",
    "not enough data",
    "insufficient information",
    "insufficient evidence",
    "insufficient context",
    "insufficient data",
    "lack of information",
    "lacks the information",
    "lacks sufficient",
    "does not provide enough",
    "doesn't provide enough",
    "does not contain enough",
    "doesn't contain enough",
    "does not provide sufficient",
    "does not contain the information",
    "doesn't contain the information",
    "does not provide the information",
    "doesn't provide the information",
    "information is not available",
    "information is not provided",
    "information is missing",
    "is not provided",
    "is not visible",
    "are not visible",
    "is not legible",
    "are not legible",
    "is illegible",
    "are illegible",
    "is unreadable",
    "are unreadable",
    "is obscured",
    "are obscured",
    "not specified",
    "not mentioned",
    "no information",
    "no relevant information",
    "question is ambiguous",
    "too ambiguous to",
    "the question is flawed",
    "the premise is false",
    "false premise",
    "information is contradictory",
    "contradictory information",
    # whole-answer tokens
    "=n/a",
    "=na",
    "=unknown",
    "=idk",
    "=abstain",
    "=no answer",
    "=not available",
)


def _pattern(phrase: str) -> str:
    return r"\s+".join(re.escape(word) for word in phrase.split())


@dataclass(frozen=True)
class Abstention:
    """The decision on one response and what made it."""

    abstained: bool
    #: The phrase that decided (None when the response answered).
    phrase: str | None
    #: "final answer" when an explicit answer statement decided, else "response".
    where: str


class AbstentionMatcher:
    """Phrases compiled once; ``match(response)`` decides one response."""

    def __init__(self, phrases: Iterable[str] = DEFAULT_PHRASES) -> None:
        self.phrases = tuple(dict.fromkeys(p.strip().lower() for p in phrases if p.strip()))
        anywhere = [p for p in self.phrases if not p.startswith("=")]
        self._whole = {_canonical(p[1:]) for p in self.phrases if p.startswith("=")}
        # One alternation, longest phrase first, word boundaries once around it: a search
        # costs one pass over the response whatever the number of phrases.
        ordered = sorted(anywhere, key=len, reverse=True)
        self._anywhere = (
            re.compile(r"(?<!\w)(?:" + "|".join(map(_pattern, ordered)) + r")(?!\w)")
            if anywhere
            else None
        )
        self._names = {" ".join(p.split()): p for p in anywhere}
        self._answer_is_abstention: dict[str, bool] = {}

    def _find(self, text: str) -> str | None:
        if self._anywhere is None:
            return None
        found = self._anywhere.search(text.lower())
        if found is None:
            return None
        return self._names.get(" ".join(found.group(0).split()), found.group(0))

    def is_abstention_text(self, text: str) -> bool:
        """Whether ``text`` on its own reads as an abstention (remembered: options repeat)."""
        known = self._answer_is_abstention.get(text)
        if known is None:
            known = self._answer_is_abstention[text] = self.match(text).abstained
        return known

    def match(self, response: str | None, answers: Sequence[str] = ()) -> Abstention:
        """Abstention if a phrase is in the final answer statement, or anywhere when the
        response states no explicit answer; an empty response is not an abstention.

        ``answers`` are texts that are answers to this item (its options, its gold): a
        phrase inside one of them, quoted in the response, is that answer, not an
        abstention ("Answer: H) there is insufficient evidence to conclude ...").
        """
        text = _mask(normalize_quotes(response or ""), answers, self)
        final = final_answer(text)
        if final.marked:
            scope, where = final.statement, "final answer"
        else:
            scope, where = text, "response"
        whole = _canonical(final.text) if self._whole else ""
        if whole in self._whole:
            return Abstention(True, "=" + whole, "final answer")
        phrase = self._find(scope)
        return Abstention(phrase is not None, phrase, where)


#: Stands in for an answer's text once it is masked out of a response.
ANSWER_MASK = "ANSWER"


def _mask(text: str, answers: Sequence[str], matcher: AbstentionMatcher) -> str:
    """``text`` with every quoted answer that reads as an abstention replaced."""
    for answer in sorted({a.strip() for a in answers if a and a.strip()}, key=len, reverse=True):
        answer = normalize_quotes(answer).rstrip(".").strip()
        if not answer or not matcher.is_abstention_text(answer):
            continue
        pattern = r"\s+".join(re.escape(word) for word in answer.split())
        text = re.sub(pattern, ANSWER_MASK, text, flags=re.IGNORECASE)
    return text


def _canonical(text: str) -> str:
    return " ".join(clean(normalize_quotes(text)).lower().split())


def read_phrase_file(path: Path) -> list[str]:
    """One phrase per line; blank lines and ``#`` comments are skipped."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read abstention phrases from {path}: {exc}") from None
    phrases = [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]
    if not phrases:
        raise ConfigError(f"{path} has no abstention phrases (one per line, # for comments)")
    return phrases


def build_matcher(extra_files: Sequence[Path] = ()) -> AbstentionMatcher:
    """The default phrases plus those of each file."""
    phrases = list(DEFAULT_PHRASES)
    for path in extra_files:
        phrases.extend(read_phrase_file(path))
    return AbstentionMatcher(phrases)


@functools.cache
def default_matcher() -> AbstentionMatcher:
    """The default phrases, compiled once per process (ledger grading, judges' answers)."""
    return build_matcher()
