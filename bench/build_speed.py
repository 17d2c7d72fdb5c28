"""A whole build at 1 and 2 workers: wall time, samples per minute, and whether both workers
stay busy.

Runs ``abstain-build transform`` (a fresh output folder each time, default routing unless
``--no-routing``) on SOURCE, or on the samples of the named documents only (``--docs``:
a 10-K, say), first with one worker, then with two, and reads each run's manifest:

* wall seconds and samples per minute;
* the speed-up of two workers over one (the reference, measured in the same run; target
  at least 1.5);
* worker utilisation, two ways: the seconds the samples' steps and their routing took,
  summed, over wall x workers (``busy``; start-up, loading and writing count as idle, so
  it is a floor), and the CPU seconds of the whole process tree over wall x workers
  (``cpu``); target at least 0.9 at two workers;
* peak memory: the largest resident set of any process of the run, a worker's as a rule
  (target at most 1.5 GB);
* the floor, measured after the builds in this process: every page of every source
  document read once (a render at the map's resolution, the text layer, one OCR pass where
  there is no text layer or there are pictures: ``page_reading.floor_seconds``), and every
  page a counterpart ships edited read once with an OCR pass (the edit is in pixels); the
  one-worker build's wall time over it (target: within 1.5x).

``--brochure N`` builds instead a generated brochure of N photo spreads
(``fixturegen.spreads``, the pages that were slowest to read) with four questions about
its captions: the per-sample seconds there is the figure to watch (target: under 90 s).

    python bench/build_speed.py [SOURCE] [--docs NAME,NAME] [--brochure N] [--limit N]
                                [--no-routing] [--transforms a,b] [--seed S] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
from pathlib import Path

import pymupdf
from bench_memory import peak_kb_of  # sibling scripts: bench/ is on sys.path
from page_reading import floor_seconds

from abstain_build.evidence.reading import figure_boxes
from abstain_build.textregions.pages import has_usable_text_layer

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "mmlongbench-doc"
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "mmlongbench-doc"


def subset(source: Path, docs: list[str], folder: Path) -> Path:
    """An MMLongBench-Doc folder holding only the samples of ``docs``."""
    folder.mkdir(parents=True)
    samples = json.loads((source / "samples.json").read_text(encoding="utf-8"))
    kept = [s for s in samples if s["doc_id"] in docs]
    if not kept:
        raise SystemExit(f"no sample of {docs} in {source}")
    (folder / "samples.json").write_text(json.dumps(kept), encoding="utf-8")
    (folder / "documents").mkdir()
    for doc in docs:  # copied: a link out of the dataset's folder is refused, rightly
        shutil.copyfile(source / "documents" / doc, folder / "documents" / doc)
    return folder


def brochure(pages: int, folder: Path) -> Path:
    """An MMLongBench-Doc folder: the generated brochure and questions on its captions."""
    from abstain_build.fixturegen.spreads import PLACES, photo_spread_pdf

    (folder / "documents").mkdir(parents=True)
    (folder / "documents" / "brochure.pdf").write_bytes(photo_spread_pdf(pages))
    samples = [
        {
            "doc_id": "brochure.pdf",
            "doc_type": "Brochure",
            "question": f"Which town's market day is pictured on page {n}?",
            "answer": PLACES[(n - 1) % len(PLACES)],
            "evidence_pages": f"[{n}]",
            "evidence_sources": "['Figure']",
            "answer_format": "Str",
        }
        for n in range(1, min(pages, 4) + 1)
    ]
    (folder / "samples.json").write_text(json.dumps(samples), encoding="utf-8")
    return folder


def build(
    source: Path, out: Path, workers: int, args: argparse.Namespace, executor: str = "local"
) -> dict:
    command = [
        sys.executable,
        "-m",
        "abstain_build",
        "transform",
        str(source),
        "--out",
        str(out),
        "--workers",
        str(workers),
        "--seed",
        str(args.seed),
        "--quiet",
        "--executor",
        executor,
    ]
    if args.limit:
        command += ["--limit", str(args.limit)]
    if args.no_routing:
        command.append("--no-routing")
    if args.transforms:
        command += ["--transforms", args.transforms]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak_kb = peak_kb_of(command)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    timings = manifest["timings"]
    routing = manifest.get("routing", {}).get("seconds_this_run", 0.0)
    busy = sum(timings["seconds_by_step"].values()) + routing
    wall = timings["wall_seconds"]
    return {
        "workers": workers,
        "executor": executor,
        "samples": timings["samples_this_run"],
        "wall": wall,
        "per_minute": 60 * timings["samples_this_run"] / wall if wall else 0.0,
        "utilisation": busy / (wall * workers) if wall else 0.0,
        "cpu": cpu / (wall * workers) if wall else 0.0,
        "peak_mb": peak_kb / 1024,
    }


def edited_pages(record: dict) -> set[int]:
    """The pages of a counterpart's shipped PDF its transform changed (1-based)."""
    edits = (record.get("transform") or {}).get("edits") or {}
    pages = {r["page"] for r in edits.get("regions", []) if r.get("page")}
    pages |= {t["page"] for t in edits.get("tokens", []) if t.get("page")}
    return pages | set(edits.get("pages_hidden") or [])


def floor(source: Path, out: Path) -> float:
    """The least a build of ``source`` reads: every page of every source document once (a
    render at the map's resolution, the text layer, and one OCR pass where the page has no
    usable text layer or holds pictures), and every page a counterpart ships edited once,
    always with an OCR pass: an edit is made in pixels (a mask, a blur, an erasure filled
    with the paper's colour), so what a model will see of it is read from the render."""

    def least(page: pymupdf.Page) -> float:
        return floor_seconds(page, not has_usable_text_layer(page) or bool(figure_boxes(page)))

    seconds = 0.0
    for pdf in sorted((source / "documents").glob("*.pdf")):
        with pymupdf.open(pdf) as document:
            for page in document:
                seconds += least(page)
    for line in (out / "data.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("answerable") or not record.get("document"):
            continue
        pages = edited_pages(record)
        if not pages:
            continue
        with pymupdf.open(out / record["document"]) as document:
            for number in sorted(pages):
                if 0 < number <= document.page_count:
                    seconds += floor_seconds(document[number - 1], True)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path)
    parser.add_argument("--docs", help="comma-separated doc_ids (MMLongBench-Doc sources)")
    parser.add_argument("--brochure", type=int, default=0, help="spreads (0: no brochure)")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--no-routing", action="store_true")
    parser.add_argument("--transforms")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    source = args.source or (SHARED if SHARED.is_dir() else FIXTURE)
    rows = []
    with tempfile.TemporaryDirectory(prefix="build-speed-") as temporary:
        root = Path(temporary)
        if args.brochure:
            source = brochure(args.brochure, root / "source")
        elif args.docs:
            source = subset(source, args.docs.split(","), root / "source")
        for workers in (1, 2):
            rows.append(build(source, root / f"out-{workers}", workers, args))
        least = floor(source, root / "out-1")
    print(f"source: {source if not args.docs else args.docs}")
    header = ("workers", "samples", "wall s", "per min", "s/sample", "busy", "cpu", "peak MB")
    print("{:>7} {:>7} {:>8} {:>8} {:>8} {:>6} {:>6} {:>8}".format(*header))
    for row in rows:
        each = row["wall"] / row["samples"] if row["samples"] else 0.0
        print(
            f"{row['workers']:>7} {row['samples']:>7} {row['wall']:>8.1f}"
            f" {row['per_minute']:>8.2f} {each:>8.1f} {row['utilisation']:>6.2f}"
            f" {row['cpu']:>6.2f} {row['peak_mb']:>8.0f}"
        )
    speedup = rows[0]["wall"] / rows[1]["wall"] if rows[1]["wall"] else 0.0
    print(f"two workers over one: {speedup:.2f}x (target 1.5x); busy at two: target 0.9")
    over = rows[0]["wall"] / least if least else 0.0
    print(
        f"floor (every source page and every edited page read once): {least:.1f} s;"
        f" one worker's build over it: {over:.2f}x (target 1.5x)"
    )
    if args.json:
        figures = {"rows": rows, "speedup": speedup, "floor": least, "over_floor": over}
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
