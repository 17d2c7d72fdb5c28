"""predict: a model asked every item of a built dataset, through eval, against the local
OpenAI- and Anthropic-protocol server (scripted replies; images checked to arrive)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from abstain_build import BuildConfig, build
from abstain_build.predict import parse_reply, predict
from abstain_build.predict.prompts import ABSTAIN, CLAUSE

from .conftest import FIXTURES, read_jsonl, run_cli
from .model_server import ModelServer, Received, error, reply

pytestmark = pytest.mark.usefixtures("no_real_keys")


@pytest.fixture
def built(predict_dataset: Path) -> Path:
    return predict_dataset


def asked(root: Path, include_unverified: bool = False) -> list[dict]:
    """The records predict asks: originals, answer-changed items, accepted counterparts."""
    return [
        r
        for r in read_jsonl(root / "data.jsonl")
        if r["answerable"] or r["qc"]["status"] == "accepted" or include_unverified
    ]


def answering(confidence: bool = False):
    """Abstain when the image is mostly dark or masked (the fixture's counterparts), else
    answer A: a crude but real reader of what arrives."""

    def respond(received: Received):
        pictures = received.images()
        dark = any(np.asarray(p.convert("L")).mean() < 90 for p in pictures)
        body = {"explanation": "read off the chart", "answer": ABSTAIN if dark else "A"}
        if confidence:
            body["confidence"] = 2 if dark else 5
        return reply(json.dumps(body))

    return respond


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_every_item_is_asked_with_its_images_and_eval_reads_the_result(
    built: Path, tmp_path: Path, server: ModelServer, provider: str
) -> None:
    server.responder = answering()
    spec = (
        f"openai:vlm@{server.openai_url}"
        if provider == "openai"
        else f"anthropic:claude@{server.url}"
    )
    out = tmp_path / "pred.jsonl"
    result = predict(built, spec, out, concurrency=3)
    wanted = asked(built)
    assert result.answered == result.asked == len(wanted) and result.failed == 0
    lines = read_jsonl(out)
    assert sorted(line["id"] for line in lines) == sorted(r["id"] for r in wanted)
    assert all(line["response"].endswith(("Answer: A", f"Answer: {ABSTAIN}")) for line in lines)
    assert len(server.requests) == len(wanted)  # one request per item, no probe counted
    assert all(len(r.images()) >= 1 for r in server.requests)  # every item shows its image
    system = server.requests[0].body.get("system") or server.requests[0].messages[0]["content"]
    assert CLAUSE["standard"] in system
    sidecar = read_jsonl(out.with_name("pred.jsonl.replies.jsonl"))
    assert len(sidecar) == len(wanted) and all(s["ok"] and s["seconds"] >= 0 for s in sidecar)
    report = run_cli("eval", str(built), str(out), "--json")
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert data["items"]["scored"] == len(wanted)  # eval read and scored every prediction


def test_vconf_asks_for_a_confidence_and_eval_sweeps_it(
    built: Path, tmp_path: Path, server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verbal-confidence baseline is the vconf condition; the key goes nowhere."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-predict-Zq81secret")
    server.responder = answering(confidence=True)
    out = tmp_path / "vconf.jsonl"
    spec = f"openai:vlm@{server.openai_url}"
    predict(built, spec, out, baseline="verbal-confidence", clause="extreme")
    assert server.requests[0].credential == "sk-predict-Zq81secret"
    for written in tmp_path.iterdir():
        assert b"Zq81secret" not in written.read_bytes(), written.name
    lines = read_jsonl(out)
    assert {line["method"] for line in lines} == {"vconf/extreme"}
    assert {line["confidence"] for line in lines} <= {2.0, 5.0} and lines
    schema = server.requests[0].schema
    assert schema is not None and schema["properties"]["confidence"]["enum"] == [1, 2, 3, 4, 5]
    system = server.requests[0].messages[0]["content"]
    assert CLAUSE["extreme"] in system and "from 1 (a guess) to 5" in system
    report = run_cli("eval", str(built), str(out), "--json")
    assert report.returncode == 0, report.stderr
    assert "sweep" in report.stdout


def test_a_failed_item_is_asked_again_on_resume_and_nothing_twice(
    built: Path, tmp_path: Path, server: ModelServer
) -> None:
    calls = {"n": 0}

    def flaky(received: Received):
        calls["n"] += 1
        if calls["n"] in (2, 3):  # the same server error twice: a failure, not retried
            return error(500, "this one breaks the server")
        return answering()(received)

    server.responder = flaky
    out = tmp_path / "pred.jsonl"
    spec = f"openai:vlm@{server.openai_url}"
    first = predict(built, spec, out, concurrency=1)
    assert first.failed == 1 and first.answered == first.asked - 1
    # A killed run leaves a torn last line: it is cut off and that item asked again.
    with out.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "torn')
    before = len(server.requests)
    second = predict(built, spec, out, concurrency=1)
    assert second.asked == 1 and second.failed == 0
    assert len(server.requests) == before + 1
    ids = [line["id"] for line in read_jsonl(out)]
    assert len(ids) == len(set(ids)) == len(asked(built))


def test_a_model_that_answers_in_prose_stops_predict_and_keeps_what_was_answered(
    built: Path, tmp_path: Path, server: ModelServer
) -> None:
    good = reply(json.dumps({"explanation": "read off the chart", "answer": "A"}))
    server.push(*[good] * 4)  # the first batch (4 items at --concurrency 1) is answered
    server.responder = lambda received: reply("I would [rather] describe the picture in prose.")
    out = tmp_path / "pred.jsonl"
    spec = f"openai:chatty@{server.openai_url}"
    done = run_cli("predict", str(built), "--model", spec, "-o", str(out), "--concurrency", "1")
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: stopped: {spec} cannot be used: 5 replies in a row")
    assert 'the last: "I would [rather] describe the picture in prose."' in last
    assert len(server.requests) == 4 + 5  # the next item's three asks, then two: no more
    assert len(read_jsonl(out)) == 4  # what was answered stays; a re-run asks the rest


def test_unverified_counterparts_are_left_out_unless_asked_for(
    tmp_path: Path, server: ModelServer
) -> None:
    root = tmp_path / "unverified"
    build(BuildConfig(source=str(FIXTURES / "mmmu"), out=str(root), qc="none", limit=3))
    server.responder = answering()
    spec = f"openai:vlm@{server.openai_url}"
    plain = predict(root, spec, tmp_path / "a.jsonl")
    counterparts = sum(1 for r in read_jsonl(root / "data.jsonl") if not r["answerable"])
    assert counterparts and plain.skipped == {"unverified": counterparts}
    every = predict(root, spec, tmp_path / "b.jsonl", include_unverified=True)
    assert every.skipped == {} and every.asked == plain.asked + counterparts


def test_replies_out_of_format_are_refused() -> None:
    assert parse_reply('{"explanation": "x", "answer": "B"}', "base").answer == "B"
    assert parse_reply('{"answer": 40}', "base").response == "Answer: 40"
    for bad in ('{"explanation": "x"}', '{"answer": ""}', "[1]"):
        with pytest.raises(ValueError):
            parse_reply(bad, "base")
    for bad in ('{"answer": "A"}', '{"answer": "A", "confidence": 9}'):
        with pytest.raises(ValueError, match="confidence"):
            parse_reply(bad, "vconf")


def test_the_cli_predicts_resumes_and_refuses_unknown_conditions(
    built: Path, tmp_path: Path, server: ModelServer
) -> None:
    server.responder = answering()
    out = tmp_path / "cli.jsonl"
    args = ("predict", str(built), "--model", f"openai:vlm@{server.openai_url}", "-o", str(out))
    done = run_cli(*args, "--limit", "4")
    assert done.returncode == 0, done.stderr
    assert "predicted base/standard: 4 of 4 asked" in done.stderr
    again = run_cli(*args, "--limit", "4")
    assert again.returncode == 0 and ": 0 of 0 asked (4 already in" in again.stderr
    bad = run_cli(*args, "--condition", "psychic")
    assert bad.returncode == 2 and "--condition 'psychic'" in bad.stderr


# -- servers that ignore the JSON format ----------------------------------------------------


def hidden(received: Received) -> bool:
    """The fixture's counterparts are darkened or masked: a crude reader of what arrives."""
    return any(np.asarray(p.convert("L")).mean() < 90 for p in received.images())


def plain_answering(received: Received):
    """A server that ignores ``response_format``: the method's plain lines, in two styles."""
    if hidden(received):
        return reply(
            f"**Explanation:** the bars are hidden.\n**Final Answer:** {ABSTAIN}\n**Confidence:** 2"
        )
    return reply(
        "EXPLANATION - read off the chart,\nthe tallest bar.\nFINAL ANSWER - A\nconfidence = 4"
    )


def test_plain_text_replies_give_answers_confidences_and_abstentions(
    built: Path, tmp_path: Path, server: ModelServer
) -> None:
    server.responder = plain_answering
    out = tmp_path / "plain.jsonl"
    result = predict(built, f"openai:plain@{server.openai_url}", out, condition="vconf")
    wanted = asked(built)
    assert result.answered == len(wanted) and result.failed == 0
    assert len(server.requests) == len(wanted)  # each read at the first ask
    lines = read_jsonl(out)
    answered = [line for line in lines if line["response"].endswith("\nAnswer: A")]
    abstained = [line for line in lines if line["response"].endswith(ABSTAIN.rstrip("."))]
    assert answered and abstained and len(answered) + len(abstained) == len(lines)
    assert all(line["confidence"] == 4.0 for line in answered)
    assert all(line["confidence"] == 2.0 for line in abstained)
    assert answered[0]["response"] == "read off the chart, the tallest bar.\nAnswer: A"


def test_a_plain_text_verifier_decision_is_read(
    built: Path, tmp_path: Path, server: ModelServer
) -> None:
    from abstain_build.predict.agents import VERIFIER_TASK

    def respond(received: Received):
        if not received.system.startswith(VERIFIER_TASK):
            return reply("FINAL ANSWER - A")  # a Reasoner that always answers
        if hidden(received):
            return reply(
                "DECISION: [ABSTAIN].\nEXPLANATION: the legend is cut off.\n"
                "FINAL_ANSWER: I Don't Know"
            )
        return reply("decision - approve")

    server.responder = respond
    out = tmp_path / "mas.jsonl"
    spec = f"openai:plain@{server.openai_url}"
    result = predict(built, spec, out, system="mas-sequential")
    assert result.failed == 0 and len(server.requests) == 2 * result.asked
    lines = read_jsonl(out)
    overridden = [line for line in lines if line["mas"]["overridden"]]
    assert overridden and len(overridden) < len(lines)
    assert all(line["response"].endswith(f"Answer: {ABSTAIN}") for line in overridden)
    sidecar = read_jsonl(out.with_name("mas.jsonl.replies.jsonl"))
    assert {tuple(row["feedback"]) for row in sidecar} == {("the legend is cut off.",), ("",)}


@pytest.mark.parametrize(
    ("text", "probability"), [("PROBABILITY: 0.7", 0.7), ("probability - 35%", 0.35)]
)
def test_plain_text_probabilities_and_evidence_checks_are_read(
    text: str, probability: float
) -> None:
    from abstain_build.predict.scores import parse_cot_abstention, parse_ptrue

    assert parse_ptrue(text) == probability
    check = parse_cot_abstention(
        "NEEDED: the 2019 value\nSHOWN: the axes\nMISSING - the bars\nFINAL ANSWER - " + ABSTAIN
    )
    assert check.answer == ABSTAIN.rstrip(".")
    assert check.explanation == "Needed: the 2019 value Shown: the axes Missing: the bars"
    for prose in ("I think it is 0.7.", "The answer is B.", "Note: the chart\nis blurry"):
        with pytest.raises(ValueError, match="not a JSON object"):
            parse_ptrue(prose)
        with pytest.raises(ValueError, match="not a JSON object"):
            parse_reply(prose, "base")
