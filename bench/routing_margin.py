"""How far from a sample's best score may balancing reach? The routed family mix per margin.

Routing scores every transform on every sample, then a sequential pass picks one per
sample: the preferred family's eligible transforms compete (any family when none of them
is eligible), and of those only the ones within ``margin`` of the best score take turns
for balance. This script replays that pass over the scores a build already wrote
(``OUT/state/routing.jsonl``), once per margin, and prints the first-choice family mix, how
many samples got a transform that was not their best-scoring one, and how many went to a
family their evidence type does not prefer. Nothing is rebuilt: scores come from the
build, so the figures are those of the build's classifier mode.

    python bench/routing_margin.py BUILT_DIR [BUILT_DIR ...] [--margins 0,0.05,0.1,0.2,1]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from abstain_build.routing.route import Balancer, SampleScores  # noqa: E402
from abstain_build.routing.scoring import PREFERRED_FAMILY, RouteScore, eligible  # noqa: E402


def _scores(decision: dict) -> SampleScores:
    features = decision["features"]
    evidence_type = features.get("evidence_type")
    preferred_family = PREFERRED_FAMILY.get(evidence_type or "")
    scores = [
        RouteScore(
            s["transform"],
            s["family"],
            s["affinity"],
            s["score"],
            s.get("hard", []),
            s.get("soft", []),
            s.get("relaxed", []),
            preferred=s.get(
                "preferred",
                features.get("axis") != "evidence_sufficiency"
                or preferred_family is None
                or s["family"] == preferred_family,
            ),
        )
        for s in decision["scores"]
    ]
    scored = SampleScores(decision["sample_id"], features.get("axis", ""))
    scored.scores = scores
    scored.eligible, scored.threshold = eligible(scores)
    return scored


def replay(decisions: list[dict], margin: float) -> dict:
    balancer = Balancer(margin=margin)
    mix: Counter[str] = Counter()
    not_best = not_preferred = 0
    for decision in decisions:
        scored = _scores(decision)
        if not scored.eligible:
            continue
        chosen = balancer.choose(scored)
        pick = next(s for s in scored.eligible if s.transform == chosen.chain[0])
        mix[pick.family] += 1
        not_best += pick.score < max(s.score for s in scored.eligible) - 1e-9
        not_preferred += not pick.preferred
    return {"mix": dict(mix.most_common()), "not_best": not_best, "not_preferred": not_preferred}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("built", nargs="+", type=Path)
    parser.add_argument("--margins", default="0,0.05,0.1,0.2,1")
    args = parser.parse_args()
    margins = [float(m) for m in args.margins.split(",")]
    for folder in args.built:
        lines = (folder / "state" / "routing.jsonl").read_text().splitlines()
        decisions = [json.loads(line) for line in lines if line.strip()]
        built = Counter(d["family"] for d in decisions if d.get("family"))
        print(f"{folder} ({len(decisions)} samples); as built: {dict(built.most_common())}")
        for margin in margins:
            out = replay(decisions, margin)
            print(
                f"  margin {margin:<5g} mix {out['mix']}  below the best score:"
                f" {out['not_best']}  not the preferred family: {out['not_preferred']}"
            )


if __name__ == "__main__":
    main()
