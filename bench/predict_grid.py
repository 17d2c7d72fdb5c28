"""The six-cell grid of ``predict`` on built datasets, against a local server with a fixed
latency: calls, tokens, wall time at each concurrency, and the ratio to the ideal
``calls x latency / concurrency`` (1.0 is perfect use of the concurrency bound; the rest
is reading records, encoding images and writing files). The reference is measured in the
same run, on the same machine.

The server answers every request "A" (with a confidence under vconf) without decoding the
images, so that the time measured is the tool's, not the test server's; the tests check
that images arrive. Scores are not the point here.

    python bench/predict_grid.py runs/mmmu runs/mmlbd [--latency 0.1] [--concurrency 1 8]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.models import ClientOptions  # noqa: E402
from abstain_build.predict import grid_paths, predict  # noqa: E402
from tests.model_server import ModelServer, Received, reply  # noqa: E402  (the tests' server)


def responder(latency: float):
    def respond(received: Received):
        body: dict[str, object] = {"explanation": "read off the page", "answer": "A"}
        if "confidence" in received.system:
            body["confidence"] = 4
        return reply(json.dumps(body), delay=latency)

    return respond


def run_grid(dataset: Path, spec: str, concurrency: int, latency: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "grid.jsonl"
        totals = {"items": 0, "calls": 0, "tokens": 0}
        started = time.perf_counter()
        for (condition, clause), path in grid_paths(out).items():
            result = predict(
                dataset,
                spec,
                path,
                condition=condition,
                clause=clause,
                concurrency=concurrency,
                options=ClientOptions(concurrency=concurrency),
            )
            totals["items"] += result.answered
            totals["calls"] += result.calls
            totals["tokens"] += result.input_tokens + result.output_tokens
        wall = time.perf_counter() - started
    ideal = totals["calls"] * latency / concurrency
    return {**totals, "wall": wall, "ideal": ideal, "ratio": wall / ideal if ideal else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="+", type=Path, help="folders built by transform")
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per reply")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8])
    args = parser.parse_args()
    print("| dataset | concurrency | items x cells | calls | tokens | wall s | ideal s | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    with ModelServer() as server:
        server.responder = responder(args.latency)
        spec = f"openai:bench@{server.openai_url}"
        for dataset in args.datasets:
            for concurrency in args.concurrency:
                row = run_grid(dataset, spec, concurrency, args.latency)
                print(
                    f"| {dataset.name} | {concurrency} | {row['items']} | {row['calls']}"
                    f" | {row['tokens']} | {row['wall']:.1f} | {row['ideal']:.1f}"
                    f" | {row['ratio']:.2f} |",
                    flush=True,
                )
        print(f"peak calls in flight: {server.max_in_flight}")


if __name__ == "__main__":
    main()
