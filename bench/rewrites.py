"""Offline question rewrites at scale: gate pass rates, variety, and time per rewrite.

Runs every question-rewrite transform in offline mode over the 1,730 MMMU-Pro questions
(``../shared/data/mmmu/questions_mmmu_pro.jsonl``) and ``contradictory_caption`` over the
answerable MMLongBench-Doc questions (``all_questions.json``; no documents there, so name
answers are contradicted by denial), exactly as a build plans them: candidates from the
seeded templates, the three gates on each, the first that passes is kept.

    python bench/rewrites.py [--limit N] [--examples 5] [--json PATH]

Per transform: share of questions rewritten (all gates passed within ``attempts``), the
failing gate when none passed, distinct outputs, distinct templates used, the share of
outputs whose appended phrase is identical to another's, and ms per rewrite (gates
included; the first call's model loading is reported apart).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.media.inputs import SampleInputs  # noqa: E402
from abstain_build.model import DocumentRef, Sample, SourceInfo  # noqa: E402
from abstain_build.seeding import derive_seed  # noqa: E402
from abstain_build.transforms import NotApplicable, get_registry  # noqa: E402
from abstain_build.transforms.base import TransformContext  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
MMMU_NAMES = (
    "image_question_mismatch",
    "missing_context",
    "impossible_visual_task",
    "nonexistent_reference",
    "multiple_correct_answers",
    "ambiguous_reference",
    "contradictory_premise",
)


def changed_window(original: str, rewrite: str, width: int = 200) -> tuple[str, str]:
    """Both texts from a little before their first difference, so long questions show the edit."""
    same = 0
    while same < min(len(original), len(rewrite)) and original[same] == rewrite[same]:
        same += 1
    start = max(0, same - 60)
    lead = "..." if start else ""
    return lead + original[start : start + width], lead + rewrite[start : start + width]


def mmmu_samples(limit: int | None) -> list[Sample]:
    info = SourceInfo("mmmu-pro", "jsonl", "questions_mmmu_pro.jsonl", 0)
    out = []
    path = SHARED / "mmmu" / "questions_mmmu_pro.jsonl"
    for index, line in enumerate(path.read_text().splitlines()):
        record = json.loads(line)
        options = record.get("options") or "[]"
        parsed = ast.literal_eval(options) if isinstance(options, str) else options
        out.append(
            Sample(
                id=record["id"],
                source=info,
                question=record["question"],
                answer=record["answer"],
                options=tuple(str(o) for o in parsed),
            )
        )
        if limit is not None and index + 1 >= limit:
            break
    return out


def mmlbd_samples(limit: int | None) -> list[Sample]:
    info = SourceInfo("mmlongbench-doc", "json", "all_questions.json", 0)
    records = json.loads((SHARED / "mmlongbench-doc" / "all_questions.json").read_text())
    out = []
    for index, record in enumerate(records):
        if record["answer"] == "Not answerable":
            continue
        out.append(
            Sample(
                id=f"q{index}",
                source=info,
                question=record["question"],
                answer=str(record["answer"]),
                answer_format=record.get("answer_format"),
                document=DocumentRef(path=Path("/nonexistent.pdf"), doc_id=record["doc_id"]),
            )
        )
        if limit is not None and len(out) >= limit:
            break
    return out


class NoDocument(SampleInputs):
    """The questions file has no documents: evidence text is empty."""

    def page_texts(self) -> tuple[str, ...]:
        return ()


def run(name: str, samples: list[Sample], seed: int) -> dict[str, object]:
    transform = get_registry().get(name)()
    outputs: list[str] = []
    templates: Counter[str] = Counter()
    appended: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    examples: list[tuple[str, str, str]] = []
    seconds: list[float] = []
    for sample in samples:
        inputs = NoDocument(sample)
        rng_seed = derive_seed(seed, sample.id, name)
        ctx = TransformContext(
            sample=sample, inputs=inputs, rng=np.random.default_rng(rng_seed), seed=rng_seed
        )
        started = time.perf_counter()
        try:
            plan = transform.plan(ctx)
        except NotApplicable as reason:
            seconds.append(time.perf_counter() - started)
            text = str(reason)
            failures[text.split(":")[0] if "gates" not in text else _first_gate(text)] += 1
            continue
        seconds.append(time.perf_counter() - started)
        outputs.append(plan.question or "")
        templates[plan.rewrite.template] += 1
        tail = (plan.question or "")[len(sample.question.rstrip()) :].strip()
        if (plan.question or "").startswith(sample.question.rstrip()) and tail:
            appended[tail] += 1
        examples.append((sample.question, plan.question or "", plan.rewrite.template))
    n = len(samples)
    repeated = sum(count for count in appended.values() if count > 1)
    return {
        "questions": n,
        "rewritten": len(outputs),
        "pass_rate": len(outputs) / n if n else 0.0,
        "distinct_outputs": len(set(outputs)),
        "templates_used": len(templates),
        "appended_total": sum(appended.values()),
        "appended_repeated_share": repeated / max(1, len(outputs)),
        "ms_median": 1000 * float(np.median(seconds[1:] or seconds)),
        "ms_first": 1000 * seconds[0] if seconds else 0.0,
        "failures": failures.most_common(5),
        "top_templates": templates.most_common(5),
        "examples": examples,
    }


def _first_gate(text: str) -> str:
    after = text.split("attempts: ", 1)[-1]
    return after.split(":")[0].strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--examples", type=int, default=5)
    parser.add_argument("--transforms", default=None, help="comma-separated subset")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if not SHARED.is_dir():
        sys.exit(f"{SHARED} is absent: this bench needs the shared MMMU / MMLongBench-Doc data")
    chosen = set(args.transforms.split(",")) if args.transforms else None
    mmmu = mmmu_samples(args.limit)
    mmlbd = mmlbd_samples(args.limit)
    plans = [(name, mmmu) for name in MMMU_NAMES] + [("contradictory_caption", mmlbd)]
    results: dict[str, dict[str, object]] = {}
    rng = np.random.default_rng(0)
    for name, samples in plans:
        if chosen and name not in chosen:
            continue
        results[name] = result = run(name, samples, args.seed)
        print(
            f"{name:<26} {result['rewritten']:>5}/{result['questions']:<5}"
            f" pass {result['pass_rate']:6.1%}  distinct {result['distinct_outputs']:>5}"
            f"  templates {result['templates_used']:>2}"
            f"  appended repeated {result['appended_repeated_share']:5.1%}"
            f"  {result['ms_median']:.1f} ms/rewrite (first {result['ms_first']:.0f} ms)"
        )
        for reason, count in result["failures"]:
            print(f"    not rewritten x{count}: {reason}")
        examples = result["examples"]
        for i in rng.permutation(len(examples))[: args.examples]:
            original, rewrite, template = examples[int(i)]
            old, new = changed_window(original, rewrite)
            print(f"    [{template}]\n      - {old}\n      + {new}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))


if __name__ == "__main__":
    main()
