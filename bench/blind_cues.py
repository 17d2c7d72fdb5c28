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

    python bench/blind_cues.py [--shared ../shared/data] [--show]
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.blind import blind_cues  # noqa: E402
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
    for line in pro.read_text().splitlines():
        row = json.loads(line)
        samples[row["id"]] = _sample(row["id"], row)
    for line in (shared / "mmmu" / "samples.jsonl").read_text().splitlines():
        row = json.loads(line)
        name = Path(row["image_1"]).stem
        samples[name] = _sample(name, row)
    return samples


def _sample(sample_id: str, row: dict) -> Sample:
    return Sample(
        id=sample_id,
        source=SourceInfo("bench", "bench", "labels", 0),
        question=row["question"],
        answer=str(row["answer"]),
        options=_options(row["options"]),
    )


def measure(rows: list[dict], samples: dict[str, Sample], show: bool) -> dict[str, float]:
    tp = fp = fn = tn = 0
    for row in rows:
        cues = blind_cues(samples[row["id"]])
        flagged, truth = bool(cues), row["blind_answerable"]
        tp += flagged and truth
        fp += flagged and not truth
        fn += truth and not flagged
        tn += not (flagged or truth)
        if show and flagged != truth:
            print(f"  {'FP' if flagged else 'FN'} {row['id']}: {cues}")
    return {
        "n": len(rows),
        "positives": tp + fn,
        "flagged": tp + fp,
        "precision": round(tp / (tp + fp), 3) if tp + fp else float("nan"),
        "recall": round(tp / (tp + fn), 3) if tp + fn else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--show", action="store_true", help="list the disagreements")
    args = parser.parse_args()
    rows = [json.loads(line) for line in LABELS.read_text().splitlines()]
    samples = load_questions(args.shared)
    first = [row for row in rows if "batch" not in row]
    parts = [("tuned on (even rows)", first[0::2]), ("held out (odd rows)", first[1::2])]
    for batch in dict.fromkeys(row["batch"] for row in rows if "batch" in row):
        parts.append((f"batch {batch}", [row for row in rows if row.get("batch") == batch]))
    for name, part in parts:
        print(name, measure(part, samples, args.show))
    print("all", measure(rows, samples, False))


if __name__ == "__main__":
    main()
