"""How fast is `abstain-build transform`, relative to the least any such script must do?

Reference, measured in the same run: open each sample's PDF and render its evidence pages
at 144 dpi to PNG (for image sources: decode and re-encode each image). Every build does at
least that, so the ratio shows the cost of everything else (perturbations, PDF saving,
checks, records) and what workers buy.

    python bench/bench_transform.py [SOURCE] [--repeat 2]

SOURCE defaults to ../shared/data/mmlongbench-doc when present, else the shipped fixture.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.loaders import open_source  # noqa: E402
from abstain_build.media.images import decode_image, encode_png  # noqa: E402
from abstain_build.media.pdf import open_pdf, render_page_png  # noqa: E402
from abstain_build.model import Sample  # noqa: E402


def reference(source: str, limit: int | None) -> tuple[float, int]:
    """The floor: render evidence pages / re-encode images, nothing else."""
    started = time.perf_counter()
    count = 0
    for position, item in enumerate(open_source(source)):
        if limit is not None and position >= limit:
            break
        if not isinstance(item, Sample):
            continue
        count += 1
        try:
            if item.document is not None:
                document = open_pdf(item.document.path.read_bytes(), item.document.doc_id)
                for page in item.evidence_pages:
                    if page <= document.page_count:
                        render_page_png(document[page - 1], 144, 64_000_000)
                document.close()
            else:
                for ref in item.images:
                    data = ref.data if ref.data is not None else ref.path.read_bytes()
                    encode_png(decode_image(data, ref.key))
        except Exception:
            pass
    return time.perf_counter() - started, count


def build(source: str, workers: int, limit: int | None) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of the children for one CLI build."""
    out = Path(tempfile.mkdtemp(prefix="abstain-bench-"))
    command = [
        sys.executable,
        "-m",
        "abstain_build",
        "transform",
        source,
        "--out",
        str(out / "run"),
        "--workers",
        str(workers),
        "-q",
    ]
    if limit is not None:
        command += ["--limit", str(limit)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    shutil.rmtree(out, ignore_errors=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"build failed: {done.stderr}")
    return seconds, max(peak, before) / 1024


def main() -> None:
    shared = ROOT.parent / "shared" / "data" / "mmlongbench-doc"
    default = shared if shared.is_dir() else ROOT / "fixtures" / "mmlongbench-doc"
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("source", nargs="?", default=str(default))
    parser.add_argument("--repeat", type=int, default=2, help="best of N for each measurement")
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()

    ref_seconds, samples = min(reference(args.source, args.limit) for _ in range(args.repeat))
    print(f"source: {args.source} ({samples} samples)")
    print(f"reference (render/re-encode only): {ref_seconds:6.2f} s")
    rows = []
    for workers in (1, 2):
        seconds, peak = min(build(args.source, workers, args.limit) for _ in range(args.repeat))
        rows.append((workers, seconds, peak))
        print(
            f"abstain-build transform --workers {workers}: {seconds:6.2f} s"
            f"  = {seconds / ref_seconds:4.2f} x reference"
            f"  ({samples / seconds:5.2f} samples/s, peak RSS of a child {peak:5.0f} MB)"
        )
    print(f"speed-up from 2 workers: {rows[0][1] / rows[1][1]:.2f} x")


if __name__ == "__main__":
    main()
