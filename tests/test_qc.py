"""Verification: consensus, model judges and self-check against a real local server, QC in
builds (retries along the routed chain), faults, and the manifest's rates."""

from __future__ import annotations

import io
import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from abstain_build.qc.consensus import consensus
from abstain_build.qc.judges.base import ANSWERABLE, ERROR, UNANSWERABLE, JudgeItem, Verdict
from abstain_build.qc.judges.model_judge import ModelJudge, parse_verdict

from .conftest import FIXTURES, read_jsonl, run_cli
from .model_server import Action, ModelServer, Received, error, garbage, reply, slow

pytestmark = pytest.mark.usefixtures("no_real_keys")


def v(verdict: str) -> Verdict:
    return Verdict("j", verdict, "HIGH" if verdict != ERROR else "", "because", "model")


# -- consensus and the reply format ------------------------------------------------------------


@pytest.mark.parametrize(
    ("verdicts", "status"),
    [
        ((UNANSWERABLE, UNANSWERABLE), "accepted"),
        ((ANSWERABLE, ANSWERABLE), "rejected"),
        ((ANSWERABLE, UNANSWERABLE), "flagged"),
        ((UNANSWERABLE, ERROR), "qc_error"),
        ((UNANSWERABLE,), "qc_error"),
    ],
)
def test_two_valid_verdicts_are_needed_to_accept(verdicts, status) -> None:
    assert consensus([v(x) for x in verdicts]) == status


def test_a_judge_that_read_the_gold_on_the_item_decides_alone() -> None:
    read = Verdict("offline:leak", ANSWERABLE, "HIGH", "readable", "reference", 1.0, "page 4 (ocr)")
    assert consensus([read, v(UNANSWERABLE)]) == "rejected"  # not a split for review
    assert consensus([read, v(ERROR)]) == "rejected"
    unsure = Verdict("offline:leak", ANSWERABLE, "LOW", "survives", "reference", 0.6)
    assert consensus([unsure, v(UNANSWERABLE)]) == "flagged"


def _item(family: str = "evidence_removal", answer: str = "8831") -> JudgeItem:
    from abstain_build.qc.judges.base import Reference

    return JudgeItem(
        id="x",
        axis="evidence_sufficiency",
        question="What was revenue?",
        transform={"name": "t", "family": family},
        reference=Reference(question="What was revenue?", answer=answer, answer_format="Int"),
    )


def test_a_model_judge_giving_the_gold_has_read_it() -> None:
    from abstain_build.qc.verify import graded_answer

    item = _item()
    says = Verdict("model:m", ANSWERABLE, "HIGH", "Page 71 shows $8.8 billion.", "model")
    assert graded_answer(says, item).read_gold
    other = Verdict("model:m", ANSWERABLE, "HIGH", "It shows $9.4 billion.", "model")
    assert not graded_answer(other, item).read_gold
    assert Verdict.from_json(graded_answer(says, item).to_json()).found


def test_a_judge_that_reaches_the_gold_rejects_whatever_verdict_it_states() -> None:
    from abstain_build.qc.verify import graded_answer

    item = _item()
    claims = Verdict("model:m", UNANSWERABLE, "HIGH", "hidden", "model", answer="8,831")
    graded = graded_answer(claims, item)
    assert graded.read_gold and graded.answer_grade == "gold"
    assert consensus([graded, v(UNANSWERABLE)]) == "rejected"
    again = Verdict.from_json(graded.to_json())
    assert again.answer == "8,831" and again.answer_grade == "gold" and again.read_gold
    for answer, grade in (
        ("none", "none"),
        ("I cannot tell from the page", "none"),
        ("9,400", "other"),
    ):
        verdict = Verdict("model:m", UNANSWERABLE, "HIGH", "hidden", "model", answer=answer)
        graded = graded_answer(verdict, item)
        assert graded.answer_grade == grade and not graded.read_gold
        assert consensus([graded, v(UNANSWERABLE)]) == "accepted"


def test_a_caption_item_whose_judge_takes_the_documents_value_is_reconciled_not_leaked() -> None:
    from abstain_build.qc.verify import graded_answer

    item = _item(family="semantic_contradiction")
    verdict = Verdict("model:m", UNANSWERABLE, "MEDIUM", "two values", "model", answer="8831")
    graded = graded_answer(verdict, item)
    assert graded.answer_grade == "reconciled" and not graded.read_gold
    assert consensus([graded, v(UNANSWERABLE)]) == "accepted"


@pytest.mark.parametrize(
    "text",
    [
        "It is answerable.",
        '{"verdict": "maybe", "confidence": "HIGH", "justification": "x"}',
        '{"verdict": "ANSWERABLE", "confidence": "VERY", "justification": "x"}',
        '{"answer": "x", "verdict": "ANSWERABLE", "confidence": "LOW", "justification": ""}',
        '{"verdict": "ANSWERABLE", "confidence": "LOW", "justification": "no answer field"}',
        '{"answer": {"x": 1}, "verdict": "ANSWERABLE", "confidence": "LOW", "justification": "x"}',
    ],
)
def test_a_verdict_outside_the_format_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_verdict(text)


def test_a_model_judge_sees_only_the_perturbed_item(server: ModelServer) -> None:
    dark = np.full((40, 60, 3), 8, np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(dark).save(buffer, format="PNG")
    item = JudgeItem(
        id="x/adaptive_darkness",
        axis="modality_dependency",
        question="What is the tallest bar in <image 1>?",
        options=("North", "South"),
        images=(buffer.getvalue(),),
        transform={"name": "adaptive_darkness"},
    )
    verdict = {
        "answer": "none",
        "verdict": "UNANSWERABLE",
        "confidence": "HIGH",
        "justification": "too dark",
    }
    server.push(reply(json.dumps(verdict)))
    judge = ModelJudge(f"openai:judge@{server.openai_url}")
    try:
        result = judge.judge(item)
    finally:
        judge.close()
    assert (result.verdict, result.confidence, result.kind) == (UNANSWERABLE, "HIGH", "model")
    (received,) = server.requests
    text = " ".join(received.texts())
    assert "tallest bar" in text and "South" in text
    assert "adaptive_darkness" not in text  # never the transform
    (image,) = received.images()
    assert np.asarray(image).max() <= 8  # the darkened pixels, not the original


# -- QC in builds ---------------------------------------------------------------------------------

JUDGE_SYSTEM = "You check test items"


def judge_server(
    decide: Callable[[str, str], str], answer: Callable[[str, str], str] = lambda m, q: "none"
) -> Callable[[Received], Action]:
    """A server whose judge ``model`` rules ``decide(model, question)`` and answers
    ``answer(model, question)``; other prompts (routing's dependency classifier,
    self-checks) are not expected here."""

    def respond(received: Received) -> Action:
        assert JUDGE_SYSTEM in json.dumps(received.body), "only judge requests expected"
        model = received.body["model"]
        question = received.texts()[-1].split("Question:\n", 1)[1].split("\n", 1)[0]
        verdict = decide(model, question)
        return reply(
            json.dumps(
                {
                    "answer": answer(model, question),
                    "verdict": verdict,
                    "confidence": "HIGH",
                    "justification": "seen",
                }
            )
        )

    return respond


def build_with_judges(server: ModelServer, out: Path, *extra: str, source: str = "mmmu"):
    return run_cli(
        "transform",
        str(FIXTURES / source),
        "-o",
        str(out),
        "--qc",
        "judges",
        "--judge",
        f"openai:judge-a@{server.openai_url}",
        "--judge",
        f"openai:judge-b@{server.openai_url}",
        *extra,
    )


def test_accepted_rejected_and_flagged_items_and_the_rates(
    server: ModelServer, tmp_path: Path
) -> None:
    questions = [json.loads(line)["question"] for line in (FIXTURES / "mmmu/samples.jsonl").open()]
    rejected_first = questions[0]  # fixture_chart_bar: both judges answer its first item
    flagged = questions[1]  # fixture_chart_line: the judges disagree on it
    calls: dict[str, int] = {}

    def decide(model: str, question: str) -> str:
        calls[question] = calls.get(question, 0) + 1
        if question == flagged.split("\n")[0]:
            return ANSWERABLE if model == "judge-a" else UNANSWERABLE
        if question == rejected_first.split("\n")[0] and calls[question] <= 2:
            return ANSWERABLE
        return UNANSWERABLE

    server.responder = judge_server(decide)
    out = tmp_path / "out"
    done = build_with_judges(server, out, "-j", "2")
    assert done.returncode == 0, done.stderr
    rows = {r["group_id"]: r for r in read_jsonl(out / "data.jsonl") if r["transform"]}
    assert rows["fixture_chart_line"]["qc"]["status"] == "flagged"
    first = rows["fixture_chart_bar"]
    assert first["qc"]["status"] == "accepted"
    assert len(first["qc"]["rejected"]) == 1  # the first choice, rejected by both judges
    assert first["qc"]["rejected"][0]["transform"] == first["routing"]["candidates"][0]
    assert first["transform"]["name"] != first["routing"]["candidates"][0]
    assert "rejected by QC" in first["routing"]["attempts"][0]["reason"]
    for row in rows.values():
        judges = row["qc"]["judges"]
        assert [j["judge"] for j in judges] == [
            f"model:openai:judge-a@{server.openai_url}",
            f"model:openai:judge-b@{server.openai_url}",
        ]
        assert all(j["kind"] == "model" and j["justification"] == "seen" for j in judges)
    manifest = json.loads((out / "manifest.json").read_text())
    overall = manifest["counts"]["qc"]["overall"]
    assert overall["counts"]["rejected"] == 1 and overall["counts"]["flagged"] == 1
    assert overall["judged"] == len(rows) + 1
    assert "QC decisions" in (out / "README.md").read_text()


@pytest.mark.exhaustive
def test_with_30_percent_faulty_calls_nothing_is_accepted_without_two_verdicts(
    server: ModelServer, tmp_path: Path
) -> None:
    rng = random.Random(3)

    def flaky(received: Received) -> Action:
        roll = rng.random()
        if roll < 0.075:
            return error(500, "boom")
        if roll < 0.15:
            return error(429, "slow down", {"retry-after": "0"})
        if roll < 0.225:
            return slow(3.0)
        if roll < 0.30:
            return garbage()
        return judge_server(lambda model, question: UNANSWERABLE)(received)

    server.responder = flaky
    out = tmp_path / "out"
    done = build_with_judges(server, out, "--model-timeout", "1")
    assert done.returncode in (0, 1), done.stderr
    rows = [r for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    assert rows
    for row in rows:
        status = row["qc"]["status"]
        assert status in ("accepted", "rejected", "flagged", "qc_error")
        if status == "accepted":
            judges = row["qc"]["judges"]
            assert len(judges) == 2 and all(j["verdict"] == UNANSWERABLE for j in judges)
    first_run = len(server.requests)
    again = build_with_judges(server, out, "--model-timeout", "1", "--overwrite")
    assert again.returncode in (0, 1)
    # Verdicts already given come from the cache: only the failed ones are asked again.
    assert len(server.requests) - first_run < first_run / 2


def test_an_unknown_judge_or_a_single_one_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    one = run_cli(
        "transform", str(FIXTURES / "mmmu"), "-o", str(out), "--qc", "judges", "--judge", "x:y"
    )
    assert one.returncode == 2 and "two judges" in one.stderr
    unknown = run_cli(
        "transform",
        str(FIXTURES / "mmmu"),
        "-o",
        str(out),
        "--judge",
        "offline:nope",
        "--judge",
        "offline:leak",
    )
    assert unknown.returncode == 2 and "offline:nope" in unknown.stderr
    assert not out.exists()


# -- abstain-build qc DIR -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def unverified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dataset built without QC: every counterpart ``unverified``."""
    out = tmp_path_factory.mktemp("qc") / "built"
    done = run_cli("transform", str(FIXTURES / "mmmu"), "-o", str(out), "--qc", "none")
    assert done.returncode == 0, done.stderr
    return out


def copy_dataset(source: Path, target: Path) -> Path:
    import shutil

    shutil.copytree(source, target)
    return target


def test_qc_on_a_built_dataset_sets_every_status_and_the_rates(
    server: ModelServer, unverified: Path, tmp_path: Path
) -> None:
    out = copy_dataset(unverified, tmp_path / "ds")
    server.responder = judge_server(lambda model, q: ANSWERABLE if "bar" in q else UNANSWERABLE)
    judges = (
        "--judge",
        f"openai:a@{server.openai_url}",
        "--judge",
        f"openai:b@{server.openai_url}",
    )
    done = run_cli("qc", str(out), *judges, "--json")
    assert done.returncode == 0, done.stderr
    rows = [r for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    assert len(server.requests) == 2 * len(rows)
    for row in rows:
        expected = "rejected" if "bar" in row["question"].split("\n")[0] else "accepted"
        assert row["qc"]["status"] == expected
        assert len(row["qc"]["judges"]) == 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["qc"]["overall"]["judged"] == len(rows)
    assert manifest["models"]["judges"] == [judges[1], judges[3]]
    assert "QC decisions" in (out / "README.md").read_text()
    # A second run finds every verdict in its journal: no call, same data.
    before = (out / "data.jsonl").read_bytes()
    assert run_cli("qc", str(out), *judges).returncode == 0
    assert len(server.requests) == 2 * len(rows)
    assert (out / "data.jsonl").read_bytes() == before
    # The build's journal moved with the rewrite: resuming the build keeps every line.
    again = run_cli("transform", str(FIXTURES / "mmmu"), "-o", str(out), "--qc", "none")
    assert again.returncode == 0, again.stderr
    assert (out / "data.jsonl").read_bytes() == before


def test_verdicts_that_were_errors_are_asked_again_on_the_next_run(
    server: ModelServer, unverified: Path, tmp_path: Path
) -> None:
    """After the judges recover, `qc DIR` said "0 judged now, N from an earlier run" and
    kept every qc_error; only --redo helped. Errors are retried; settled verdicts are not."""
    out = copy_dataset(unverified, tmp_path / "ds")
    judges = (
        "--judge",
        f"openai:a@{server.openai_url}",
        "--judge",
        f"openai:b@{server.openai_url}",
    )
    server.responder = lambda received: Action(status=400, message="overloaded")
    first = run_cli("qc", str(out), *judges)
    rows = [r for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    assert {r["qc"]["status"] for r in rows} == {"qc_error"}, first.stderr
    failed_calls = len(server.requests)
    server.responder = judge_server(lambda model, q: UNANSWERABLE)
    second = run_cli("qc", str(out), *judges, "--json")
    assert second.returncode == 0, second.stderr
    rows = [r for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    assert {r["qc"]["status"] for r in rows} == {"accepted"}
    assert len(server.requests) == failed_calls + 2 * len(rows)
    # Settled now: a third run asks nothing.
    assert run_cli("qc", str(out), *judges).returncode == 0
    assert len(server.requests) == failed_calls + 2 * len(rows)


def test_judges_that_answer_in_prose_stop_qc_and_the_verdicts_so_far_stay(
    server: ModelServer, unverified: Path, tmp_path: Path
) -> None:
    from abstain_build.errors import RunStopped
    from abstain_build.models import ClientOptions
    from abstain_build.pipeline.rerun import QC_JOURNAL, rerun_qc
    from abstain_build.qc.verify import QcSpec, Verifier

    out = copy_dataset(unverified, tmp_path / "ds")
    server.responder = lambda received: reply("It looks answerable to me, the bar is clear.")
    options = ClientOptions(max_unusable_replies=2, concurrency=1)
    judges = (f"openai:a@{server.openai_url}", f"openai:b@{server.openai_url}")
    verifier = Verifier(QcSpec(judges=judges, model_options=options))
    with pytest.raises(RunStopped) as stopped:
        rerun_qc(out, verifier, concurrency=1)
    verifier.close()
    assert 'the last: "It looks answerable to me, the bar is clear."' in str(stopped.value)
    assert len(server.requests) == 2 + 2  # each judge stopped after its second reply
    assert len(read_jsonl(out / "state" / QC_JOURNAL)) == 1  # kept; a re-run asks it again


def test_a_killed_qc_run_resumes_without_asking_any_verdict_twice(
    server: ModelServer, unverified: Path, tmp_path: Path
) -> None:
    import subprocess
    import sys
    import time

    out = copy_dataset(unverified, tmp_path / "ds")
    answer = judge_server(lambda model, q: UNANSWERABLE)

    def slowly(received: Received) -> Action:
        action = answer(received)
        action.delay = 0.3
        return action

    server.responder = slowly
    judges = [
        "--judge",
        f"openai:a@{server.openai_url}",
        "--judge",
        f"openai:b@{server.openai_url}",
    ]
    command = [sys.executable, "-m", "abstain_build", "qc", str(out), *judges, "--concurrency", "1"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = out / "state" / "qc.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_text().count("\n") >= 3:
            break
        time.sleep(0.05)
    process.kill()
    process.wait()
    judged_before = journal.read_text().count("\n")
    assert judged_before >= 3
    done = run_cli("qc", str(out), *judges)
    assert done.returncode == 0, done.stderr
    rows = [r for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    assert all(r["qc"]["status"] == "accepted" for r in rows)
    asked = [
        (r.body["model"], json.dumps(r.body["messages"], sort_keys=True)) for r in server.requests
    ]
    # Each (judge, item) once; a request in flight at the kill is the only possible repeat.
    assert len(asked) - len(set(asked)) <= 2
    assert len(set(asked)) == 2 * len(rows)


def test_the_self_check_rejects_what_the_model_still_answers(
    server: ModelServer, tmp_path: Path
) -> None:
    seen: dict[str, int] = {}

    def respond(received: Received) -> Action:
        body = json.dumps(received.body)
        if '"class"' in received.texts()[-1]:  # routing's image-dependency question
            verdict = {"class": "Essential", "text_sufficiency": 0.1, "image_dependency": 0.9}
            return reply(json.dumps(verdict))
        if "Answer the question from the attached image" in body:  # the self-check
            question = received.texts()[-1]
            seen[question] = seen.get(question, 0) + 1
            sure = seen[question] == 1  # the first item of each sample is still answered
            return reply(
                json.dumps(
                    {
                        "answerable": sure,
                        "answer": "North" if sure else "",
                        "confidence": "HIGH" if sure else "LOW",
                    }
                )
            )
        return judge_server(lambda model, question: UNANSWERABLE)(received)

    server.responder = respond
    # Two samples no listed transform declines (the second fixture asks about "sales
    # trends", which the occlusions leave readable and decline).
    source = tmp_path / "mmmu"
    shutil.copytree(FIXTURES / "mmmu", source)
    lines = (source / "samples.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (source / "samples.jsonl").write_text("".join([lines[0], *lines[2:]]), encoding="utf-8")
    out = tmp_path / "out"
    done = build_with_judges(
        server,
        out,
        "--llm",
        f"openai:vlm@{server.openai_url}",
        "--limit",
        "2",
        "-t",
        "aggressive_crop,aggressive_multi_mask,partial_occlusion,overlay_label_mask",
        source=str(source),
    )
    assert done.returncode == 0, done.stderr
    rows = [r for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    assert len(rows) == 2
    for row in rows:
        assert row["qc"]["status"] == "accepted"
        (rejected,) = row["qc"]["rejected"]
        assert rejected["reason"].startswith("self-check:") and rejected["judges"] == []
        assert json.loads(row["qc"]["self_check"])["answerable"] is False
        assert row["transform"]["name"] != rejected["transform"]


def test_qc_holds_to_the_measured_validity_when_asked_and_re_decides_without_asking(
    server: ModelServer, unverified: Path, tmp_path: Path
) -> None:
    out = copy_dataset(unverified, tmp_path / "ds")
    server.responder = judge_server(lambda model, q: UNANSWERABLE)
    judges = (
        "--judge",
        f"openai:a@{server.openai_url}",
        "--judge",
        f"openai:b@{server.openai_url}",
    )
    recorded = run_cli("qc", str(out), *judges)
    assert recorded.returncode == 0, recorded.stderr
    rows = [r for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    # Model judges without --min-validity: the figures are recorded, not applied.
    assert {r["qc"]["status"] for r in rows} == {"accepted"}
    assert all(r["qc"]["validity"]["applied"] is False for r in rows)
    calls = len(server.requests)
    gated = run_cli("qc", str(out), *judges, "--min-validity", "0.85")
    assert gated.returncode == 0, gated.stderr
    assert len(server.requests) == calls  # the verdicts come from the journal
    for row in (r for r in read_jsonl(out / "data.jsonl") if r["transform"]):
        validity = row["qc"]["validity"]
        assert validity["applied"] is True
        if validity["clears"]:
            assert row["qc"]["status"] == "accepted"
            assert validity["n"] >= 20 and validity["low"] >= 0.85
        else:
            assert row["qc"]["status"] == "flagged" and validity["held"] is True
            assert validity["reason"].startswith(row["transform"]["name"])


def test_judges_that_give_the_gold_while_claiming_unanswerable_get_nothing_accepted(
    server: ModelServer, unverified: Path, tmp_path: Path
) -> None:
    rows = [r for r in read_jsonl(unverified / "data.jsonl") if r["transform"]]
    gold = {r["question"].split("\n")[0]: r["original_answer"] for r in rows}
    judges = (
        "--judge",
        f"openai:a@{server.openai_url}",
        "--judge",
        f"openai:b@{server.openai_url}",
    )

    # Both judges claim UNANSWERABLE; judge a gives the gold as its answer.
    out = copy_dataset(unverified, tmp_path / "liar")
    server.responder = judge_server(
        lambda model, q: UNANSWERABLE, lambda model, q: gold[q] if model == "a" else "none"
    )
    assert run_cli("qc", str(out), *judges).returncode == 0
    judged = [r for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    assert judged and {r["qc"]["status"] for r in judged} == {"rejected"}
    for row in judged:
        first = row["qc"]["judges"][0]
        assert first["answer_grade"] == "gold" and first["found"]

    # Judges that cannot answer let the same items through.
    out = copy_dataset(unverified, tmp_path / "honest")
    server.responder = judge_server(lambda model, q: UNANSWERABLE)
    assert run_cli("qc", str(out), *judges).returncode == 0
    judged = [r for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    assert {r["qc"]["status"] for r in judged} == {"accepted"}
    assert {j["answer_grade"] for r in judged for j in r["qc"]["judges"]} == {"none"}


def test_a_document_judge_is_shown_the_whole_document_and_the_edited_pages(
    server: ModelServer,
) -> None:
    import pymupdf

    pdf = pymupdf.open()
    for number in range(1, 6):
        pdf.new_page().insert_text((72, 72), f"Page {number} says fact {number * 11}.")
    document = pdf.tobytes()
    evidence = pdf[1].get_pixmap(dpi=40).tobytes("png")
    item = JudgeItem(
        id="doc/hide",
        axis="evidence_sufficiency",
        question="What fact does the report give?",
        images=(evidence,),
        document=document,
        pages=(2,),
        transform={"name": "remove_numeric_tokens", "edits": {"regions": [{"page": 4}]}},
    )
    server.push(
        reply(
            json.dumps(
                {
                    "answer": "none",
                    "verdict": UNANSWERABLE,
                    "confidence": "LOW",
                    "justification": "x",
                }
            )
        )
    )
    judge = ModelJudge(f"openai:judge@{server.openai_url}")
    try:
        judge.judge(item)
    finally:
        judge.close()
    (received,) = server.requests
    text = " ".join(received.texts())
    for number in range(1, 6):  # every page's text layer, not only the evidence page
        assert f"fact {number * 11}" in text
    assert "attached images are pages 2, 4" in text
    assert len(received.images()) == 2  # the evidence page and the edited page 4
    assert "remove_numeric_tokens" not in text


def test_qc_judges_by_the_figures_of_the_blind_policy_the_folder_was_built_with(
    unverified: Path, tmp_path: Path
) -> None:
    """A folder built with ``--blind-policy record`` holds evidence edits of questions the
    blind check stops, so QC over it counts their readings too; a default folder's QC
    sets them apart, as its build did."""
    tables = {}
    for policy in ("rewrite", "record"):
        out = copy_dataset(unverified, tmp_path / policy)
        config = out / "state" / "config.json"
        written = json.loads(config.read_text(encoding="utf-8"))
        config.write_text(json.dumps({**written, "blind_policy": policy}), encoding="utf-8")
        done = run_cli("qc", str(out))
        assert done.returncode == 0, done.stderr
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        tables[policy] = manifest["validity"]["table"]
    assert tables["rewrite"]["set_apart"] and not tables["record"]["set_apart"]
