"""How often the offline reference judges say ANSWERABLE, per transform, and what it costs.

Every registered transform of a sample's axis is applied (seed 7) to each answerable
sample of the shipped fixtures and, when present, of ../shared/data; both reference
judges (``offline:leak``, ``offline:retention``) judge each result. Two controls per
sample: the original itself as the "perturbed" item (identity; both judges should say
ANSWERABLE when the original shows a readable answer or evidence) and a blackout (every
image black; for documents every evidence page hidden), which both should call
UNANSWERABLE.

    python bench/judges_offline.py [--sources a,b] [--limit N] [--json PATH]

Printed per transform: items judged, the share each judge calls ANSWERABLE, the share
both do (the consensus would reject those) and either does, the median score, and the
mean milliseconds per item for each judge (OCR cached by content, as in a run: the
original's OCR is paid once per sample).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.loaders import open_source  # noqa: E402
from abstain_build.media.images import decode_image, encode_png  # noqa: E402
from abstain_build.media.inputs import SampleInputs  # noqa: E402
from abstain_build.model import Sample  # noqa: E402
from abstain_build.pipeline.apply import run_transform  # noqa: E402
from abstain_build.qc.items import judge_item, output_item  # noqa: E402
from abstain_build.qc.judges import ANSWERABLE, get_judge  # noqa: E402
from abstain_build.transforms import NotApplicable, get_registry  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
FIXTURE_SOURCES = (ROOT / "fixtures" / "mmmu", ROOT / "fixtures" / "mmlongbench-doc")
SHARED_SOURCES = (SHARED / "mmmu", SHARED / "mmlongbench-doc")
JUDGES = ("offline:leak", "offline:retention")
IDENTITY, BLACKOUT = "(identity)", "(blackout)"


def default_sources() -> list[Path]:
    sources = list(FIXTURE_SOURCES)
    if SHARED.is_dir():
        sources += [s for s in SHARED_SOURCES if s.is_dir()]
    else:
        print(f"{SHARED} is absent: fixtures only")
    return sources


def blackout(sample: Sample, inputs: SampleInputs, seed: int) -> tuple[list[bytes] | None, Any]:
    """Every image black, or (documents) every evidence page hidden: nothing left to read."""
    if sample.document is None:
        black = [encode_png(np.zeros_like(decode_image(b, "image"))) for b in inputs.image_bytes()]
        return black, None
    hide = get_registry().get("hide_evidence_page")(hide_fraction=1.0)
    return None, run_transform(hide, sample, inputs, seed)


def run(sources: list[Path], limit: int | None, seed: int) -> list[dict[str, Any]]:
    registry = get_registry()
    judges = {name: get_judge(name) for name in JUDGES}
    rows: list[dict[str, Any]] = []
    for source in sources:
        group = "shared" if SHARED.resolve() in source.resolve().parents else "fixtures"
        count = 0
        for sample in open_source(str(source)):
            if not isinstance(sample, Sample):
                continue
            if limit is not None and count >= limit:
                break
            count += 1
            inputs = SampleInputs(sample)
            try:
                inputs.validate()
            except Exception as error:
                print(f"  {sample.id}: skipped ({error})")
                continue
            names = [n for n in registry.names() if registry.get(n).axis == sample.axis]
            cases: list[tuple[str, Any]] = [(IDENTITY, None), (BLACKOUT, None)]
            cases += [(name, None) for name in names]
            for name, _ in cases:
                if name == IDENTITY:
                    item = judge_item(
                        sample,
                        inputs,
                        item_id=f"{sample.id}/identity",
                        question=sample.question,
                        images=None,
                        pdf=None,
                        transform={},
                    )
                elif name == BLACKOUT:
                    images, output = blackout(sample, inputs, seed)
                    item = judge_item(
                        sample,
                        inputs,
                        item_id=f"{sample.id}/blackout",
                        question=sample.question,
                        images=images if output is None else output.images,
                        pdf=None if output is None else output.pdf,
                        transform={} if output is None else output.record.to_json(),
                    )
                else:
                    try:
                        output = run_transform(registry.get(name)(), sample, inputs, seed)
                    except NotApplicable:
                        continue
                    except Exception as error:  # a transform bug is not this bench's subject
                        print(f"  {sample.id} {name}: {type(error).__name__}: {error}")
                        continue
                    item = output_item(sample, inputs, name, output)
                row: dict[str, Any] = {
                    "group": group,
                    "axis": sample.axis,
                    "sample": sample.id,
                    "transform": name,
                }
                for judge_name, judge in judges.items():
                    started = time.perf_counter()
                    verdict = judge.judge(item)
                    row[judge_name] = {
                        **verdict.to_json(),
                        "ms": 1000 * (time.perf_counter() - started),
                    }
                rows.append(row)
            inputs.close()
            print(f"  {group} {sample.id}: {len(cases)} items", flush=True)
    return rows


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}" if values else "-"


def report(rows: list[dict[str, Any]]) -> None:
    by_key: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_key[(row["group"], row["axis"], row["transform"])].append(row)
    header = (
        f"{'transform':<31}{'n':>4}{'leak A':>8}{'ret A':>8}{'both':>7}{'either':>8}"
        f"{'leak s':>8}{'ret s':>7}{'leak ms':>9}{'ret ms':>8}{'err':>5}"
    )
    for group in ("fixtures", "shared"):
        for axis in ("modality_dependency", "evidence_sufficiency"):
            keys = sorted(k for k in by_key if k[0] == group and k[1] == axis)
            if not keys:
                continue
            print(f"\n{group} / {axis}\n{header}")
            totals: list[dict[str, Any]] = []
            for key in keys:
                items = by_key[key]
                if key[2] not in (IDENTITY, BLACKOUT):
                    totals += items
                print(_line(key[2], items))
            print(_line("all transforms", totals))


def _line(name: str, items: list[dict[str, Any]]) -> str:
    n = len(items)
    if not n:
        return f"{name:<31}{0:>4}"
    leak = [r["offline:leak"] for r in items]
    ret = [r["offline:retention"] for r in items]
    a_leak = sum(v["verdict"] == ANSWERABLE for v in leak)
    a_ret = sum(v["verdict"] == ANSWERABLE for v in ret)
    both = sum(a["verdict"] == b["verdict"] == ANSWERABLE for a, b in zip(leak, ret, strict=True))
    either = sum(ANSWERABLE in (a["verdict"], b["verdict"]) for a, b in zip(leak, ret, strict=True))
    errors = sum(v["verdict"] == "ERROR" for v in leak + ret)
    return (
        f"{name:<31}{n:>4}{a_leak / n:>8.0%}{a_ret / n:>8.0%}{both / n:>7.0%}{either / n:>8.0%}"
        f"{_median([v['score'] for v in leak if v['score'] is not None]):>8}"
        f"{_median([v['score'] for v in ret if v['score'] is not None]):>7}"
        f"{statistics.fmean(v['ms'] for v in leak):>9.0f}"
        f"{statistics.fmean(v['ms'] for v in ret):>8.0f}{errors:>5}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", default=None, help="comma-separated dataset folders")
    parser.add_argument("--limit", type=int, default=None, help="samples per source")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None, help="write every verdict here")
    args = parser.parse_args()
    sources = (
        [Path(s) for s in args.sources.split(",") if s.strip()]
        if args.sources
        else default_sources()
    )
    started = time.perf_counter()
    rows = run(sources, args.limit, args.seed)
    report(rows)
    print(
        f"\n{len(rows)} items in {time.perf_counter() - started:.0f} s. 'leak A'/'ret A': share"
        " judged ANSWERABLE; 'both': both judges (the consensus rejects); 'either': at least"
        " one; 'leak s'/'ret s': median score; ms: mean per item and judge."
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
