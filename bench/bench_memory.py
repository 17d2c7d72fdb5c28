"""Does memory stay flat as the source grows? (Streaming loaders + bounded look-ahead.)

Builds synthetic MMMU parquet sources of SMALL and LARGE rows (each row embeds a
~1 MP image) and runs `abstain-build transform --workers 2` on each. The reference is the
SMALL run, measured in the same session: the peak RSS ratio LARGE / SMALL should stay near
1 while the total image bytes grow LARGE / SMALL times.

    python bench/bench_memory.py [--small 40] [--large 400]
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]


def synthetic_parquet(path: Path, rows: int) -> int:
    """HF MMMU column layout, one noisy 1200x900 PNG per row; returns total image bytes."""
    rng = np.random.default_rng(0)
    buffer = io.BytesIO()
    noise = rng.integers(0, 255, size=(900, 1200, 3), dtype=np.uint8)
    Image.fromarray(noise).save(buffer, format="PNG", compress_level=1)
    png = buffer.getvalue()
    table = pa.table(
        {
            "id": [f"validation_Synthetic_{i}" for i in range(rows)],
            "question": [f"<image 1> What is shown in figure {i}?" for i in range(rows)],
            "options": ["['A', 'B', 'C', 'D']"] * rows,
            "answer": ["A"] * rows,
            "image_1": [{"bytes": png, "path": f"img_{i}.png"} for i in range(rows)],
        }
    )
    pq.write_table(table, path, row_group_size=16)
    return len(png) * rows


def peak_rss_of_build(source: Path, workers: int) -> tuple[float, float]:
    """Wall seconds and the largest RSS (MB) of any process of one CLI build."""
    out = Path(tempfile.mkdtemp(prefix="abstain-mem-"))
    command = [
        sys.executable,
        "-m",
        "abstain_build",
        "transform",
        str(source),
        "--out",
        str(out / "run"),
        "--workers",
        str(workers),
        "--transforms",
        "adaptive_darkness",
        "-q",
    ]
    started = time.perf_counter()
    peak_kb = peak_kb_of(command, ROOT)
    seconds = time.perf_counter() - started
    shutil.rmtree(out, ignore_errors=True)
    return seconds, peak_kb / 1024


def peak_kb_of(command: list[str], cwd: Path | None = None) -> int:
    """Run ``command`` and return the largest resident set (kB) of its processes. A fresh
    interpreter runs it, so RUSAGE_CHILDREN holds only this command (the caller's would
    keep the largest of every run so far)."""
    probe = (
        "import resource, subprocess, sys; "
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, cwd=%r); "
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    ) % (str(cwd) if cwd is not None else None)
    done = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True, text=True)
    # Exit 1 is a run that finished with some samples failed (errors.jsonl): still timed.
    code, peak = (done.stdout.split() or ["-1", "0"])[-2:]
    if done.returncode != 0 or int(code) not in (0, 1):
        raise SystemExit(done.stderr)
    return int(peak)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--small", type=int, default=40)
    parser.add_argument("--large", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="abstain-mem-src-"))
    try:
        results = {}
        for label, rows in (("small", args.small), ("large", args.large)):
            source = work / f"{label}.parquet"
            image_bytes = synthetic_parquet(source, rows)
            seconds, peak = peak_rss_of_build(source, args.workers)
            results[label] = (rows, image_bytes, seconds, peak)
            print(
                f"{label:>5}: {rows:5d} rows, {image_bytes / 1e6:7.1f} MB of images,"
                f" {seconds:6.1f} s, peak RSS {peak:6.0f} MB"
            )
        small, large = results["small"], results["large"]
        print(f"input grew {large[1] / small[1]:.1f} x; peak RSS grew {large[3] / small[3]:.2f} x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
