"""How fast is `abstain-build eval`, next to just reading its two input files?

A synthetic dataset is made by repeating the shipped fixture records (built in a temporary
folder with `--qc none`) under new ids, with predictions in mixed styles: chain of thought
ending in "the answer is ...", hedged abstentions, and numbers in a sentence, each with a
confidence. Measured in one run, best of three:

* reference: read data.jsonl and the predictions with json.loads (what any scorer must do);
* scoring: ``abstain_build.scoring.score`` (abstention, grading, cells), then ``to_json``
  (all three breakdowns, pairs and the confidence sweep).

Printed: items/s of each and the ratio scoring / reference (how many times the reading
cost the scoring adds up to).

    python bench/eval.py [--items 20000]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.scoring import score  # noqa: E402

STYLES = (
    "Let me look at the figure carefully. The values are shown in the chart."
    " Therefore, the answer is {gold}.",
    "I cannot determine this from the image because it is too dark.",
    "Looking at page 3, I think it is 42 million.",
    "It is hard to be sure; the answer would be {gold}.",
    "Not enough information is given to answer.",
)


def built_records(folder: Path) -> list[dict]:
    records = []
    for source in ("mmmu", "mmlongbench-doc"):
        out = folder / source
        subprocess.run(
            [sys.executable, "-m", "abstain_build", "transform", str(ROOT / "fixtures" / source),
             "-o", str(out), "--seed", "7", "--qc", "none"],
            check=True, capture_output=True,
        )  # fmt: skip
        records += [json.loads(line) for line in (out / "data.jsonl").open()]
    return records


def synthesise(records: list[dict], items: int, folder: Path) -> tuple[Path, Path]:
    rng = random.Random(0)
    data, predictions = folder / "big" / "data.jsonl", folder / "predictions.jsonl"
    data.parent.mkdir()
    with data.open("w") as out, predictions.open("w") as answers:
        for copy in range(items // len(records) + 1):
            for record in records:
                record = dict(
                    record, id=f"{copy}-{record['id']}", group_id=f"{copy}-{record['group_id']}"
                )
                out.write(json.dumps(record) + "\n")
                response = rng.choice(STYLES).format(gold=record["original_answer"])
                row = {"id": record["id"], "response": response, "confidence": rng.randint(1, 5)}
                answers.write(json.dumps(row) + "\n")
    return data.parent, predictions


def best_of(function, rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        dataset, predictions = synthesise(built_records(folder), args.items, folder)
        n = sum(1 for _ in (dataset / "data.jsonl").open())

        def reference() -> None:
            for path in (dataset / "data.jsonl", predictions):
                with path.open() as handle:
                    for line in handle:
                        json.loads(line)

        def scoring() -> None:
            score(dataset, predictions).to_json()

        read, scored = best_of(reference), best_of(scoring)
    print(f"{n} items (fixture records repeated), predictions in {len(STYLES)} styles")
    print(f"{'step':<34} {'seconds':>8} {'items/s':>9}")
    print(f"{'reference: json.loads of both files':<34} {read:8.2f} {n / read:9.0f}")
    print(f"{'score() + to_json()':<34} {scored:8.2f} {n / scored:9.0f}")
    print(f"scoring / reference: {scored / read:.1f} x")


if __name__ == "__main__":
    main()
