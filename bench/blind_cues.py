"""Precision and recall of the offline blind check on hand-labelled shared questions.

``bench/data/blind_labels.jsonl`` labels 171 questions: 150 MMMU-Pro questions of
``../shared/data/mmmu/questions_mmmu_pro.jsonl`` (``numpy.random.default_rng(17)``, 150
drawn without replacement) and the 21 shared MMMU/AI2D items of
``../shared/data/mmmu/samples.jsonl``. Each was labelled before any cue was written, by
answering it from its text alone (question and options, no image) and then checking the
key: ``blind_answerable`` is true when that blind answer was right. The cues were tuned on
the even rows and are reported here on both halves; the odd rows are the held-out figure.

Later batches (``batch``) are further MMMU-Pro questions read the same way, none of them
among the first 171. ``second-reading`` (40: 20 that the cues flagged and 20 that they did
not, drawn with ``default_rng(41)``) checked the cues on unseen questions: ``self_contained``
fired on questions that point into their image in ways the first half never showed (a
form's field, a "circle" or "choose" task, options about "this case"), and it was narrowed
on that batch, which is therefore no longer held out.

Each part reports the whole check and each cue on its own (how often it fires, how often
rightly, its precision and its recall of the part's blind-answerable questions), with the
check's figures without that cue.
``--scan`` counts how often each cue fires on every MMMU-Pro and shared MMMU question,
labelled or not, and ``--examples N`` lists N firings of each cue named by ``--cue``.

    python bench/blind_cues.py [--shared ../shared/data] [--show]
    python bench/blind_cues.py --scan --cue textbook_problem --cue sum_of_parts --examples 10
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.blind import CUES, blind_cues  # noqa: E402
from abstain_build.model import Sample, SourceInfo  # noqa: E402

LABELS = ROOT / "bench" / "data" / "blind_labels.jsonl"


def _options(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = ast.literal_eval(value) if value.strip().startswith("[") else [value]
    return tuple(str(o) for o in value or ())


def load_questions(shared: Path) -> dict[str, Sample]:
    """The labelled questions as samples (text only: the cues never read images)."""
    samples: dict[str, Sample] = {}
    pro = shared / "mmmu" / "questions_mmmu_pro.jsonl"
    for index, line in enumerate(pro.read_text().splitlines()):
        row = json.loads(line)
        samples[row["id"]] = _sample(row["id"], row, pro.name, index)
    items = shared / "mmmu" / "samples.jsonl"
    for index, line in enumerate(items.read_text().splitlines()):
        row = json.loads(line)
        name = Path(row["image_1"]).stem
        samples[name] = _sample(name, row, items.name, index)
    return samples


def _sample(sample_id: str, row: dict, file: str, index: int) -> Sample:
    return Sample(
        id=sample_id,
        source=SourceInfo("bench", "bench", file, index),
        question=row["question"],
        answer=str(row["answer"]),
        options=_options(row["options"]),
    )


def fired_cues(sample: Sample) -> dict[str, str]:
    """The cues that fire on ``sample``, by name, with what each saw."""
    return dict(found.split(": ", 1) for found in blind_cues(sample))


def measure(
    rows: list[dict],
    fired: dict[str, dict[str, str]],
    show: bool,
    drop: frozenset[str] = frozenset(),
) -> dict[str, float]:
    """The check's figures on ``rows``, as if the cues in ``drop`` did not exist."""
    tp = fp = fn = tn = 0
    for row in rows:
        cues = [name for name in fired[row["id"]] if name not in drop]
        flagged, truth = bool(cues), row["blind_answerable"]
        tp += flagged and truth
        fp += flagged and not truth
        fn += truth and not flagged
        tn += not (flagged or truth)
        if show and flagged != truth:
            print(f"  {'FP' if flagged else 'FN'} {row['id']}: {fired[row['id']]}")
    return figures(tp, fp, tp + fn, len(rows))


def figures(tp: int, fp: int, positives: int, n: int) -> dict[str, float]:
    return {
        "n": n,
        "positives": positives,
        "flagged": tp + fp,
        "correct": tp,
        "precision": round(tp / (tp + fp), 3) if tp + fp else float("nan"),
        "recall": round(tp / positives, 3) if positives else float("nan"),
    }


def per_cue(rows: list[dict], fired: dict[str, dict[str, str]]) -> dict[str, dict[str, float]]:
    """Each cue on its own: firings, precision, and recall of all blind-answerable rows."""
    positives = sum(row["blind_answerable"] for row in rows)
    report = {}
    for cue in CUES:
        if cue.kind != "image":
            continue
        hits = [row for row in rows if cue.name in fired[row["id"]]]
        tp = sum(row["blind_answerable"] for row in hits)
        report[cue.name] = figures(tp, len(hits) - tp, positives, len(rows))
    return report


def scan(samples: dict[str, Sample], names: list[str], examples: int) -> None:
    """How often each cue fires on every question, by file, and examples of ``names``."""
    fired = {key: fired_cues(sample) for key, sample in samples.items()}
    for source in dict.fromkeys(sample.source.file for sample in samples.values()):
        keys = [key for key, sample in samples.items() if sample.source.file == source]
        print(source, len(keys), "questions; any cue:", sum(bool(fired[k]) for k in keys))
        for cue in CUES:
            count = sum(cue.name in fired[k] for k in keys)
            print(f"  {cue.name}: {count} ({count / len(keys):.1%})")
    for name in names:
        hits = [key for key in samples if name in fired[key]]
        print(f"\n{name}: {len(hits)} firings; first {min(examples, len(hits))}")
        for key in hits[:examples]:
            sample = samples[key]
            text = " ".join(sample.question.split())
            print(f"- {key} (gold {sample.answer}): {text[:220]}")
            print(f"    options: {list(sample.options)[:10]}")
            print(f"    saw: {fired[key][name]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--show", action="store_true", help="list the disagreements")
    parser.add_argument("--scan", action="store_true", help="fire the cues on every question")
    parser.add_argument("--cue", action="append", default=[], help="a cue to list examples of")
    parser.add_argument("--examples", type=int, default=10)
    args = parser.parse_args()
    samples = load_questions(args.shared)
    if args.scan:
        scan(samples, args.cue, args.examples)
        return
    rows = [json.loads(line) for line in LABELS.read_text().splitlines()]
    fired = {row["id"]: fired_cues(samples[row["id"]]) for row in rows}
    first = [row for row in rows if "batch" not in row]
    parts = [("tuned on (even rows)", first[0::2]), ("held out (odd rows)", first[1::2])]
    for batch in dict.fromkeys(row["batch"] for row in rows if "batch" in row):
        parts.append((f"batch {batch}", [row for row in rows if row.get("batch") == batch]))
    parts.append(("all", rows))
    for name, part in parts:
        print(name, measure(part, fired, args.show and name != "all"))
        for cue, report in per_cue(part, fired).items():
            without = measure(part, fired, False, frozenset({cue}))
            print(
                f"  {cue:<16} fires {report['flagged']:>2}, right {report['correct']:>2},"
                f" precision {report['precision']:.3f}, recall {report['recall']:.3f};"
                f" check without it: precision {without['precision']:.3f},"
                f" recall {without['recall']:.3f}"
            )


if __name__ == "__main__":
    main()
