"""Routing: scores with penalties, eligibility, balancing, fallback chains, resumability."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from abstain_build.model import DocumentRef, ImageRef, Sample, SourceInfo
from abstain_build.pipeline.routing_pass import ROUTES_FILE, family_distribution
from abstain_build.routing.features import Features, question_features
from abstain_build.routing.route import (
    Balancer,
    RouteDecision,
    SampleScores,
    score_sample,
)
from abstain_build.routing.scoring import (
    ELIGIBLE,
    HARD_FACTOR,
    SOFT_FACTOR,
    RouteScore,
    eligible,
    score_transform,
)
from abstain_build.transforms import get_registry

from .conftest import FIXTURES, SHARED_DATA, read_jsonl, run_cli

INFO = SourceInfo("test", "test", "test.jsonl", 0)


def transforms():
    registry = get_registry()
    return [registry.get(name)() for name in registry.names()]


def image_sample(question: str, n_images: int = 1, options=(), sample_id: str = "s") -> Sample:
    images = tuple(ImageRef(f"image_{i + 1}", data=b"x") for i in range(n_images))
    return Sample(sample_id, INFO, question, "A", options=tuple(options), images=images)


def document_sample(question: str, answer: str = "42", sample_id: str = "d") -> Sample:
    document = DocumentRef(Path("/nonexistent.pdf"), "doc")
    return Sample(sample_id, INFO, question, answer, "Int", document=document, evidence_pages=(1,))


def by_name(scored: SampleScores) -> dict[str, RouteScore]:
    return {s.transform: s for s in scored.scores}


# -- scores and constraints ---------------------------------------------------------------------


def test_a_hard_violation_costs_95_percent_and_a_soft_one_30() -> None:
    registry = get_registry()
    features = Features(axis="evidence_sufficiency", evidence_type="Aggregation")
    corrupt = score_transform(registry.get("corrupt_numeric_tokens")(), features)
    assert corrupt.hard == ["needs numbers printed on the evidence pages"]
    assert corrupt.score == pytest.approx(corrupt.affinity * HARD_FACTOR)
    blur = score_transform(registry.get("blur_figure_region")(), features)
    assert blur.hard == [] and len(blur.soft) == 1
    assert blur.score == pytest.approx(blur.affinity * SOFT_FACTOR)
    features.numbers_on_evidence, features.has_figure = 12, True
    assert score_transform(registry.get("corrupt_numeric_tokens")(), features).score > ELIGIBLE
    assert not score_transform(registry.get("blur_figure_region")(), features).soft


def test_image_transforms_need_an_image_dependent_question() -> None:
    decorative = question_features(
        image_sample("Solve for x: 3x + 5 = 20, given y = 2x - 1 and z = x + y + 4. <image 1>")
    )
    essential = question_features(image_sample("What does the diagram in <image 1> show?"))
    assert decorative.dependency in ("Decorative", "Partial")
    assert essential.dependency in ("Essential", "Exclusive")
    crop = get_registry().get("aggressive_crop")()
    assert score_transform(crop, decorative).hard
    assert not score_transform(crop, essential).hard


def test_rewrites_on_image_dependent_questions_only_when_nothing_else_is_eligible() -> None:
    sample = image_sample("What does the diagram in <image 1> show?")
    features = question_features(sample)
    rewrites = [t for t in transforms() if t.target == "question" and t.axis == sample.axis]
    images = [t for t in transforms() if t.target == "image"]
    with_images = score_sample(sample, [*rewrites, *images], features)
    assert not with_images.relaxed
    assert all(t.target == "image" for t in _eligible_transforms(with_images))
    only_rewrites = score_sample(sample, rewrites, features)
    assert only_rewrites.relaxed and only_rewrites.eligible
    assert all(s.relaxed and not s.hard for s in only_rewrites.eligible)


def _eligible_transforms(scored: SampleScores):
    registry = get_registry()
    return [registry.get(s.transform) for s in scored.eligible]


def test_temporal_drift_needs_a_time_reference() -> None:
    drift = get_registry().get("temporal_drift")()
    timeless = question_features(document_sample("What is the name of the CEO?"))
    dated = question_features(document_sample("What was the revenue in FY2019?"))
    assert score_transform(drift, timeless).hard
    assert not score_transform(drift, dated).hard
    dated.document_period = False  # a document whose text names no year
    assert score_transform(drift, dated).hard


def test_a_caption_needs_an_answer_a_note_can_contradict() -> None:
    caption = get_registry().get("contradictory_caption")()
    short = question_features(document_sample("Who is the CEO?", "Jane Doe"))
    number = question_features(document_sample("What was the revenue?", "4.2 million"))
    long = question_features(
        document_sample(
            "Describe the products.",
            "grid-scale battery storage systems and industrial gas turbines for utilities",
        )
    )
    assert not score_transform(caption, short).hard
    assert not score_transform(caption, number).hard
    assert score_transform(caption, long).hard


# -- balancing and chains -----------------------------------------------------------------------


def _scores(*items: tuple) -> SampleScores:
    """Scores of (name, family, score[, preferred]); eligible as routing orders them."""
    scores = [
        RouteScore(name, family, value, value, preferred=rest[0] if rest else True)
        for name, family, value, *rest in items
    ]
    chosen, threshold = eligible(scores)
    return SampleScores(
        "x",
        "evidence_sufficiency",
        Features(axis="evidence_sufficiency"),
        scores=scores,
        eligible=chosen,
        threshold=threshold,
    )


def test_the_balancer_takes_turns_only_among_scores_near_the_best() -> None:
    balancer = Balancer(terminal=("full_page_blur",), margin=0.05)
    offer = [("a1", "A", 0.9), ("a2", "A", 0.86), ("b1", "B", 0.88), ("c1", "C", 0.5)]
    picks = [balancer.choose(_scores(*offer)).chain[0] for _ in range(5)]
    # A first (best score), then B (unused); then A again, where the two close scores take
    # turns. C is eligible but far below the best: balance never reaches it.
    assert picks == ["a1", "b1", "a2", "b1", "a1"]
    assert "c1" in Balancer(margin=0.05).choose(_scores(*offer)).chain  # still a fallback
    everything = Balancer(margin=1.0)
    assert [everything.choose(_scores(*offer)).chain[0] for _ in range(3)] == ["a1", "b1", "c1"]


def test_a_family_the_evidence_type_does_not_prefer_only_when_nothing_preferred_is() -> None:
    balancer = Balancer(margin=1.0)
    offer = [("pref", "A", 0.56, True), ("other", "B", 0.9, False), ("other2", "C", 0.8, False)]
    decisions = [balancer.choose(_scores(*offer)) for _ in range(3)]
    assert [d.chain[0] for d in decisions] == ["pref"] * 3  # balance never overrides it
    assert decisions[0].chain[1:] == ["other", "other2"]  # the others follow as fallbacks
    alone = balancer.choose(_scores(("pref", "A", 0.03, True), ("other", "B", 0.9, False)))
    assert alone.chain[0] == "other" and "prefers is eligible" in alone.reason


def test_counting_questions_go_to_corruption_however_the_mix_stands() -> None:
    registry = get_registry()
    features = Features(
        axis="evidence_sufficiency",
        evidence_type="Counting",
        numbers_on_evidence=12,
        has_table=True,
        has_figure=True,
    )
    candidates = [
        registry.get(n)()
        for n in registry.names()
        if registry.get(n).axis == "evidence_sufficiency"
    ]
    balancer = Balancer()
    for _ in range(6):
        scored = score_sample(document_sample("How many stores are there?"), candidates, features)
        decision = balancer.choose(scored)
        assert decision.family == "evidence_corruption", decision.reason


def test_a_chain_has_at_most_three_alternatives_and_ends_in_a_terminal_fallback() -> None:
    offer = [(f"t{i}", f"F{i}", 0.9 - i / 100) for i in range(6)]
    decision = Balancer(terminal=("full_page_blur",)).choose(_scores(*offer))
    assert len(decision.chain) == 4 and decision.chain[-1] == "full_page_blur"
    image = _scores(*offer)
    image.axis = "modality_dependency"
    assert "full_page_blur" not in Balancer(terminal=("full_page_blur",)).choose(image).chain


def test_a_sample_with_nothing_eligible_says_why() -> None:
    scored = _scores(("a", "A", 0.1))
    scored.eligible, scored.threshold = eligible(scored.scores)
    decision = Balancer().choose(scored)
    assert decision.chain == [] and "0.25" in decision.reason and "a at 0.100" in decision.reason


@pytest.mark.parametrize("verdict", ["knowledge", "contested", "evidence"])
def test_no_terminal_fallback_edits_the_evidence_of_a_question_the_blind_check_stops(
    verdict: str,
) -> None:
    """A question answerable without its evidence, or one readers answer otherwise, gets
    no evidence edit, the terminal fallback included: the blind rule's one constant."""
    scored = _scores(("a", "A", 0.1))
    scored.eligible, scored.threshold = eligible(scored.scores)
    assert scored.features is not None
    scored.features.blind = verdict
    decision = Balancer(terminal=["hide_evidence_page"]).choose(scored)
    expected = [] if verdict in ("knowledge", "contested") else ["hide_evidence_page"]
    assert decision.chain == expected


def test_the_family_spread_counts_families_never_chosen() -> None:
    decisions = [
        RouteDecision(str(i), ["t"], family, 0.5, "", {"axis": "evidence_sufficiency"})
        for i, family in enumerate(["evidence_removal"] * 3 + ["evidence_corruption"])
    ]
    spread = family_distribution(decisions)["evidence_sufficiency"]
    assert spread["counts"]["semantic_contradiction"] == 0
    assert spread["spread"] == 0.75


# -- real questions -------------------------------------------------------------------------------


def real_mmmu() -> list[Sample]:
    path = SHARED_DATA / "mmmu" / "questions_mmmu_pro.jsonl"
    if not path.exists():
        pytest.skip("../shared/data is not present")
    out = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        options = [str(o) for o in ast.literal_eval(record["options"] or "[]")]
        n = len(set(re.findall(r"<image \d+>", record["question"] + " ".join(options)))) or 1
        out.append(image_sample(record["question"], n, options, record["id"]))
    return out


def real_mmlbd() -> list[Sample]:
    path = SHARED_DATA / "mmlongbench-doc" / "all_questions.json"
    if not path.exists():
        pytest.skip("../shared/data is not present")
    records = json.loads(path.read_text())
    return [
        document_sample(r["question"], str(r["answer"]), f"q{i}")
        for i, r in enumerate(records)
        if r["answer"] != "Not answerable"
    ]


@pytest.mark.shared_data
@pytest.mark.parametrize("load", [real_mmmu, real_mmlbd], ids=["mmmu-pro", "mmlongbench-doc"])
def test_no_chosen_transform_breaks_a_hard_rule_on_real_questions(load) -> None:
    candidates = [t for t in transforms() if not t.terminal_fallback]
    balancer = Balancer(terminal=("full_page_blur",))
    chosen = 0
    for sample in load():
        scored = score_sample(sample, candidates, question_features(sample))
        decision = balancer.choose(scored)
        if not scored.eligible:
            continue
        chosen += 1
        pick = by_name(scored)[decision.chain[0]]
        assert not pick.hard, (sample.id, pick)
        for name in decision.chain[1:]:
            if name in by_name(scored):
                assert not by_name(scored)[name].hard, (sample.id, name)
    assert chosen > 0.9 * len(load())


# -- builds ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_failed_choice_falls_back_to_the_next_and_records_why(tmp_path: Path) -> None:
    plugin = tmp_path / "always_fails.py"
    plugin.write_text(
        "from abstain_build.model import EVIDENCE\n"
        "from abstain_build.transforms import NotApplicable, QuestionTransform,"
        " register_transform\n\n"
        "@register_transform\n"
        "class AlwaysFails(QuestionTransform):\n"
        "    name = 'always_fails'\n"
        "    family = 'semantic_contradiction'\n"
        "    axis = EVIDENCE\n"
        "    target = 'question'\n"
        "    def affinity(self, features):\n"
        "        return 1.0\n"
        "    def plan(self, ctx):\n"
        "        raise NotApplicable('this transform never applies')\n"
    )
    out = tmp_path / "out"
    done = run_cli(
        "transform",
        str(FIXTURES / "mmlongbench-doc"),
        "-o",
        str(out),
        "--plugin",
        "always_fails",
        "-t",
        "always_fails,hide_evidence_page",
        env={"PYTHONPATH": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    perturbed = [r for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    first_choice = [r for r in perturbed if r["routing"]["candidates"][0] == "always_fails"]
    assert first_choice and len(first_choice) < len(perturbed)  # balancing alternates
    for row in first_choice:
        assert row["routing"]["attempts"][0] == {
            "transform": "always_fails",
            "reason": "this transform never applies",
        }
    assert all(r["transform"]["name"] == "hide_evidence_page" for r in perturbed)


@pytest.mark.slow
def test_a_killed_routing_pass_resumes_with_the_same_decisions(tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    args = ("transform", str(FIXTURES / "mmmu"), "--transforms")
    names = "aggressive_multi_mask,blur_edge_mask,missing_context,contradictory_premise"
    assert run_cli(*args, names, "-o", str(whole)).returncode == 0
    lines = (whole / "state" / ROUTES_FILE).read_bytes().split(b"\n")
    cut = tmp_path / "cut"
    (cut / "state").mkdir(parents=True)
    (cut / "state" / "config.json").write_bytes((whole / "state" / "config.json").read_bytes())
    # Three decisions made, the fourth torn mid-write.
    (cut / "state" / ROUTES_FILE).write_bytes(b"\n".join(lines[:3]) + b"\n" + lines[3][:20])
    assert run_cli(*args, names, "-o", str(cut)).returncode == 0
    assert (cut / "state" / ROUTES_FILE).read_bytes() == (
        whole / "state" / ROUTES_FILE
    ).read_bytes()
    assert read_jsonl(cut / "data.jsonl") == read_jsonl(whole / "data.jsonl")
    # Scoring is build work the manifest counts; the decisions stay free of timings.
    routing = json.loads((whole / "manifest.json").read_text(encoding="utf-8"))["routing"]
    assert routing["seconds_this_run"] > 0 and b"seconds" not in b"".join(lines)
    again = run_cli(*args, names, "-o", str(whole))
    assert again.returncode == 0
    replayed = json.loads((whole / "manifest.json").read_text(encoding="utf-8"))["routing"]
    assert replayed["seconds_this_run"] == 0
