"""Where should the semantic gate's threshold sit? Cosine similarities on real MMMU questions.

For every question of MMMU-Pro (``questions_mmmu_pro.jsonl``, 1,730 questions) the script
makes three kinds of pairs and measures the all-MiniLM-L6-v2 cosine similarity of each:

* trivial variants, which must fail: case changed, punctuation removed, spacing changed,
  one synonym swapped, one word dropped, a typo, the clause order swapped, and a light
  paraphrase (synonym swap + dropped word + clause swap together, which the word-level
  trivial rule does not catch, so the cosine threshold must);
* genuine rewrites of the kinds our transforms make (six deterministic recipes: a
  nonexistent reference, an appended contradictory note, an ask the image cannot answer,
  another image, a false premise, a fictional entity), which should pass;
* a meaning-neutral appended instruction ("Choose the best answer."), which should fail
  but which no similarity threshold can tell from a contradictory note;
* unrelated question pairs (question i with question i + n/2), which should pass.

It prints percentiles per category, a threshold sweep, every gate's pass rate per
category, the grammar gate's pass rate on the unmodified originals with the reasons of the
failures, and the time per gate check measured on the whole batch.

    python bench/gate_thresholds.py [QUESTIONS.jsonl] [--limit N] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.rewrites.gates import Rewrite  # noqa: E402
from abstain_build.rewrites.grammar import PARSER_NAME, grammar_issues_many  # noqa: E402
from abstain_build.rewrites.grammar_gate import check_grammar_many  # noqa: E402
from abstain_build.rewrites.length import check_length  # noqa: E402
from abstain_build.rewrites.semantic import (  # noqa: E402
    MAX_COSINE,
    check_semantic_many,
    compared_texts,
)
from abstain_build.rewrites.variants import edit_words, jaccard, trivial_reason  # noqa: E402
from abstain_build.text.embeddings import load_model, similarities  # noqa: E402
from abstain_build.text.sentences import split_sentences  # noqa: E402

DEFAULT_SOURCE = ROOT.parent / "shared" / "data" / "mmmu" / "questions_mmmu_pro.jsonl"
PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)
SWEEP = (0.80, 0.85, 0.88, 0.90, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 0.98)
PLACEHOLDER = re.compile(r"<image (\d+)>")
WH = frozenset({"what", "which", "who", "whom", "whose", "where", "when", "how", "why"})

SYNONYMS = {
    "shown": "depicted",
    "image": "picture",
    "picture": "image",
    "following": "subsequent",
    "best": "most",
    "determine": "find",
    "calculate": "compute",
    "find": "determine",
    "value": "amount",
    "figure": "diagram",
    "diagram": "figure",
    "correct": "right",
    "likely": "probable",
    "painting": "artwork",
    "total": "overall",
    "show": "display",
    "shows": "displays",
    "used": "employed",
    "main": "primary",
    "describe": "explain",
    "identify": "name",
    "select": "choose",
    "choose": "pick",
    "what": "which",
}
THINGS = (
    "dashed curve Z",
    "component marked Q",
    "region labeled W",
    "inset table 7",
    "arrow marked K",
    "shaded sector R",
)
NOTES = (
    "Note: the image provided is completely blank.",
    "Assume the figure contains no labels, numbers or text.",
    "Note that every value has been erased from the figure.",
    "Note: the figure shows only a plain white background.",
)
#: Appended sentences that change nothing: they should fail, and no embedding can tell.
INSTRUCTIONS = (
    "Choose the best answer.",
    "Explain your reasoning briefly.",
    "Answer with the letter of the correct option.",
    "Think step by step before answering.",
)
ASKS = (
    "What is the name of the person who made {ref}?",
    "On what date was {ref} first created?",
    "How much did {ref} cost to produce?",
    "What is the file size of {ref} in kilobytes?",
)
FICTION = {
    "PERSON": "Velmora Quist",
    "GPE": "the Republic of Dravenholt",
    "LOC": "the Ostrel Basin",
    "ORG": "the Quarnwell Institute",
    "NORP": "Dravenholtian",
    "FAC": "the Ostrel Bridge",
    "WORK_OF_ART": "The Glass Orchard",
    "EVENT": "the Ostrel Accord",
}
TRIVIAL = (
    "case",
    "punctuation",
    "spacing",
    "synonym",
    "drop_word",
    "typo",
    "clause_swap",
    "light_paraphrase",
)
GENUINE = (
    "nonexistent_reference",
    "contradictory_note",
    "unanswerable_ask",
    "other_image",
    "false_premise",
    "fictional_entity",
)
#: Meaning-neutral additions: not trivial by the word rule, not a genuine rewrite either.
NEUTRAL = ("neutral_instruction",)


@dataclass(frozen=True)
class Pair:
    kind: str  # "trivial" | "genuine" | "unrelated"
    recipe: str
    original: str
    rewrite: str
    appended: str | None = None


# ---------------------------------------------------------------- splitting a question
def split_ask(question: str) -> tuple[str, str, str]:
    """(context, ask, tail): the ask is the last sentence with a '?' (else the last one
    with two letters in a row); the tail is whatever follows it (often a placeholder)."""
    parts = split_sentences(question)
    index = max((i for i, p in enumerate(parts) if "?" in p), default=None)
    if index is None:
        index = max(
            (i for i, p in enumerate(parts) if re.search(r"[A-Za-z]{2}", PLACEHOLDER.sub("", p))),
            default=len(parts) - 1,
        )
    return " ".join(parts[:index]), parts[index], " ".join(parts[index + 1 :])


def join(*pieces: str) -> str:
    return " ".join(p.strip() for p in pieces if p.strip())


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:1].isupper() and not text[1:2].isupper() else text


# ---------------------------------------------------------------- trivial variants
def tv_case(q: str, i: int, nlp) -> str | None:
    return q.lower() if i % 2 == 0 else q.upper().replace("<IMAGE", "<image")


def tv_punctuation(q: str, i: int, nlp) -> str | None:
    out = re.sub(r"[^\w\s<>]", "", q)
    return out if out != q else None


def tv_spacing(q: str, i: int, nlp) -> str | None:
    spaced = re.sub(r"(?<!<image) (?!\d+>)", "  ", q)  # placeholders keep their one space
    return "  " + spaced + " \n"


def tv_synonym(q: str, i: int, nlp) -> str | None:
    for match in re.finditer(r"\b[A-Za-z]+\b", q):
        word = match.group(0)
        swap = SYNONYMS.get(word.lower())
        if swap and q[max(0, match.start() - 1)] != "<":
            swap = swap.capitalize() if word[0].isupper() else swap
            return q[: match.start()] + swap + q[match.end() :]
    return None


def _plain_words(q: str) -> list[re.Match[str]]:
    hidden = PLACEHOLDER.sub(lambda m: "#" * len(m.group(0)), q)
    return [m for m in re.finditer(r"\b[A-Za-z]+\b", hidden)]


def tv_drop_word(q: str, i: int, nlp) -> str | None:
    found = _plain_words(q)
    if len(found) < 4:
        return None
    m = found[len(found) // 2]
    return " ".join((q[: m.start()] + q[m.end() :]).split())


def tv_typo(q: str, i: int, nlp) -> str | None:
    found = [m for m in _plain_words(q) if len(m.group(0)) >= 4]
    if not found:
        return None
    m = max(found, key=lambda m: len(m.group(0)))
    w = m.group(0)
    return q[: m.start()] + w[0] + w[2] + w[1] + w[3:] + q[m.end() :]


def tv_clause_swap(q: str, i: int, nlp) -> str | None:
    context, ask, tail = split_ask(q)
    end = ask[-1] if ask[-1:] in "?." else ""
    body = ask[:-1] if end else ask
    if ", " in body:
        a, b = body.split(", ", 1)
        swapped = f"{b[:1].upper()}{b[1:]}, {lower_first(a)}{end}"
    else:
        lead = re.match(r"^(<image \d+>)\s+(.*)$", body)
        trail = re.match(r"^(.*?)\s*(<image \d+>)$", body)
        if trail and trail.group(1):
            swapped = f"{trail.group(2)} {trail.group(1)}{end}"
        elif lead and re.match(r"[A-Z]", lead.group(2)):
            swapped = f"{lead.group(2)} {lead.group(1)}{end}"
        else:
            return None
    return join(context, swapped, tail)


def tv_light_paraphrase(q: str, i: int, nlp) -> str | None:
    out = q
    for step in (tv_clause_swap, tv_synonym, tv_drop_word):
        changed = step(out, i, nlp)
        if changed is None:
            return None
        out = changed
    return out


# ---------------------------------------------------------------- genuine rewrites
def gr_nonexistent_reference(q: str, i: int, nlp) -> str | None:
    context, ask, tail = split_ask(q)
    for chunk in nlp(ask).noun_chunks:
        text = chunk.text.lower()
        if chunk.root.pos_ != "NOUN" or re.search(r"image|following|[<>()\[\]$]", text):
            continue
        if any(t.lower_ in WH for t in chunk) or chunk.root.lower_ in ("one", "answer"):
            continue
        thing = "unlabeled " + THINGS[i % len(THINGS)]
        before = ask[: chunk.start_char]
        if not re.search(r"\b(the|a|an|this|these|its|their)\s*$", before, re.IGNORECASE):
            thing = "the " + thing
        if not before.strip():
            thing = thing[0].upper() + thing[1:]
        return join(context, before + thing + ask[chunk.end_char :], tail)
    return None


def gr_contradictory_note(q: str, i: int, nlp) -> tuple[str, str]:
    note = NOTES[i % len(NOTES)]
    return join(q, note), note


def gr_unanswerable_ask(q: str, i: int, nlp) -> str | None:
    context, ask, tail = split_ask(q)
    refs = PLACEHOLDER.findall(ask)
    ref = " and ".join(f"<image {n}>" for n in refs) if refs else "the figure"
    return join(context, ASKS[i % len(ASKS)].format(ref=ref), tail)


def gr_other_image(q: str, i: int, nlp) -> str | None:
    match = PLACEHOLDER.search(q)
    if match is None:
        return None
    before = q[: match.start()]
    lead = "image after" if re.search(r"\bthe\s*$", before, re.IGNORECASE) else "the image after"
    return f"{before}{lead} {q[match.start() :]}"


def gr_false_premise(q: str, i: int, nlp) -> str | None:
    context, ask, tail = split_ask(q)
    return join(context, "Given that the figure is a blank page, " + lower_first(ask), tail)


def gr_fictional_entity(q: str, i: int, nlp) -> str | None:
    for ent in nlp(q).ents:
        near = q[max(0, ent.start_char - 8) : ent.end_char + 2]
        if ent.label_ in FICTION and not re.search(r"image|[<>]", near, re.IGNORECASE):
            name = FICTION[ent.label_]
            if q[: ent.start_char].lower().endswith("the "):
                name = name.removeprefix("the ")
            return q[: ent.start_char] + name + q[ent.end_char :]
    return None


def nv_instruction(q: str, i: int, nlp) -> tuple[str, str]:
    note = INSTRUCTIONS[i % len(INSTRUCTIONS)]
    return join(q, note), note


RECIPES: dict[str, Callable] = {
    "case": tv_case,
    "punctuation": tv_punctuation,
    "spacing": tv_spacing,
    "synonym": tv_synonym,
    "drop_word": tv_drop_word,
    "typo": tv_typo,
    "clause_swap": tv_clause_swap,
    "light_paraphrase": tv_light_paraphrase,
    "nonexistent_reference": gr_nonexistent_reference,
    "contradictory_note": gr_contradictory_note,
    "unanswerable_ask": gr_unanswerable_ask,
    "other_image": gr_other_image,
    "false_premise": gr_false_premise,
    "fictional_entity": gr_fictional_entity,
    "neutral_instruction": nv_instruction,
}


def make_pairs(questions: list[str], nlp) -> list[Pair]:
    pairs = []
    for recipe in (*TRIVIAL, *GENUINE, *NEUTRAL):
        kind = "trivial" if recipe in TRIVIAL else "genuine" if recipe in GENUINE else "neutral"
        for i, q in enumerate(questions):
            made = RECIPES[recipe](q, i, nlp)
            if made is None:
                continue
            rewrite, appended = made if isinstance(made, tuple) else (made, None)
            if rewrite.strip() != q.strip() or recipe == "spacing":
                pairs.append(Pair(kind, recipe, q, rewrite, appended))
    n = len(questions)
    for i, q in enumerate(questions):
        other = questions[(i + n // 2) % n]
        if other.strip() != q.strip():
            pairs.append(Pair("unrelated", "unrelated", q, other))
    return pairs


# ---------------------------------------------------------------- reporting
def percentiles(values: np.ndarray) -> str:
    if not len(values):
        return "-"
    return " ".join(f"{p:>5.3f}" for p in np.percentile(values, PERCENTILES))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if not args.source.is_file():
        sys.exit(f"{args.source} is absent (the shared MMMU-Pro questions)")

    rows = [json.loads(line) for line in args.source.read_text().splitlines() if line.strip()]
    questions = [str(row["question"]) for row in rows][: args.limit]
    print(f"{len(questions)} questions from {args.source}")

    import spacy

    t0 = time.perf_counter()
    load_model()
    print(f"model loaded in {time.perf_counter() - t0:.1f} s (import included)")
    nlp = spacy.load(PARSER_NAME)  # with NER, for the fictional-entity recipe
    pairs = make_pairs(questions, nlp)
    by_recipe = Counter(p.recipe for p in pairs)
    print(f"{len(pairs)} pairs: " + ", ".join(f"{k} {v}" for k, v in by_recipe.items()))
    distinct = len({t for p in pairs for t in (p.original, p.rewrite)})

    # ---- cosine of every pair, trivial rule aside: whole texts and changed sentences
    t0 = time.perf_counter()
    whole = similarities([(p.original, p.rewrite) for p in pairs])
    print(f"whole texts encoded in {time.perf_counter() - t0:.1f} s")
    t0 = time.perf_counter()
    changed = similarities([compared_texts(p.original, p.rewrite, p.appended) for p in pairs])
    print(f"changed sentences encoded in {time.perf_counter() - t0:.1f} s")
    trivial_rule = [trivial_reason(p.original, p.rewrite) is not None for p in pairs]

    groups: dict[str, list[int]] = defaultdict(list)
    for at, p in enumerate(pairs):
        groups[p.recipe].append(at)
        groups[f"[{p.kind}]"].append(at)
    order = [*TRIVIAL, "[trivial]", *GENUINE, "[genuine]", *NEUTRAL, "unrelated"]
    for label, cosines in (("WHOLE TEXTS", whole), ("CHANGED SENTENCES (the gate)", changed)):
        print(f"\nCosine percentiles, {label}; 'rule' = caught by the word-level trivial rule")
        print(
            f"{'recipe':<24}{'n':>6}{'rule':>7}  "
            + " ".join(f"{'p' + str(p):>5}" for p in PERCENTILES)
        )
        for name in order:
            idx = groups.get(name, [])
            if idx:
                rule = sum(trivial_rule[a] for a in idx) / len(idx)
                print(f"{name:<24}{len(idx):>6}{rule:>7.1%}  {percentiles(cosines[idx])}")

    print("\nWord-level measures, median (edit words / Jaccard)")
    for name in order:
        idx = groups.get(name, [])
        if idx:
            edits = np.median([edit_words(pairs[a].original, pairs[a].rewrite) for a in idx])
            jac = np.median([jaccard(pairs[a].original, pairs[a].rewrite) for a in idx])
            print(f"  {name:<24} edit words {edits:>5.0f}   Jaccard {jac:.3f}")

    # ---- threshold sweep: what each threshold does beyond the word-level rule
    slipped = [a for a in groups["[trivial]"] if not trivial_rule[a]]
    genuine = [a for a in groups["[genuine]"] if not trivial_rule[a]]
    unrelated = groups["unrelated"]
    print(
        f"\nThreshold sweep, beyond the word rule: trivial variants it misses ({len(slipped)})"
        f" rejected; genuine rewrites ({len(genuine)}) and unrelated pairs kept"
    )
    print(f"{'':6}{'--- whole texts ---':>36}  {'--- changed sentences ---':>36}")
    print(f"{'T':>6}" + f"{'trivial rej':>12}{'genuine kept':>13}{'unrel kept':>11}" * 2)
    for t in SWEEP:
        row = f"{t:>6.2f}"
        for cosines in (whole, changed):
            rej = np.mean(cosines[slipped] >= t) if slipped else float("nan")
            kept = np.mean(cosines[genuine] < t)
            unrel = np.mean(cosines[unrelated] < t)
            row += f"{rej:>12.1%}{kept:>13.1%}{unrel:>11.1%}"
        print(row + ("  <- MAX_COSINE" if abs(t - MAX_COSINE) < 1e-9 else ""))

    print(f"\nGenuine rewrites by question length, kept at T={MAX_COSINE} (whole / changed)")
    for lo, hi in ((0, 100), (100, 250), (250, 500), (500, 10**6)):
        idx = [a for a in genuine if lo <= len(pairs[a].original.strip()) < hi]
        if idx:
            print(
                f"  {lo:>4}-{hi if hi < 10**6 else '':<5} chars: n={len(idx):>5}  median "
                f"{np.median(whole[idx]):.3f} / {np.median(changed[idx]):.3f}  kept "
                f"{np.mean(whole[idx] < MAX_COSINE):.1%} / {np.mean(changed[idx] < MAX_COSINE):.1%}"
            )

    # ---- every gate on every pair, timed on the whole batch
    cases = [Rewrite(p.original, p.rewrite, p.appended) for p in pairs]
    t0 = time.perf_counter()
    lengths = [check_length(c.original, c.rewrite, c.appended) for c in cases]
    t_len = time.perf_counter() - t0
    t0 = time.perf_counter()
    grammar = check_grammar_many([(c.original, c.rewrite) for c in cases])
    t_gram = time.perf_counter() - t0
    t0 = time.perf_counter()
    semantic = check_semantic_many([(c.original, c.rewrite, c.appended) for c in cases])
    t_sem = time.perf_counter() - t0
    n = len(cases)
    encoded = sum(r.score is not None for r in semantic)
    print(f"\nTime per check on this batch of {n} rewrites (2 CPU cores):")
    print(f"  length   {1000 * t_len / n:8.4f} ms")
    print(f"  grammar  {1000 * t_gram / n:8.2f} ms  ({distinct} distinct texts, each parsed once)")
    print(f"  semantic {1000 * t_sem / n:8.2f} ms  ({encoded} pairs past the trivial rule encoded)")
    print(f"  all three {1000 * (t_len + t_gram + t_sem) / n:7.2f} ms per rewrite")

    print(f"\nGate pass rates (MAX_COSINE={MAX_COSINE}, changed sentences)")
    print(f"{'recipe':<24}{'n':>6}{'length':>9}{'grammar':>9}{'semantic':>9}{'all':>9}")
    for name in order:
        idx = groups.get(name, [])
        if not idx:
            continue
        ok = [(lengths[a].passed, grammar[a].passed, semantic[a].passed) for a in idx]
        cols = [np.mean([o[k] for o in ok]) for k in range(3)]
        both = np.mean([all(o) for o in ok])
        print(f"{name:<24}{len(idx):>6}" + "".join(f"{c:>9.1%}" for c in cols) + f"{both:>9.1%}")
    print("(unrelated pairs are not rewrites: only their semantic column means anything)")

    # ---- grammar on the unmodified originals
    issues = grammar_issues_many(questions)
    failed = [(q, i) for q, i in zip(questions, issues, strict=True) if i]
    rate = 1 - len(failed) / len(questions)
    print(
        f"\nGrammar rule on the {len(questions)} unmodified originals: {rate:.1%} pass "
        f"({len(failed)} fail)"
    )
    reasons = Counter(
        issue.key.split(" ")[0] + " " + issue.key.split(" ")[1] if " " in issue.key else issue.key
        for _, found in failed
        for issue in found
    )
    for reason, count in reasons.most_common():
        print(f"  {count:>4}  {reason}")
    grammar_failures = Counter(
        grammar[a].detail.split(":")[0] for a in groups["[genuine]"] if not grammar[a].passed
    )
    if grammar_failures:
        print("Genuine rewrites failing the grammar gate, by first reason:")
        for reason, count in grammar_failures.most_common(8):
            print(f"  {count:>4}  {reason}")

    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "pairs": [
                        {
                            "kind": p.kind,
                            "recipe": p.recipe,
                            "original": p.original,
                            "rewrite": p.rewrite,
                            "appended": p.appended,
                            "cosine_whole": float(cw),
                            "cosine_changed": float(cc),
                            "gates": [[r.name, r.passed, r.score, r.detail] for r in (le, gr, se)],
                        }
                        for p, cw, cc, le, gr, se in zip(
                            pairs, whole, changed, lengths, grammar, semantic, strict=True
                        )
                    ],
                },
                indent=1,
            )
        )
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
