"""Is the gold number still readable after a number transform? Leak rates on real questions.

For every answerable MMLongBench-Doc question whose answer is numeric (Int, Float, or a
List with numeric items), each transform is run on the evidence pages and the leak check
(:func:`abstain_build.qc.leak.leak_check`) reads the result's text layer and OCR. A
question whose answer is never printed on its original evidence pages (a sum, a count, a
difference) cannot leak: it is counted as "not applicable", not as a success.

    python bench/leak_rates.py [SOURCE] [--transforms a,b] [--limit N] [--json PATH]

SOURCE defaults to ../shared/data/mmlongbench-doc when present, else the shipped fixture.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.loaders import open_source  # noqa: E402
from abstain_build.media.inputs import SampleInputs  # noqa: E402
from abstain_build.model import Sample  # noqa: E402
from abstain_build.pipeline.apply import run_transform  # noqa: E402
from abstain_build.qc.leak import answer_numbers, leak_check, read_evidence  # noqa: E402
from abstain_build.transforms import NotApplicable, get_registry  # noqa: E402

DEFAULT_TRANSFORMS = ("remove_numeric_tokens", "corrupt_numeric_tokens")
#: Transforms that keep every true value on the page on purpose (they make it ambiguous
#: which value is meant): for them a "leak" is expected and says nothing about success.
KEEP_VALUES = ("column_merge_ambiguity", "counterfactual_distractor_rows")
NUMERIC_FORMATS = ("int", "float", "list")


def default_source() -> str:
    shared = ROOT.parent / "shared" / "data" / "mmlongbench-doc"
    return str(shared if shared.is_dir() else ROOT / "fixtures" / "mmlongbench-doc")


def numeric_samples(source: str, limit: int | None) -> list[Sample]:
    samples = []
    for item in open_source(source):
        if not isinstance(item, Sample) or not item.evidence_pages:
            continue
        if (item.answer_format or "").lower() not in NUMERIC_FORMATS:
            continue
        if not answer_numbers(item.answer, item.answer_format):
            continue
        samples.append(item)
        if limit is not None and len(samples) >= limit:
            break
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", default=default_source())
    parser.add_argument("--transforms", default=",".join(DEFAULT_TRANSFORMS))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    registry = get_registry()
    names = [n.strip() for n in args.transforms.split(",") if n.strip()]
    samples = numeric_samples(args.source, args.limit)
    print(f"{len(samples)} answerable questions with a numeric answer in {args.source}")
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    leaks: dict[str, list[dict[str, object]]] = defaultdict(list)
    started = time.perf_counter()
    for sample in samples:
        inputs = SampleInputs(sample)
        try:
            inputs.validate()
        except Exception as error:  # a broken source record: not this check's business
            for name in names:
                counts[name]["bad input"] += 1
            print(f"  {sample.id}: skipped ({error})")
            continue
        pages = list(sample.evidence_pages)
        original = read_evidence(pages, inputs.evidence_renders(), inputs.document_bytes())
        for name in names:
            try:
                output = run_transform(registry.get(name)(), sample, inputs, args.seed)
            except NotApplicable as reason:
                counts[name]["transform n/a"] += 1
                leaks[name].append(
                    {"id": sample.id, "outcome": "transform n/a", "why": str(reason)}
                )
                continue
            perturbed = read_evidence(pages, output.images, output.pdf)
            report = leak_check(sample.answer, sample.answer_format, original, perturbed)
            if not report.applicable:
                counts[name]["check n/a"] += 1
                outcome = "check n/a"
            else:
                outcome = "leaked" if report.leaked else "gone"
                counts[name][outcome] += 1
            leaks[name].append(
                {"id": sample.id, "answer": sample.answer, "outcome": outcome, "why": report.reason}
            )
        inputs.close()
    seconds = time.perf_counter() - started

    print(
        f"\n{'transform':<26}{'checked':>8}{'leaked':>8}{'rate':>8}{'check n/a':>11}"
        f"{'transform n/a':>15}"
    )
    for name in names:
        c = counts[name]
        checked = c["gone"] + c["leaked"]
        rate = f"{c['leaked'] / checked:.1%}" if checked else "-"
        print(
            f"{name:<26}{checked:>8}{c['leaked']:>8}{rate:>8}{c['check n/a']:>11}"
            f"{c['transform n/a']:>15}"
        )
    print(
        f"\n{seconds:.1f} s. 'check n/a': the answer is not printed on the original evidence"
        " pages (computed or counted), so nothing can leak."
    )
    kept = [name for name in names if name in KEEP_VALUES]
    if kept:
        print(
            f"{', '.join(kept)}: keep the true values by design (they make attribution"
            " ambiguous), so the gold number is expected to stay readable."
        )
    for name in names:
        leaked = [entry for entry in leaks[name] if entry["outcome"] == "leaked"]
        for entry in leaked:
            print(f"  {name} leaked {entry['id']} (answer {entry['answer']!r}): {entry['why']}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"counts": {k: dict(v) for k, v in counts.items()}, "items": leaks}, indent=1
            )
        )


if __name__ == "__main__":
    main()
