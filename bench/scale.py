"""Scale-out: the same build in one process, in two local workers and on Ray, Ray's cost
per task, and what a large build would take on a cluster.

Builds SOURCE (default: the shared MMLongBench-Doc set, else the fixture) three times in
fresh folders, with the same seed: ``--workers 1``, ``--workers 2`` and ``--executor ray
--workers 2`` (a local Ray started by the build). For each: wall seconds, samples per
minute and utilisation (``build_speed.build``), and whether ``data.jsonl`` is the same
bytes as the one-worker build's (it must be). Then, on a local Ray with two CPUs:

* start-up: the seconds ``ray_runtime`` takes to start and stop a local Ray;
* overhead per task: empty tasks with the build's task options, two in flight as the
  build keeps them, seconds per task over 200 of them;

and a projection onto a cluster from the one-worker build's seconds per sample (its busy
seconds: page reading, transforms and QC, routing included) and its floor per page:
``--project-samples`` document samples (default 10,000) on ``--nodes`` nodes of
``--cores`` cores (default 8 x 16), each core a worker at the two-worker run's
efficiency, plus Ray's overhead per task. The driver's own work (committing an outcome)
is measured in the builds' wall time and is small beside a sample's seconds.

    python bench/scale.py [SOURCE] [--limit N] [--seed S] [--project-samples N]
                          [--nodes N] [--cores N] [--json PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

import pymupdf
from build_speed import FIXTURE, SHARED, build, floor  # sibling script: bench/ is on sys.path

from abstain_build.pipeline.ray_workers import ray_runtime

TASKS = 200


def _noop(value: int) -> int:
    return value


def ray_costs() -> dict[str, float]:
    """Start-up and stop of a local Ray, and seconds per empty task, two in flight."""
    import ray

    started = time.perf_counter()
    with ray_runtime(None, 2):
        up = time.perf_counter() - started
        remote = ray.remote(_noop).options(num_cpus=1, max_retries=0)
        ray.get([remote.remote(0) for _ in range(4)])  # workers warm, as in a build
        began = time.perf_counter()
        in_flight = []
        for index in range(TASKS):
            in_flight.append(remote.remote(index))
            if len(in_flight) == 2:
                done, in_flight = ray.wait(in_flight, num_returns=1)
                ray.get(done)
        ray.get(in_flight)
        per_task = (time.perf_counter() - began) / TASKS
        stopping = time.perf_counter()
    down = time.perf_counter() - stopping
    return {"startup_s": up, "shutdown_s": down, "per_task_s": per_task}


def page_count(pdf: Path) -> int:
    with pymupdf.open(pdf) as document:
        return document.page_count


def digest(out: Path) -> str:
    return hashlib.sha256((out / "data.jsonl").read_bytes()).hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--project-samples", type=int, default=10_000)
    parser.add_argument("--nodes", type=int, default=8)
    parser.add_argument("--cores", type=int, default=16)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    args.no_routing, args.transforms = False, None  # what build_speed.build reads
    source = args.source or (SHARED if SHARED.is_dir() else FIXTURE)
    runs = (("local", 1), ("local", 2), ("ray", 2))
    rows = []
    with tempfile.TemporaryDirectory(prefix="scale-") as temporary:
        root = Path(temporary)
        for executor, workers in runs:
            out = root / f"{executor}-{workers}"
            row = build(source, out, workers, args, executor)
            row["data_sha256"] = digest(out)
            rows.append(row)
        least = floor(source, root / "local-1")
        pdfs = sorted((source / "documents").glob("*.pdf"))
        documents = len(pdfs)
        pages = sum(page_count(pdf) for pdf in pdfs)
    costs = ray_costs()

    print(f"source: {source}" + (f" (first {args.limit})" if args.limit else ""))
    print(
        f"{'executor':>8} {'workers':>7} {'samples':>7} {'wall s':>8} {'per min':>8} "
        f"{'busy':>6} {'same bytes':>10}"
    )
    for row in rows:
        same = "yes" if row["data_sha256"] == rows[0]["data_sha256"] else "NO"
        print(
            f"{row['executor']:>8} {row['workers']:>7} {row['samples']:>7} {row['wall']:>8.1f}"
            f" {row['per_minute']:>8.2f} {row['utilisation']:>6.2f} {same:>10}"
        )
    one, local_two, ray_two = rows
    print(
        f"local two workers over one: {one['wall'] / local_two['wall']:.2f}x;"
        f" Ray at two over one: {one['wall'] / ray_two['wall']:.2f}x;"
        f" Ray over local at two: {ray_two['wall'] / local_two['wall']:.2f}x the wall time"
    )
    print(
        f"Ray: start-up {costs['startup_s']:.1f} s, stop {costs['shutdown_s']:.1f} s,"
        f" {1000 * costs['per_task_s']:.1f} ms per task (empty, two in flight)"
    )

    per_sample = one["utilisation"] * one["wall"] / one["samples"] if one["samples"] else 0.0
    efficiency = (one["wall"] / local_two["wall"]) / 2 if local_two["wall"] else 0.0
    cores = args.nodes * args.cores
    busy = args.project_samples * (per_sample + costs["per_task_s"])
    projected = busy / (cores * efficiency) + costs["startup_s"] if efficiency else 0.0
    print(
        f"per sample: {per_sample:.1f} busy s at one worker; per page read: floor"
        f" {least / max(pages, 1):.2f} s ({least:.1f} s over {pages} pages of {documents}"
        f" documents), the build {one['wall'] / max(least, 1e-9):.2f}x that;"
        f" efficiency per worker at two: {efficiency:.2f}"
    )
    print(
        f"projection: {args.project_samples:,} document samples on {args.nodes} nodes x"
        f" {args.cores} cores = {busy / 3600:.1f} CPU-hours, about {projected / 60:.0f} min"
        f" of wall time ({args.project_samples / max(projected, 1e-9) * 60:.0f} samples/min)"
    )
    if args.json:
        figures = {
            "rows": rows,
            "ray": costs,
            "floor": least,
            "per_sample": per_sample,
            "efficiency": efficiency,
            "projected_wall_s": projected,
        }
        args.json.write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
