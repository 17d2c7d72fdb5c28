"""What a question offers to rewrite it with: its image placeholders, its sentences and the
one that asks, its noun phrases and numbers, and its options.

Offline rewrites are built from these parts of the sample itself, so two questions rarely
come out alike: a template names *this* question's subject ("the heat engine", "the
resected specimen"), not a fixed phrase.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..numbers import NumericToken, find_numbers
from ..text.sentences import split_sentences
from .grammar import PLACEHOLDER

#: Noun phrases that name nothing a rewrite could point at.
_VAGUE_HEADS = frozenset(
    [
        "following",
        "which",
        "what",
        "who",
        "that",
        "this",
        "these",
        "those",
        "it",
        "they",
        "one",
        "answer",
        "answers",
        "option",
        "options",
        "statement",
        "statements",
        "question",
        "questions",
        "choice",
        "choices",
        "image",
        "images",
        "figure",
        "picture",
    ]
)


def nlp():
    """The spaCy pipeline the grammar gate uses too: loaded once per process, lazily."""
    from .grammar import load_parser

    return load_parser()


@dataclass(frozen=True)
class Phrase:
    """A noun phrase of the question: its text, its head noun, and where it is."""

    text: str
    head: str
    start: int
    end: int
    plural: bool = False
    #: A proper name ("Louis Black"): its head is not a common noun to talk about.
    proper: bool = False
    #: Where the phrase ends with its "of ..." complement ("philosophy *of building*"):
    #: a replacement that names a different thing replaces the complement too.
    tail_end: int = -1

    def __post_init__(self) -> None:
        if self.tail_end < self.end:
            self.tail_end = self.end


@dataclass
class QuestionParts:
    """A question taken apart for rewriting (see the module docstring)."""

    text: str
    placeholders: list[str]
    context: str  # every sentence before the one that asks
    ask: str  # the sentence that asks (the last question, else the last sentence)
    phrases: list[Phrase] = field(default_factory=list)  # in the ask first, then the context
    numbers: list[NumericToken] = field(default_factory=list)
    options: tuple[str, ...] = ()

    @property
    def image_ref(self) -> str:
        """The question's placeholders as one phrase ("<image 1> and <image 2>")."""
        if not self.placeholders:
            return "the image"
        if len(self.placeholders) == 1:
            return self.placeholders[0]
        return ", ".join(self.placeholders[:-1]) + " and " + self.placeholders[-1]

    @property
    def ask_start(self) -> int:
        """Where the asking sentence starts in ``text`` (-1: not found)."""
        return self.text.rfind(self.ask)

    @property
    def has_images(self) -> bool:
        return bool(self.placeholders)

    def topic(self, index: int = 0) -> Phrase | None:
        """The ``index``-th most salient noun phrase (those of the asking sentence first)."""
        return self.phrases[index] if index < len(self.phrases) else None


def _protect(text: str) -> str:
    """Placeholders as nouns the parser can read (same length, so offsets still hold)."""
    return PLACEHOLDER.sub(lambda m: "X" * (len(m.group()) - 1) + "Q", text)


def _phrases(text: str) -> list[Phrase]:
    """Noun phrases worth pointing at. ``start``/``end`` cover the whole chunk, its
    determiner included ("this radiograph"), so a replacement brings its own article;
    ``text`` is the phrase without it. The asked-for noun ("What *organ* ...") is skipped:
    replacing it would break the question."""
    doc = nlp()(_protect(text))
    found: list[Phrase] = []
    for chunk in doc.noun_chunks:
        head = chunk.root.text.lower()
        if head in _VAGUE_HEADS or chunk.root.pos_ == "PRON" or "XXXX" in chunk.text:
            continue
        if any(t.tag_ in ("WDT", "WP", "WP$", "WRB") for t in chunk):
            continue
        words = [t for t in chunk if t.pos_ not in ("DET", "PRON")]
        while words and words[0].lower_ in ("following", "above", "below", "given"):
            words = words[1:]
        if not words or not any(ch.isalpha() for ch in chunk.root.text):
            continue
        phrase = text[words[0].idx : words[-1].idx + len(words[-1].text)]
        if len(phrase) > 60 or PLACEHOLDER.search(phrase) or "," in phrase or "$" in phrase:
            continue
        start = chunk[0].idx if chunk[0].pos_ == "DET" else words[0].idx
        end = words[-1].idx + len(words[-1].text)
        plural = chunk.root.tag_ in ("NNS", "NNPS")
        proper = chunk.root.pos_ == "PROPN"
        found.append(
            Phrase(phrase, chunk.root.text, start, end, plural, proper, _tail_end(doc, chunk, end))
        )
    return found


def _tail_end(doc, chunk, end: int) -> int:
    """The end of the chunk's "of ..." complement, if one follows it directly (else ``end``)."""
    if chunk.end >= len(doc):
        return end
    after = doc[chunk.end]
    if after.lower_ != "of" or after.head.i != chunk.root.i:
        return end
    last = max(after.subtree, key=lambda t: t.i)
    tail_end = last.idx + len(last.text)
    if tail_end - end > 40 or "," in doc.text[end:tail_end]:
        return end
    return tail_end


#: A number worth contradicting carries a unit, a currency or a percent sign.
_MATH = re.compile(r"\$[^$]*\$")
_UNIT_AFTER = re.compile(r"\s?(?:%|[A-Za-zµ°Ω/]{1,6}\b)")


def _with_unit(text: str, token: NumericToken) -> bool:
    if token.kind == "percent" or token.currency or token.scale:
        return True
    if text[max(0, token.start - 1) : token.start] in ("(", "$", "_", "^"):
        return False
    if any(m.start() < token.start < m.end() for m in _MATH.finditer(text)):
        return False  # inside $...$: a formula, not a stated condition
    return bool(_UNIT_AFTER.match(text, token.end))


#: A sentence that sets the task when no sentence asks with a question mark.
_TASK = re.compile(
    r"^(?:Calculate|Compute|Determine|Find|Estimate|Evaluate|Solve|Identify|Name|Select|Choose"
    r"|Give|State|Explain|Describe|List|What|Which|How|Who|Why|When|Where)\b"
)
_PLACEHOLDER_THEN_SENTENCE = re.compile(r"(?<=>)\s+(?=[A-Z][a-z])")


def _after_placeholder(sentence: str) -> list[str]:
    """ "These are the balances: <image 1> Compute the cost." is two sentences: a
    placeholder followed by a capitalised word ends the one before."""
    return [part for part in _PLACEHOLDER_THEN_SENTENCE.split(sentence) if part]


def parse_question(text: str, options: tuple[str, ...] = ()) -> QuestionParts:
    """Split ``text`` into context and asking sentence and find its phrases and numbers."""
    clean = " ".join(text.split())
    sentences = [part for s in split_sentences(clean) for part in _after_placeholder(s)]
    asks = [i for i, s in enumerate(sentences) if s.endswith("?")]
    if not asks:  # an instruction: the last sentence that sets the task, else the last
        asks = [i for i, s in enumerate(sentences) if _TASK.match(s) or "___" in s]
    index = asks[-1] if asks else len(sentences) - 1
    ask = sentences[index] if sentences else clean
    context = " ".join(sentences[:index])
    offset = clean.find(ask)
    in_ask, elsewhere = [], []
    for phrase in _phrases(clean):
        inside = offset <= phrase.start < offset + len(ask)
        (in_ask if inside else elsewhere).append(phrase)
    return QuestionParts(
        text=clean,
        placeholders=[m.group() for m in PLACEHOLDER.finditer(clean)],
        context=context,
        ask=ask,
        phrases=in_ask + elsewhere,
        numbers=[
            t for t in find_numbers(_protect(clean)) if t.is_quantity and _with_unit(clean, t)
        ],
        options=tuple(options),
    )
