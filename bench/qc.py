"""QC throughput against a judge with a fixed latency: is the concurrency bound used well?

200 synthetic items, two model judges behind a local server answering after 200 ms, 16
calls in flight at most (8 per judge). The ideal wall time is calls x latency /
concurrency (400 x 0.2 s / 16 = 5 s); the target is within 1.5x of it. The reference
is measured in the same run, on the same machine.

    python bench/qc.py [--items 200] [--latency 0.2] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.models import ClientOptions  # noqa: E402
from abstain_build.pipeline.rerun import verify_items  # noqa: E402
from abstain_build.qc.judges.base import JudgeItem  # noqa: E402
from abstain_build.qc.verify import QcSpec, Verifier  # noqa: E402
from tests.model_server import ModelServer, reply  # noqa: E402  (the tests' local server)


def items(n: int) -> list[JudgeItem]:
    rng = np.random.default_rng(0)
    out = []
    for i in range(n):
        buffer = io.BytesIO()
        Image.fromarray(rng.integers(0, 255, (64, 64, 3), dtype=np.uint8)).save(buffer, "PNG")
        out.append(
            JudgeItem(
                id=f"item-{i}",
                axis="modality_dependency",
                question=f"What is shown in <image 1>? (item {i})",
                images=(buffer.getvalue(),),
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    verdict = json.dumps(
        {"answer": "none", "verdict": "UNANSWERABLE", "confidence": "HIGH", "justification": "x"}
    )
    with ModelServer() as server:
        server.responder = lambda received: reply(verdict, delay=args.latency)
        specs = (f"openai:judge-a@{server.openai_url}", f"openai:judge-b@{server.openai_url}")
        options = ClientOptions(concurrency=args.concurrency // 2)
        verifier = Verifier(QcSpec(judges=specs, model_options=options))
        batch = items(args.items)
        started = time.perf_counter()
        results = [r for _, r in verify_items(verifier, batch, args.concurrency)]
        wall = time.perf_counter() - started
        verifier.close()
        calls = len(server.requests)
        peak = server.max_in_flight
    ideal = calls * args.latency / args.concurrency
    accepted = sum(r.status == "accepted" for r in results)
    print(
        f"{args.items} items, {calls} judge calls, latency {args.latency * 1000:.0f} ms,"
        f" concurrency {args.concurrency} (peak in flight {peak})"
    )
    print(
        f"wall {wall:.2f} s; ideal calls x latency / concurrency = {ideal:.2f} s;"
        f" ratio {wall / ideal:.2f} (target <= 1.5); accepted {accepted}/{args.items}"
    )


if __name__ == "__main__":
    main()
