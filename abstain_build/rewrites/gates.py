"""The three validation gates every question rewrite must pass: length, grammar, semantic.

Each gate answers with a :class:`GateResult`; a rewrite is kept only when all three pass
(:func:`gates_passed`). They run cheapest first: length (string lengths), grammar (a
spaCy parse, ~ms), semantic (a word diff, then an embedding only when the rewrite is not
a trivial variant). For many rewrites use :func:`run_gates_many`, which parses and encodes
in batches and encodes each distinct text once.

The rules and the measured numbers behind the defaults live with each gate:
:mod:`.length`, :mod:`.grammar_gate`, :mod:`.semantic`.

Cost on 2 CPU cores (``bench/gate_thresholds.py``, 24,027 rewrites of 1,730 questions in
one batch): length 0.002 ms, grammar 3.7 ms, semantic 6.8 ms per rewrite (12.6 ms per
rewrite that reaches the model), 10.5 ms for all three. One rewrite at a time costs about
12 ms of grammar and 24 ms of semantic, plus ~0.8 s for the first embedding (loading the
model, :mod:`..text.minilm`) and ~1 s for the first parse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..text.embeddings import DEFAULT_BATCH_SIZE, similarities
from .grammar_gate import check_grammar, check_grammar_many
from .length import MAX_RATIO, NOTE_MIN_CHARS, NOTE_RATIO, check_length
from .result import GateResult, gates_passed
from .semantic import MAX_COSINE, Scope, check_semantic, check_semantic_many
from .variants import MAX_TRIVIAL_EDIT_WORDS

__all__ = [
    "GateConfig",
    "GateResult",
    "Rewrite",
    "check_grammar",
    "check_length",
    "check_semantic",
    "gates_passed",
    "run_gates",
    "run_gates_many",
    "similarities",
]


@dataclass(frozen=True)
class GateConfig:
    """The gates' knobs; the defaults are the documented, measured rule."""

    max_ratio: float = MAX_RATIO
    note_min_chars: int = NOTE_MIN_CHARS
    note_ratio: float = NOTE_RATIO
    max_cosine: float = MAX_COSINE
    semantic_scope: Scope = "changed"
    max_trivial_edit_words: int = MAX_TRIVIAL_EDIT_WORDS
    batch_size: int = DEFAULT_BATCH_SIZE


@dataclass(frozen=True)
class Rewrite:
    """One candidate: the original question, its rewrite, and the note it appended if any."""

    original: str
    rewrite: str
    appended: str | None = None


def _length(case: Rewrite, config: GateConfig) -> GateResult:
    return check_length(
        case.original,
        case.rewrite,
        case.appended,
        config.max_ratio,
        note_min_chars=config.note_min_chars,
        note_ratio=config.note_ratio,
    )


def run_gates(
    original: str,
    rewrite: str,
    appended: str | None = None,
    *,
    config: GateConfig | None = None,
) -> list[GateResult]:
    """The three gates for one rewrite, in the order length, grammar, semantic."""
    return run_gates_many([Rewrite(original, rewrite, appended)], config=config)[0]


def run_gates_many(
    cases: Sequence[Rewrite | tuple[str, str] | tuple[str, str, str | None]],
    *,
    config: GateConfig | None = None,
) -> list[list[GateResult]]:
    """The three gates for many rewrites; one list of results per case, in input order.

    All gates run on every case (the quality report wants every number); the parse and
    the embeddings are batched.
    """
    config = config or GateConfig()
    rewrites = [c if isinstance(c, Rewrite) else Rewrite(*c) for c in cases]
    pairs = [(c.original, c.rewrite) for c in rewrites]
    lengths = [_length(c, config) for c in rewrites]
    grammar = check_grammar_many(pairs)
    semantic = check_semantic_many(
        [(c.original, c.rewrite, c.appended) for c in rewrites],
        config.max_cosine,
        max_edit_words=config.max_trivial_edit_words,
        scope=config.semantic_scope,
        batch_size=config.batch_size,
    )
    return [list(results) for results in zip(lengths, grammar, semantic, strict=True)]
