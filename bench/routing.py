"""Routing on real data: the class mix, the routed family mix and its spread, fallbacks.

Two measurements:

1. **Questions only** (no images or documents): the 1,730 MMMU-Pro questions and the 859
   answerable MMLongBench-Doc questions are classified and routed with every built-in
   transform as a candidate. Without documents the evidence features are unknown (no
   table, figure or number is seen), so the transforms that need them are ruled out:
   this shows what the question alone decides.
2. **Real builds**: ``abstain-build transform`` with routing on the shared sources with
   their documents and images (MMLongBench-Doc: 10 PDFs, 89 answerable questions; MMMU:
   21 items), reporting the routed family mix from the manifest, how often a fallback
   took over, and the time.

    python bench/routing.py [--skip-builds] [--workers 2] [--json PATH]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.config import BuildConfig  # noqa: E402
from abstain_build.model import DocumentRef, ImageRef, Sample, SourceInfo  # noqa: E402
from abstain_build.pipeline.build import build  # noqa: E402
from abstain_build.pipeline.routing_pass import family_distribution  # noqa: E402
from abstain_build.routing.features import question_features  # noqa: E402
from abstain_build.routing.route import Balancer, score_sample  # noqa: E402
from abstain_build.transforms import get_registry  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
INFO = SourceInfo("bench", "bench", "bench", 0)


def mmmu_pro() -> list[Sample]:
    out = []
    path = SHARED / "mmmu" / "questions_mmmu_pro.jsonl"
    for line in path.read_text().splitlines():
        record = json.loads(line)
        options = [str(o) for o in ast.literal_eval(record["options"] or "[]")]
        text = record["question"] + " ".join(options)
        n = len(set(re.findall(r"<image \d+>", text))) or 1
        images = tuple(ImageRef(f"image_{i + 1}", data=b"-") for i in range(n))
        out.append(
            Sample(
                record["id"],
                INFO,
                record["question"],
                record["answer"],
                options=tuple(options),
                images=images,
            )
        )
    return out


def mmlbd_questions() -> list[Sample]:
    records = json.loads((SHARED / "mmlongbench-doc" / "all_questions.json").read_text())
    document = DocumentRef(Path("/absent.pdf"), "absent")
    return [
        Sample(
            f"q{i}",
            INFO,
            r["question"],
            str(r["answer"]),
            r.get("answer_format"),
            document=document,
            evidence_pages=(1,),
        )
        for i, r in enumerate(records)
        if r["answer"] != "Not answerable"
    ]


def route_questions(name: str, samples: list[Sample]) -> dict[str, object]:
    registry = get_registry()
    candidates = [registry.get(n)() for n in registry.default_names()]
    balancer = Balancer(terminal=("full_page_blur",))
    classes: Counter[str] = Counter()
    decisions = []
    relaxed = none = 0
    started = time.perf_counter()
    for sample in samples:
        features = question_features(sample)
        classes[features.dependency or features.evidence_type or "?"] += 1
        scored = score_sample(sample, candidates, features)
        relaxed += scored.relaxed
        none += not scored.eligible
        decisions.append(balancer.choose(scored))
    seconds = time.perf_counter() - started
    mix = family_distribution(decisions)
    print(f"\n== {name}: {len(samples)} questions, routed in {seconds:.1f} s")
    print(
        "  classes: "
        + ", ".join(f"{k} {v} ({v / len(samples):.1%})" for k, v in classes.most_common())
    )
    for axis, data in mix.items():
        print(f"  families ({axis}), spread {data['spread']:.3f}:")
        for family, count in data["counts"].items():
            print(f"    {family:<28} {count:>5}  {data['shares'][family]:.1%}")
    chosen = Counter(d.chain[0] for d in decisions if d.chain)
    print("  transforms: " + ", ".join(f"{k} {v}" for k, v in chosen.most_common()))
    print(f"  rewrite rule relaxed (nothing else eligible): {relaxed}; nothing eligible: {none}")
    return {
        "classes": dict(classes),
        "families": mix,
        "transforms": dict(chosen),
        "relaxed": relaxed,
        "none_eligible": none,
        "seconds": round(seconds, 2),
    }


def routed_build(name: str, source: Path, workers: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        result = build(
            BuildConfig(source=str(source), out=str(Path(tmp) / "out"), seed=7, workers=workers)
        )
        seconds = time.perf_counter() - started
        rows = [json.loads(line) for line in (Path(tmp) / "out" / "data.jsonl").open()]
        errors = (Path(tmp) / "out" / "errors.jsonl").read_text().splitlines()
    perturbed = [r for r in rows if r["transform"]]
    fallbacks = [r for r in perturbed if r["routing"]["attempts"]]
    by_transform = Counter(r["transform"]["name"] for r in perturbed)
    mix = result.manifest["routing"]["families"]
    print(
        f"\n== routed build of {name}: {len(perturbed)} items from"
        f" {result.counts.records_in} records in {seconds:.1f} s ({workers} workers),"
        f" {len(errors)} error records"
    )
    for axis, data in mix.items():
        print(
            f"  planned families ({axis}), spread {data['spread']:.3f}: "
            + ", ".join(f"{k} {v}" for k, v in data["counts"].items())
        )
    print("  built: " + ", ".join(f"{k} {v}" for k, v in by_transform.most_common()))
    print(
        f"  a fallback took over on {len(fallbacks)} samples: "
        + "; ".join(
            f"{a['transform']} ({a['reason'][:60]})"
            for r in fallbacks[:5]
            for a in r["routing"]["attempts"][:1]
        )
    )
    return {
        "items": len(perturbed),
        "families": mix,
        "built": dict(by_transform),
        "fallbacks": len(fallbacks),
        "errors": len(errors),
        "seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip-builds", action="store_true")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if not SHARED.is_dir():
        sys.exit(f"{SHARED} is absent: nothing to measure")
    report = {
        "mmmu_pro_questions": route_questions("MMMU-Pro questions", mmmu_pro()),
        "mmlongbench_questions": route_questions("MMLongBench-Doc questions", mmlbd_questions()),
    }
    if not args.skip_builds:
        report["mmlongbench_build"] = routed_build(
            "../shared/data/mmlongbench-doc", SHARED / "mmlongbench-doc", args.workers
        )
        report["mmmu_build"] = routed_build("../shared/data/mmmu", SHARED / "mmmu", args.workers)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
