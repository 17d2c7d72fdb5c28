"""The three rewrite gates, with the real all-MiniLM-L6-v2 and the real spaCy parser."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from abstain_build.rewrites.changed import changed_sentences
from abstain_build.rewrites.gates import (
    GateConfig,
    GateResult,
    Rewrite,
    check_grammar,
    check_length,
    check_semantic,
    gates_passed,
    run_gates,
    run_gates_many,
)
from abstain_build.rewrites.grammar import grammar_issues, load_parser
from abstain_build.rewrites.semantic import MAX_COSINE
from abstain_build.rewrites.variants import edit_words, trivial_reason
from abstain_build.text.embeddings import load_model, similarities

from .conftest import SHARED_DATA

MMMU_PRO = SHARED_DATA / "mmmu" / "questions_mmmu_pro.jsonl"
MINILM_REFERENCE = Path(__file__).parent / "data" / "minilm_reference"
#: Five real MMMU-Pro questions: short, multi-sentence, LaTeX, a leading placeholder.
REAL_IDS = (
    "test_History_1",
    "test_Art_113",
    "test_Economics_210",
    "test_Chemistry_233",
    "test_Art_Theory_19",
)
QUESTION = "In <image 1>, what is the total resistance between terminals A and B?"


def text_of(length: int, stem: str = "What is shown in <image 1>") -> str:
    """A question of exactly ``length`` characters."""
    filler = " and why" * length
    return (stem + filler)[: length - 1] + "?"


# ---------------------------------------------------------------- length
def test_length_allows_120_percent_and_rejects_121() -> None:
    original = text_of(100)
    assert check_length(original, text_of(120)).passed
    failed = check_length(original, text_of(121))
    assert not failed.passed
    assert failed.score == pytest.approx(1.21)
    assert "too long" in failed.detail


def test_length_ignores_surrounding_whitespace_only() -> None:
    original = text_of(100)
    assert check_length(f"  {original}\n", f"\n{text_of(120)}   ").passed
    assert not check_length(original, text_of(119).replace(" ", "   ", 1)).passed


def test_appended_note_is_measured_apart_from_the_body() -> None:
    original = text_of(50)
    note = "Note: the figure is blank and shows no values at all here."  # 58 chars
    assert len(note) <= 60
    rewrite = f"{text_of(60)} {note}"
    assert check_length(original, rewrite, appended=note).passed
    # Without saying which part was appended, the same text is far over 120%.
    assert not check_length(original, rewrite).passed


def test_appended_note_cap_is_60_chars_or_half_the_original() -> None:
    short = text_of(50)
    note61 = "N" * 60 + "."
    result = check_length(short, f"{short} {note61}", appended=note61)
    assert not result.passed and "note too long" in result.detail
    long = text_of(400)
    note200, note201 = "N" * 199 + ".", "N" * 200 + "."
    assert check_length(long, f"{long} {note200}", appended=note200).passed
    assert not check_length(long, f"{long} {note201}", appended=note201).passed


def test_appended_note_does_not_free_the_body() -> None:
    original = text_of(50)
    note = "Note: the figure is blank."
    result = check_length(original, f"{text_of(61)} {note}", appended=note)
    assert not result.passed and "body too long" in result.detail


def test_appended_note_must_end_the_rewrite_and_leave_a_body() -> None:
    original = text_of(50)
    note = "Note: the figure is blank."
    assert not check_length(original, f"{note} {original}", appended=note).passed
    assert not check_length(original, note, appended=note).passed
    assert not check_length("   ", "What is it?").passed


# ---------------------------------------------------------------- semantic
@pytest.mark.parametrize(
    "variant",
    [
        QUESTION,
        QUESTION.upper().replace("<IMAGE 1>", "<image 1>"),
        QUESTION.lower(),
        "In <image 1> what is the total resistance between terminals A and B",
        "  In <image 1>,   what is the total  resistance between terminals A and B?  ",
        "In <image 1>, what is the overall resistance between terminals A and B?",
        "In <image 1>, what is the resistance between terminals A and B?",
        "What is the total resistance between terminals A and B, in <image 1>?",
    ],
    ids=["identical", "upper", "lower", "punctuation", "spacing", "synonym", "drop", "order"],
)
def test_trivial_variants_fail_without_the_model(variant: str) -> None:
    result = check_semantic(QUESTION, variant)
    assert not result.passed
    assert result.score is None
    assert result.detail.startswith("trivial variant")


def test_trivial_rule_counts_edited_words() -> None:
    assert edit_words(QUESTION, QUESTION) == 0
    assert edit_words("what is the value of x", "what is the size of x") == 1
    assert edit_words("what is x", "what is the unlabeled curve z") == 4
    rewrite = "In <image 1>, what is the value of the unlabeled resistor Z?"
    assert trivial_reason(QUESTION, rewrite) is None
    assert trivial_reason(QUESTION, QUESTION + " Note: the figure is blank.") is None


def test_genuine_rewrite_with_a_nonexistent_reference_passes() -> None:
    rewrite = "In <image 1>, what is the voltage across the unlabeled capacitor marked Q?"
    result = check_semantic(QUESTION, rewrite)
    assert result.passed, result.detail
    assert result.score is not None and result.score < MAX_COSINE


@pytest.mark.parametrize(
    "paraphrase",
    [
        "What is the overall resistance between the terminals A and B in <image 1>?",
        "What is the total electrical resistance between terminals A and B, as shown in <image 1>?",
    ],
)
def test_light_paraphrase_past_the_word_rule_is_caught_by_the_threshold(paraphrase: str) -> None:
    assert trivial_reason(QUESTION, paraphrase) is None
    result = check_semantic(QUESTION, paraphrase)
    assert not result.passed, result.detail
    assert result.score is not None and result.score >= MAX_COSINE


def test_unrelated_question_passes_the_similarity_test() -> None:
    other = "Which artist painted the portrait of Louis Black shown in <image 1>?"
    result = check_semantic(QUESTION, other)
    assert result.passed
    assert result.score is not None and result.score < 0.5


def test_only_the_changed_sentences_are_compared() -> None:
    context = "A circuit has four resistors of 2, 4, 6 and 8 ohms connected as shown."
    original = f"{context} {QUESTION}"
    note = "Note: the figure is blank."
    assert changed_sentences(original, f"{original} {note}") == (QUESTION, note)
    new_ask = "In <image 1>, what is the voltage across the unlabeled capacitor marked Q?"
    assert changed_sentences(original, f"{context} {new_ask}") == (QUESTION, new_ask)
    assert changed_sentences(original, original) == ("", "")


def test_a_declared_note_is_its_own_sentence() -> None:
    stem = "<image 1> was painted by"
    note = "Note: the image is blank."
    assert changed_sentences(stem, f"{stem} {note}", appended=note) == (stem, note)
    assert changed_sentences(stem, f"{stem} {note}") == (stem, f"{stem} {note}")


def test_similarities_batch_matches_single_pairs() -> None:
    pairs = [(QUESTION, QUESTION), (QUESTION, "What colour is the sky?"), ("a cat", "a cat")]
    batch = similarities(pairs)
    assert batch.shape == (3,)
    assert batch[0] == pytest.approx(1.0, abs=1e-5)
    assert batch[1] == pytest.approx(similarities([pairs[1]])[0], abs=1e-5)
    assert similarities([]).shape == (0,)


def test_model_and_parser_load_once_per_process() -> None:
    assert load_model() is load_model()
    assert load_parser() is load_parser()
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(load_model())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(model is load_model() for model in seen)


# ---------------------------------------------------------------- grammar
@pytest.mark.shared_data
def test_real_mmmu_questions_are_well_formed() -> None:
    if not MMMU_PRO.is_file():
        pytest.skip(f"{MMMU_PRO} is absent (the shared MMMU-Pro questions)")
    rows = [json.loads(line) for line in MMMU_PRO.read_text().splitlines() if line.strip()]
    questions = {row["id"]: row["question"] for row in rows if row["id"] in REAL_IDS}
    assert len(questions) == len(REAL_IDS)
    for qid, question in questions.items():
        assert grammar_issues(question) == [], qid
        assert check_grammar(question, question).passed


@pytest.mark.parametrize(
    "question",
    [
        QUESTION,
        "<image 1> is a symbol of...",
        "Which city is shown in <image 1>? Choose the most likely one.",
        "The table shows sales in 2012. <image 1> What was the total revenue in March?",
        "Determine the shear stress in the 6-mm pin B ($\\tau = V/A$). <image 1>",
        "What is this made of?",
        "In general, children in ______ households benefit from <image 1>.",
    ],
)
def test_well_formed_questions_pass(question: str) -> None:
    assert grammar_issues(question) == []


@pytest.mark.parametrize(
    ("rewrite", "why"),
    [
        ("What is the", "dangling the"),
        ("the the value of <image 1>?", "doubled word the"),
        ("In <image 1>, what is the value of", "dangling of"),
        ("In <image 1>, what is the (total resistance between A and B?", "unbalanced ("),
        ('In <image 1>, what is the "total resistance between A and B?', 'unbalanced "'),
        ("In <image 1>, what is the value of the resistor? The value.", "short sentence"),
        ("In <image 1>, what is the (value) of the, resistor?", "article without noun"),
        ("In <image 1>, the total resistance between the terminals.", "no predicate"),
    ],
)
def test_fragments_and_broken_text_fail(rewrite: str, why: str) -> None:
    original = "In <image 1>, what is the value of the resistor?"
    result = check_grammar(original, rewrite)
    assert not result.passed
    assert why in result.detail


@pytest.mark.parametrize(
    "rewrite",
    [
        "In the figure, what is the total resistance between terminals A and B?",
        "In <image 2>, what is the total resistance between terminals A and B?",
        "In <image1>, what is the total resistance between terminals A and B?",
        "In <image 1> and <image 1>, what is the total resistance between A and B?",
    ],
    ids=["dropped", "renumbered", "malformed", "duplicated"],
)
def test_placeholders_must_be_kept_exactly(rewrite: str) -> None:
    result = check_grammar(QUESTION, rewrite)
    assert not result.passed
    assert "placeholders changed" in result.detail


def test_a_rewrite_inherits_the_originals_defects_but_may_not_add_any() -> None:
    stem = "<image 1> was painted by"  # an MMMU sentence-completion stem
    assert grammar_issues(stem)
    assert check_grammar(stem, "<image 1>, a lost fresco from Zorvath, was painted by").passed
    result = check_grammar(stem, "<image 1>, a lost fresco from the, was painted by")
    assert not result.passed and "article without noun" in result.detail


# ---------------------------------------------------------------- all three
def test_run_gates_runs_all_three_cheapest_first() -> None:
    rewrite = "In <image 1>, what is the voltage across the unlabeled capacitor marked Q?"
    results = run_gates(QUESTION, rewrite)
    assert [r.name for r in results] == ["length", "grammar", "semantic"]
    assert all(isinstance(r, GateResult) for r in results)
    assert gates_passed(results), results


def test_run_gates_reports_every_failure() -> None:
    results = run_gates(QUESTION, QUESTION.lower().replace("<image 1>", "the image"))
    assert [r.passed for r in results] == [True, False, False]
    assert not gates_passed(results)


def test_run_gates_with_an_appended_note() -> None:
    note = "Note: the figure shows only a plain white background."
    rewrite = f"{QUESTION} {note}"
    assert gates_passed(run_gates(QUESTION, rewrite, appended=note))
    assert not gates_passed(run_gates(QUESTION, rewrite))  # 196% without naming the note


def test_run_gates_many_matches_single_runs() -> None:
    cases = [
        Rewrite(QUESTION, "In <image 1>, what is the voltage across the unlabeled capacitor Q?"),
        (QUESTION, QUESTION.upper()),
        (QUESTION, f"{QUESTION} Note: the figure is blank.", "Note: the figure is blank."),
    ]
    batch = run_gates_many(cases)
    singles = [
        run_gates(*(c.original, c.rewrite, c.appended) if isinstance(c, Rewrite) else c)
        for c in cases
    ]
    for many, one in zip(batch, singles, strict=True):
        assert [(r.name, r.passed) for r in many] == [(r.name, r.passed) for r in one]
        for a, b in zip(many, one, strict=True):
            assert (a.score is None) == (b.score is None)
            if a.score is not None:
                assert a.score == pytest.approx(b.score, abs=1e-4)


def test_config_changes_the_rule() -> None:
    rewrite = text_of(130, "In <image 1>, what is the voltage across the unlabeled capacitor Q")
    original = text_of(100, QUESTION[:-1])
    assert not run_gates(original, rewrite)[0].passed
    assert run_gates(original, rewrite, config=GateConfig(max_ratio=1.5))[0].passed


def test_our_minilm_matches_sentence_transformers() -> None:
    """Our forward pass must give the embeddings the reference library gives for this model:
    sentence-transformers' own, computed once for 500 sentences (real questions and options,
    32 past the 256 tokens both truncate at, empty and odd strings) by
    ``bench/minilm_reference.py`` and shipped in float16."""
    meta = json.loads(MINILM_REFERENCE.with_suffix(".json").read_text(encoding="utf-8"))
    expected = np.load(MINILM_REFERENCE.with_suffix(".npz"))["embeddings"].astype(np.float32)
    ours = load_model().encode(meta["sentences"])
    assert ours.shape == expected.shape == (500, 384)
    assert ours.dtype == np.float32
    assert np.abs(np.linalg.norm(ours, axis=1) - 1.0).max() < 1e-5
    cosine = np.einsum("ij,ij->i", ours, expected) / np.linalg.norm(expected, axis=1)
    worst = int(cosine.argmin())
    assert cosine[worst] >= 0.9999, (worst, meta["sentences"][worst][:80], cosine[worst])
