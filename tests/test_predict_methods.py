"""predict's grid, multi-agent systems and abstention baselines, end to end through eval,
against the local OpenAI- and Anthropic-protocol server (scripted replies, images checked
to arrive, log-probabilities served)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from abstain_build.errors import ConfigError
from abstain_build.predict import ANCHORS, grid_paths, predict
from abstain_build.predict.agents import REVISE, VERIFIER_TASK
from abstain_build.predict.pages import page_window
from abstain_build.predict.prompts import ABSTAIN, CLAUSE, FEEDBACK, INSTRUCTION, system_prompt
from abstain_build.predict.scores import COT_ABSTENTION_SYSTEM, PTRUE_SYSTEM

from .conftest import ROOT, read_jsonl, run_cli
from .model_server import ModelServer, Received, reply
from .test_predict import asked

pytestmark = pytest.mark.usefixtures("no_real_keys")


def dark(received: Received) -> bool:
    """The fixture's counterparts are darkened or masked: a crude reader of what arrives."""
    return any(np.asarray(p.convert("L")).mean() < 90 for p in received.images())


def answer(text: str, **extra: object):
    return reply(json.dumps({"explanation": "from the figure", "answer": text, **extra}))


def evaluate_json(dataset: Path, *files: Path) -> dict:
    report = run_cli("eval", str(dataset), *map(str, files), "--json")
    assert report.returncode == 0, report.stderr
    return json.loads(report.stdout)


def test_the_grid_asks_all_six_cells_and_eval_sets_them_side_by_side(
    predict_dataset: Path, tmp_path: Path, server: ModelServer
) -> None:
    def respond(received: Received):
        confidence = (
            {"confidence": 2 if dark(received) else 4} if "confidence" in received.system else {}
        )
        return answer(ABSTAIN if dark(received) else "A", **confidence)

    server.responder = respond
    out = tmp_path / "grid.jsonl"
    args = ["predict", str(predict_dataset), "--model", f"openai:vlm@{server.openai_url}"]
    done = run_cli(
        *args,
        "-o",
        str(out),
        "--grid",
        "--limit",
        "5",
        "--concurrency",
        "2",
        "--temperature",
        "0.3",
    )
    assert done.returncode == 0, done.stderr
    assert {r.body["temperature"] for r in server.requests} == {0.3}
    files = grid_paths(out)
    assert len(files) == 6 and all(path.exists() for path in files.values())
    systems = Counter(r.system for r in server.requests)
    assert len(systems) == 6 and set(systems.values()) == {5}  # six prompts, 5 items each
    for (condition, clause), path in files.items():
        lines = read_jsonl(path)
        assert len(lines) == 5 and {line["method"] for line in lines} == {f"{condition}/{clause}"}
        prompt = system_prompt(condition, clause)
        assert systems[prompt] == 5  # this cell's condition instruction and clause
        assert INSTRUCTION[condition] in prompt and CLAUSE[clause] in prompt
        assert ("confidence" in lines[0]) == (condition == "vconf")
    data = evaluate_json(predict_dataset, *files.values())
    rows = {row["method"]: row for row in data["comparison"]}
    assert set(rows) == {f"{c}/{k}" for c, k in files}
    assert rows["vconf/standard"]["oracle"]["kind"] == "confidence"
    assert rows["base/standard"]["oracle"] is None
    assert len(data["runs"]) == 6 and all(r["items"]["scored"] == 5 for r in data["runs"])


def mas_responder(verifier):
    """The Reasoner answers A on clear images and abstains on dark ones... unless told
    otherwise; ``verifier(received, round_final)`` decides reviews."""

    def respond(received: Received):
        if received.system.startswith(VERIFIER_TASK):
            decisions = received.schema["properties"]["decision"]["enum"]
            return verifier(received, REVISE not in decisions)
        return answer("A")  # a Reasoner that always answers: the Verifier must catch it

    return respond


def test_mas_sequential_lets_the_verifier_override_and_eval_reports_the_rate(
    predict_dataset: Path, tmp_path: Path, server: ModelServer
) -> None:
    def verifier(received: Received, final: bool):
        assert final  # one round: the revision decision is never offered
        decision = "ABSTAIN" if dark(received) else "APPROVE"
        return reply(json.dumps({"decision": decision, "feedback": "the bars are hidden"}))

    server.responder = mas_responder(verifier)
    spec = f"anthropic:c@{server.url}"  # the Verifier's decisions as a forced tool
    out = tmp_path / "mas.jsonl"
    result = predict(predict_dataset, spec, out, system="mas-sequential", concurrency=2)
    wanted = asked(predict_dataset)
    assert result.answered == len(wanted) and result.failed == 0
    assert len(server.requests) == 2 * len(wanted)  # one Reasoner and one Verifier call each
    assert all(len(r.images()) >= 1 for r in server.requests)  # both agents see the evidence
    lines = {line["id"]: line for line in read_jsonl(out)}
    overridden = [i for i, line in lines.items() if line["mas"]["overridden"]]
    assert overridden and all(lines[i]["response"].endswith(ABSTAIN) for i in overridden)
    sidecar = read_jsonl(out.with_name("mas.jsonl.replies.jsonl"))
    assert all([s["step"] for s in row["steps"]] == ["reasoner-1", "verifier-1"] for row in sidecar)
    assert all(row["feedback"] == ["the bars are hidden"] for row in sidecar)
    data = evaluate_json(predict_dataset, out)
    assert data["method"] == "mas-sequential base/standard"
    mas = data["mas"]
    assert mas["reasoner_answered"] == len(wanted) and mas["overridden"] == len(overridden)
    assert mas["override_rate"] == pytest.approx(len(overridden) / len(wanted), abs=1e-6)
    assert data["overall"]["counts"]["TN"] >= mas["overridden_unanswerable"] > 0


def test_mas_iterative_revises_with_feedback_and_always_ends_within_three_rounds(
    predict_dataset: Path, tmp_path: Path, server: ModelServer
) -> None:
    def verifier(received: Received, final: bool):
        if not final:  # asks for a revision whenever it may
            return reply(json.dumps({"decision": "REQUEST_REVISION", "feedback": "look at bar C"}))
        decision = "ABSTAIN" if dark(received) else "APPROVE"
        return reply(json.dumps({"decision": decision, "feedback": "settled"}))

    server.responder = mas_responder(verifier)
    out = tmp_path / "iter.jsonl"
    result = predict(
        predict_dataset, f"openai:vlm@{server.openai_url}", out, system="mas-iterative", limit=4
    )
    assert result.answered == 4
    assert len(server.requests) == 4 * 6  # three rounds of Reasoner + Verifier per item
    reasoners = [r for r in server.requests if not r.system.startswith(VERIFIER_TASK)]
    with_feedback = [r for r in reasoners if FEEDBACK.format(feedback="look at bar C.") in r.system]
    assert len(with_feedback) == 4 * 2  # rounds 2 and 3 carry round 1 and 2's feedback
    lines = read_jsonl(out)
    assert all(line["mas"]["rounds"] == 3 for line in lines)
    assert all(line["mas"]["decisions"][:2] == [REVISE, REVISE] for line in lines)
    data = evaluate_json(predict_dataset, out)
    assert data["mas"]["revised_items"] == 4 and data["mas"]["rounds"] == {"3": 4}


def test_mas_iterative_stops_at_the_first_approval_and_at_a_reasoner_abstention(
    predict_dataset: Path, tmp_path: Path, server: ModelServer
) -> None:
    def respond(received: Received):
        if received.system.startswith(VERIFIER_TASK):
            return reply(json.dumps({"decision": "APPROVE", "feedback": ""}))
        return answer(ABSTAIN if dark(received) else "A")

    server.responder = respond
    out = tmp_path / "iter.jsonl"
    predict(predict_dataset, f"openai:vlm@{server.openai_url}", out, system="mas-iterative")
    lines = read_jsonl(out)
    decisions = Counter(tuple(line["mas"]["decisions"]) for line in lines)
    assert set(decisions) == {("APPROVE",), ("REASONER_ABSTAINED",)}
    assert all(line["mas"]["rounds"] == 1 for line in lines)
    assert len(server.requests) == len(lines) + decisions[("APPROVE",)]


def test_the_anchors_call_no_model_and_score_as_anchors(
    predict_dataset: Path, tmp_path: Path
) -> None:
    files = {anchor: tmp_path / f"{anchor}.jsonl" for anchor in ANCHORS}
    for anchor, out in files.items():
        if anchor == "always-abstain":  # the command line needs no --model for them
            done = run_cli("predict", str(predict_dataset), "--baseline", anchor, "-o", str(out))
            assert done.returncode == 0 and "0 calls" in done.stderr, done.stderr
        else:
            assert predict(predict_dataset, None, out, baseline=anchor).calls == 0
    # As from `eval DATASET preds/*.jsonl`: the sidecars of raw replies are left out.
    sidecars = [out.with_name(out.name + ".replies.jsonl") for out in files.values()]
    paths = [*map(str, files.values()), *map(str, sidecars)]
    report = run_cli("eval", str(predict_dataset), *paths, "--json")
    assert report.returncode == 0 and "not scored: 3 sidecar file(s)" in report.stderr
    data = json.loads(report.stdout)
    rows = {row["method"]: row for row in data["comparison"]}
    assert set(rows) == set(ANCHORS) and all(row["anchor"] for row in rows.values())
    always, never, chance = (rows[anchor] for anchor in ANCHORS)
    assert always["AR"]["value"] == 1 and always["UAC"]["value"] == 1 and always["MCC"] is None
    assert never["AR"]["value"] == 0 and never["UAC"]["value"] == 0
    assert 0 < chance["AR"]["value"] < 1


def test_the_random_anchor_is_the_same_for_a_seed_and_differs_across_seeds(
    predict_dataset: Path, tmp_path: Path
) -> None:
    def run(seed: int, name: str, limit: int | None = None) -> list[dict]:
        out = tmp_path / name
        predict(predict_dataset, None, out, baseline="random-abstain", seed=seed, limit=limit)
        return read_jsonl(out)

    first, again, other = run(7, "a.jsonl"), run(7, "b.jsonl"), run(8, "c.jsonl")
    assert first == again and first != other
    # An item's draw does not depend on which items came before it (resume, --limit).
    assert run(7, "d.jsonl", limit=3) == first[:3]
    abstained = sum(line["response"].endswith(ABSTAIN) for line in first)
    assert 0 < abstained < len(first)


def test_self_consistency_answers_only_with_a_strict_majority(
    predict_dataset: Path, tmp_path: Path, server: ModelServer
) -> None:
    """Per question, the 10 samples' answers are scripted: 6 x 'A' in three spellings and
    4 x 'B' is a majority (the grader reads '(A)' and 'Option A' as A); 5 against 5 is not;
    6 abstentions abstain. Other questions always get 'A'."""
    questions = list(dict.fromkeys(r["question"] for r in asked(predict_dataset)))[:3]
    plans = dict(
        zip(
            questions,
            [
                ["A", "(A)", "Option A", "A", "A", "A", "B", "B", "B", "B"],
                ["A"] * 5 + ["B"] * 5,
                [ABSTAIN] * 6 + ["C"] * 4,
            ],
            strict=True,
        )
    )
    seen: Counter[tuple[str, bytes]] = Counter()

    def respond(received: Received):
        assert received.body["temperature"] == 0.7
        question = received.texts()[0].split("\n")[1]
        item = (question, received.images()[0].tobytes())  # one counter per item
        seen[item] += 1
        return answer(plans.get(question, ["A"] * 10)[seen[item] - 1])

    server.responder = respond
    out = tmp_path / "sc.jsonl"
    spec = f"openai:vlm@{server.openai_url}"
    result = predict(predict_dataset, spec, out, baseline="self-consistency")
    assert result.failed == 0 and len(server.requests) == 10 * result.answered
    lines = {line["id"]: line for line in read_jsonl(out)}
    by_question = defaultdict(list)
    for record in asked(predict_dataset):
        by_question[record["question"]].append(lines[record["id"]])
    majority, split, abstaining = (by_question[q] for q in questions)
    assert all(x["votes"]["majority"] == 6 and x["response"].endswith("A") for x in majority)
    assert all(x["votes"]["groups"] == [5, 5] and x["response"].endswith(ABSTAIN) for x in split)
    assert all(x["votes"]["abstained"] == 6 and x["response"].endswith(ABSTAIN) for x in abstaining)
    data = evaluate_json(predict_dataset, out)
    assert data["method"] == "self-consistency" and data["items"]["scored"] == len(lines)
    assert data["overall"]["AR"]["value"] == pytest.approx(
        sum(line["response"].endswith(ABSTAIN) for line in lines.values()) / len(lines)
    )
    # The samples are ten distinct cache entries: a rerun asks nothing.
    before = len(server.requests)
    again = predict(
        predict_dataset, spec, out, baseline="self-consistency", limit=3, overwrite=True
    )
    assert again.answered == 3 and len(server.requests) == before


def test_ptrue_rates_the_base_answer_and_eval_sweeps_the_probability(
    predict_dataset: Path, tmp_path: Path, server: ModelServer
) -> None:
    def respond(received: Received):
        if received.system == PTRUE_SYSTEM:
            assert "Proposed answer:\nA" in received.texts()[0] and received.images()
            return reply(json.dumps({"probability": 0.2 if dark(received) else 0.9}))
        assert CLAUSE["standard"] in received.system and received.body["temperature"] == 0.1
        return answer("A")

    server.responder = respond
    out = tmp_path / "ptrue.jsonl"
    predict(predict_dataset, f"openai:vlm@{server.openai_url}", out, baseline="ptrue")
    lines = read_jsonl(out)
    assert {line["probability"] for line in lines} == {0.2, 0.9}
    assert len(server.requests) == 2 * len(lines)
    data = evaluate_json(predict_dataset, out)
    sweep = data["probability_sweep"]
    assert sweep["with_probability"] == len(lines)
    # Low ratings on the dark counterparts: the oracle abstains below 0.9 and beats answering.
    assert sweep["oracle"]["tau"] == 0.9
    assert sweep["oracle"]["UAC"]["value"] > data["overall"]["UAC"]["value"]
    assert sweep["rc_auc"] is not None and sweep["rc_auc"] > 0.5


def test_maxprob_reads_the_answer_tokens_probability_and_eval_gives_rc_auc(
    predict_dataset: Path, tmp_path: Path, server: ModelServer
) -> None:
    def respond(received: Received):
        assert received.body.get("logprobs") is True and received.body["top_logprobs"] == 1
        action = answer("A")
        action.logprob = -1.5 if dark(received) else -0.01
        return action

    server.responder = respond
    out = tmp_path / "maxprob.jsonl"
    predict(predict_dataset, f"openai:vlm@{server.openai_url}", out, baseline="maxprob")
    lines = read_jsonl(out)
    # The answer "A" is one token: its probability, not the whole reply's.
    assert sorted({line["probability"] for line in lines}) == [
        pytest.approx(np.exp(-1.5), abs=1e-6),
        pytest.approx(np.exp(-0.01), abs=1e-6),
    ]
    sidecar = read_jsonl(out.with_name("maxprob.jsonl.replies.jsonl"))
    assert {row["span"] for row in sidecar} == {"answer"}
    data = evaluate_json(predict_dataset, out)
    assert data["probability_sweep"]["rc_auc"] is not None
    # Served again from the cache, log-probabilities included.
    before = len(server.requests)
    again = predict(
        predict_dataset, f"openai:vlm@{server.openai_url}", out, baseline="maxprob", overwrite=True
    )
    assert len(server.requests) == before and read_jsonl(out) == lines and again.calls == 0


def test_maxprob_is_not_available_without_log_probabilities(
    predict_dataset: Path, tmp_path: Path, server: ModelServer
) -> None:
    server.responder = lambda received: answer("A")
    server.logprobs_supported = False
    spec = f"openai:vlm@{server.openai_url}"
    with pytest.raises(ConfigError, match=r"sent no token log-probabilities.*not available"):
        predict(predict_dataset, spec, tmp_path / "m.jsonl", baseline="maxprob")
    args = ["predict", str(predict_dataset), "--baseline", "maxprob", "-o", str(tmp_path / "m")]
    anthropic = run_cli(*args, "--model", f"anthropic:c@{server.url}")
    assert anthropic.returncode == 2 and "Anthropic's API does not return" in anthropic.stderr
    assert "not available" in anthropic.stderr


def test_cot_abstention_takes_stock_of_the_evidence_before_deciding(
    predict_dataset: Path, tmp_path: Path, server: ModelServer
) -> None:
    def respond(received: Received):
        assert received.system == COT_ABSTENTION_SYSTEM and received.images()
        missing = "the values are hidden" if dark(received) else "nothing"
        body = {
            "needed": "the bar heights",
            "shown": "a chart",
            "missing": missing,
            "answer": ABSTAIN if dark(received) else "A",
        }
        return reply(json.dumps(body))

    server.responder = respond
    out = tmp_path / "cot.jsonl"
    predict(predict_dataset, f"openai:vlm@{server.openai_url}", out, baseline="cot-abstention")
    lines = read_jsonl(out)
    assert all(line["response"].startswith("Needed: the bar heights") for line in lines)
    data = evaluate_json(predict_dataset, out)
    assert data["method"] == "cot-abstention"
    assert data["overall"]["counts"]["TN"] > 0 and data["overall"]["counts"]["FN"] == 0


def test_a_killed_run_resumes_where_it_stopped_and_sums_its_cost(
    predict_dataset: Path, tmp_path: Path, server: ModelServer
) -> None:
    approving = mas_responder(
        lambda received, final: reply(json.dumps({"decision": "APPROVE", "feedback": ""}))
    )

    def slow(received: Received):
        action = approving(received)
        action.delay = 0.15
        return action

    server.responder = slow
    out = tmp_path / "killed.jsonl"
    command = [
        sys.executable,
        "-m",
        "abstain_build",
        "predict",
        str(predict_dataset),
        "--model",
        f"openai:vlm@{server.openai_url}",
        "-o",
        str(out),
        "--concurrency",
        "1",
        "--system",
        "mas-sequential",
        "--price",
        "2,10",
    ]
    env = {**os.environ, "OPENAI_API_KEY": "test"}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (out.exists() and out.read_text().count("\n") >= 4):
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    first = read_jsonl(out)
    assert 4 <= len(first) < len(asked(predict_dataset))
    server.responder = approving
    calls_before = len(server.requests)
    done = run_cli(*command[3:])
    assert done.returncode == 0, done.stderr
    lines = read_jsonl(out)
    ids = [line["id"] for line in lines]
    assert len(ids) == len(set(ids)) == len(asked(predict_dataset))
    assert lines[: len(first)] == first  # nothing already written is lost or rewritten
    # Items already answered are not asked again (two calls per remaining item, at most
    # one more Reasoner reply the kill left unsaved comes from the cache).
    assert len(server.requests) - calls_before <= 2 * (len(ids) - len(first))
    summary = json.loads(out.with_name("killed.jsonl.summary.json").read_text())
    sidecar = read_jsonl(out.with_name("killed.jsonl.replies.jsonl"))
    assert summary["calls"] == sum(row["calls"] for row in sidecar)
    billed = summary["billed_input_tokens"] * 2 + summary["billed_output_tokens"] * 10
    assert summary["cost_usd"] == pytest.approx(billed / 1e6)
    assert summary["items_asked"] == len(ids) and summary["items_failed"] == 0


@pytest.mark.parametrize(
    ("count", "evidence", "cap", "expected"),
    [
        (5, [2], 20, [1, 2, 3, 4, 5]),  # short documents are shown whole
        (50, [30], 5, [28, 29, 30, 31, 32]),  # centred on the evidence
        (50, [2], 5, [1, 2, 3, 4, 5]),  # not before page 1
        (50, [50], 5, [46, 47, 48, 49, 50]),  # nor after the last page
        (50, [10, 12], 5, [9, 10, 11, 12, 13]),
        (50, [10, 40], 5, [10, 11, 12, 13, 14]),  # wider than the cap: from the first
    ],
)
def test_the_page_window_keeps_the_evidence_in_view(
    count: int, evidence: list[int], cap: int, expected: list[int]
) -> None:
    assert page_window(count, evidence, cap) == expected


def test_whole_documents_are_shown_up_to_the_cap_and_only_where_the_build_checked_them(
    fixture_builds: dict[str, Path], tmp_path: Path, server: ModelServer
) -> None:
    root = fixture_builds["mmlongbench-doc"]
    server.responder = lambda received: answer("2158.7")
    out = tmp_path / "doc.jsonl"
    spec = f"openai:vlm@{server.openai_url}"
    predict(root, spec, out, pages="document", max_pages=3, limit=4, concurrency=1)
    first = read_jsonl(root / "data.jsonl")[0]
    with pymupdf.open(root / first["document"]) as document:
        count = document.page_count
    shown = page_window(count, first["evidence_pages"], 3)
    assert count > 3 and len(shown) == 3
    request = server.requests[0]
    assert len(request.images()) == len(shown)
    assert f"pages {', '.join(map(str, shown))} of the document" in request.texts()[0]
    # A build whose counterparts were verified on their evidence pages alone is refused.
    narrow = tmp_path / "narrow"
    shutil.copytree(root, narrow)
    records = [{**r, "context": "pages"} for r in read_jsonl(narrow / "data.jsonl")]
    (narrow / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(ConfigError, match="verified on their evidence pages only"):
        predict(narrow, spec, tmp_path / "x.jsonl", pages="document")
    predict(narrow, spec, tmp_path / "y.jsonl", pages="evidence", limit=1)  # still fine
