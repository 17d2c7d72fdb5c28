"""LLM mode of the question rewrites, against a real HTTP server on 127.0.0.1.

The server plays the rewriting model: it answers the transform's prompt with scripted
candidates, so the tests can check what the model is shown, that every candidate still
goes through the gates, that a rejected batch is sent back with its reasons, and what a
build records and caches.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from abstain_build.errors import SampleError
from abstain_build.loaders import open_source
from abstain_build.media.inputs import SampleInputs
from abstain_build.model import Sample
from abstain_build.models import ClientOptions, ModelClient
from abstain_build.pipeline.apply import run_transform
from abstain_build.preview import preview
from abstain_build.rewrites.llm import build_request, character_limit, reply_parser
from abstain_build.rewrites.prompts import PROMPTS
from abstain_build.transforms import NotApplicable, get_registry

from .conftest import FIXTURES, read_jsonl, run_cli
from .model_server import Action, ModelServer, Received, error, reply

pytestmark = pytest.mark.usefixtures("no_real_keys")

SECRET = "sk-test-5f1e9a7c2b8d4e6f0a1b3c5d"
#: Passes all three gates for any short fixture question with one image.
GOOD = "What did the weather feel like on the day {img} was made?"
GOOD_NOTE = "The report gives a completely different figure for this."


def fixture_samples(dataset: str) -> list[Sample]:
    return [s for s in open_source(str(FIXTURES / dataset)) if isinstance(s, Sample)]


def first_mmmu() -> Sample:
    return fixture_samples("mmmu")[0]


def client_for(server: ModelServer, cache: Path | None = None) -> ModelClient:
    return ModelClient(f"openai:rewriter@{server.openai_url}", ClientOptions(cache_path=cache))


def candidates(*texts: str, key: str = "rewrites") -> Action:
    return reply(json.dumps({key: list(texts)}))


def question_shown(received: Received) -> str:
    return received.texts()[-1].split("Question:\n", 1)[1].split("\n\n", 1)[0]


def good_rewriter(received: Received) -> Action:
    """A model that always has one good candidate after a paraphrase of the question (finds
    every question Partial when routing asks, and cannot answer a rewrite in the self-check)."""
    prompt = received.texts()[-1]
    if '"class"' in prompt:
        verdict = {"class": "Partial", "text_sufficiency": 0.7, "image_dependency": 0.4}
        return reply(json.dumps(verdict))
    if '"answerable"' in prompt:  # QC's self-check: the model cannot answer the rewrite
        return reply(json.dumps({"answerable": False, "answer": "", "confidence": "LOW"}))
    if '"notes"' in prompt:
        return candidates(GOOD_NOTE, key="notes")
    question = question_shown(received)
    images = " and ".join(dict.fromkeys(re.findall(r"<image \d+>", question)))
    return candidates(question, GOOD.format(img=images or "the figure"))


def rewrite(name: str, sample: Sample, client: ModelClient):
    transform = get_registry().get(name)()
    return run_transform(transform, sample, SampleInputs(sample), 7, llm=client)


# -- the request and the reply format -------------------------------------------------------


def test_the_prompt_states_the_rules_and_hides_the_answer_unless_it_must_be_contradicted():
    question = "<image 1> Which valve of <image 2> opens first?"
    options = ["The left valve", "The right valve"]
    plain = build_request(
        PROMPTS["ambiguous_reference"], question, options, answer="The left valve"
    )
    assert question in plain.text and "B. The right valve" in plain.text
    assert f"at most {int(1.2 * len(question))} characters" in plain.text
    assert "<image 1>, <image 2>" in plain.text
    assert "Gold answer" not in plain.text
    assert plain.purpose == "rewrite:" + PROMPTS["ambiguous_reference"].id

    note = build_request(
        PROMPTS["contradictory_caption"], "What was the 2020 revenue?", answer="$4.2 million"
    )
    assert "Gold answer" in note.text and "$4.2 million" in note.text
    assert '{"notes": [' in note.text
    assert character_limit(PROMPTS["contradictory_caption"], "What was the 2020 revenue?") == 60


@pytest.mark.parametrize(
    "text",
    [
        "Sure! Here is the rewrite: What is it?",
        '{"rewrite": "What is it?"}',
        '{"rewrites": []}',
        '{"rewrites": [3, 4]}',
        '{"rewrites": ["  "]}',
        '["What is it?"]',
    ],
)
def test_replies_outside_the_format_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        reply_parser(PROMPTS["missing_context"])(text)


def test_fenced_json_is_read_and_duplicates_dropped() -> None:
    parse = reply_parser(PROMPTS["missing_context"])
    assert parse('```json\n{"rewrites": ["What  is it?", "What is it?", "Why?"]}\n```') == [
        "What is it?",
        "Why?",
    ]


# -- one transform, one sample ----------------------------------------------------------------


def test_a_model_rewrite_is_kept_only_when_it_passes_the_gates(server: ModelServer) -> None:
    sample = first_mmmu()
    good = GOOD.format(img="<image 1>")
    server.push(candidates(sample.question, good))
    with client_for(server) as client:
        output = rewrite("image_question_mismatch", sample, client)
    assert output.question == good
    record = output.record
    assert record.mode == "llm"
    assert record.rewrite.generator == f"llm:{client.label}"
    assert record.rewrite.template == PROMPTS["image_question_mismatch"].id
    assert record.rewrite.attempts == 2  # the paraphrase came first and failed
    assert [g.name for g in record.rewrite.gates] == ["length", "grammar", "semantic"]
    assert all(g.passed for g in record.rewrite.gates)
    assert record.rewrite.model is not None and record.rewrite.model.requests == 1
    assert any("semantic" in note for note in record.notes)
    (received,) = server.requests
    assert len(received.images()) == len(sample.images)
    assert sample.question in received.texts()[-1]
    assert all(option in received.texts()[-1] for option in sample.options)
    assert "Gold answer" not in received.texts()[-1]


def test_rejected_candidates_go_back_to_the_model_with_the_reasons(server: ModelServer) -> None:
    sample = first_mmmu()
    server.push(candidates(sample.question), candidates(GOOD.format(img="<image 1>")))
    with client_for(server) as client:
        output = rewrite("missing_context", sample, client)
    assert output.record.rewrite.model.requests == 2
    assert output.record.rewrite.attempts == 2
    retry = server.requests[1].texts()[-1]
    assert "rejected" in retry
    assert json.dumps(sample.question) in retry and "semantic" in retry


def test_no_passing_rewrite_is_not_applicable_after_the_configured_requests(
    server: ModelServer,
) -> None:
    sample = first_mmmu()
    server.responder = lambda received: candidates(question_shown(received))
    transform = get_registry().get("nonexistent_reference")(llm_calls=3)
    with client_for(server) as client, pytest.raises(NotApplicable) as raised:
        run_transform(transform, sample, SampleInputs(sample), 7, llm=client)
    assert client.label in str(raised.value) and "gates" in str(raised.value)
    assert len(server.requests) == 3


def test_a_model_that_never_follows_the_format_is_a_sample_error(server: ModelServer) -> None:
    sample = first_mmmu()
    server.responder = lambda received: reply("Here is a harder question: why?")
    with client_for(server) as client, pytest.raises(SampleError) as raised:
        rewrite("contradictory_premise", sample, client)
    assert raised.value.stage == "model" and "no parseable reply" in str(raised.value)
    assert len(server.requests) == 3  # the first ask and two re-asks


def test_a_contradicting_note_sees_the_evidence_pages_and_the_gold_answer(
    server: ModelServer,
) -> None:
    sample = next(s for s in fixture_samples("mmlongbench-doc") if s.answer.strip())
    server.push(candidates(GOOD_NOTE, key="notes"))
    with client_for(server) as client:
        output = rewrite("contradictory_caption", sample, client)
    assert output.question == f"{sample.question.strip()} {GOOD_NOTE}"
    (received,) = server.requests
    assert len(received.images()) == len(sample.evidence_pages)
    assert (
        f"Gold answer (for you only; the note must contradict it): {sample.answer}"
        in (received.texts()[-1])
    )


# -- builds and previews ------------------------------------------------------------------------


def test_a_build_in_llm_mode_records_usage_caches_replies_and_never_writes_the_key(
    server: ModelServer, tmp_path: Path
) -> None:
    server.responder = good_rewriter
    out = tmp_path / "out"
    spec = f"openai:rewriter@{server.openai_url}"
    args = (
        "transform",
        str(FIXTURES / "mmmu"),
        "-o",
        str(out),
        "-t",
        "image_question_mismatch,multiple_correct_answers",
        "--llm",
        spec,
        "-j",
        "2",
    )
    first = run_cli(*args, env={"OPENAI_API_KEY": SECRET})
    assert first.returncode == 0, first.stderr
    rows = read_jsonl(out / "data.jsonl")
    rewrites = [r for r in rows if r["transform"]]
    assert rewrites and all(r["transform"]["mode"] == "llm" for r in rewrites)
    # Routing asked the same model for each question's image dependency.
    assert all(r["routing"]["classifier"] == f"llm:{spec}" for r in rewrites)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["models"]["llm"] == f"openai:rewriter@{server.openai_url}"
    (usage,) = manifest["models"]["usage"]
    assert usage["requests"] == usage["calls"] == len(server.requests) > 0
    assert "Model calls" in (out / "README.md").read_text()
    for path in [*out.rglob("*")]:
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in first.stdout + first.stderr

    sent = len(server.requests)
    again = run_cli(*args, "--overwrite", env={"OPENAI_API_KEY": SECRET})
    assert again.returncode == 0, again.stderr
    assert len(server.requests) == sent  # every reply came from the kept cache
    assert read_jsonl(out / "data.jsonl") == rows
    (usage,) = json.loads((out / "manifest.json").read_text())["models"]["usage"]
    assert usage["calls"] == 0 and usage["cache_hits"] == usage["requests"] > 0


@pytest.mark.exhaustive  # test_probe: a refused key stops the run before anything is built
def test_a_refused_key_stops_the_run_and_the_same_command_resumes(
    server: ModelServer, tmp_path: Path
) -> None:
    server.responder = lambda received: error(401, "invalid api key")
    out = tmp_path / "out"
    args = (
        "transform",
        str(FIXTURES / "mmmu"),
        "-o",
        str(out),
        "-t",
        "missing_context",
        "--llm",
        f"openai:rewriter@{server.openai_url}",
    )
    stopped = run_cli(*args, env={"OPENAI_API_KEY": SECRET})
    assert stopped.returncode == 2
    assert "stopped" in stopped.stderr and "re-run" in stopped.stderr
    assert SECRET not in stopped.stderr
    assert len(server.requests) == 1  # no call after the refusal
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    assert not read_jsonl(out / "data.jsonl")

    server.responder = good_rewriter
    resumed = run_cli(*args, env={"OPENAI_API_KEY": SECRET})
    assert resumed.returncode == 0, resumed.stderr
    rows = read_jsonl(out / "data.jsonl")
    assert len([r for r in rows if not r["transform"]]) == len(fixture_samples("mmmu"))


def test_a_model_that_answers_in_prose_stops_the_run_after_five_replies_quoting_one(
    server: ModelServer, tmp_path: Path
) -> None:
    """It passes the probe, then no reply parses: exit 2 and one line, not an empty build."""
    server.responder = lambda received: reply("Sure! The chart shows a steady rise in sales.")
    out = tmp_path / "out"
    done = run_cli(
        "transform", str(FIXTURES / "mmmu"), "-o", str(out), "-t", "missing_context",
        "--limit", "3", "--concurrency", "1", "--llm", f"openai:chatty@{server.openai_url}",
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: stopped: openai:chatty@{server.openai_url} cannot be used")
    assert (
        '5 replies in a row were not in the format asked for; the last: "Sure! The chart shows'
        ' a steady rise in sales."'
    ) in last
    assert "re-run the same command to resume" in last
    assert len(server.requests) == 5  # none after the fifth
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"


def test_a_missing_key_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_cli(
        "transform", str(FIXTURES / "mmmu"), "-o", str(out), "--llm", "openai:gpt-4o-mini"
    )
    assert result.returncode == 2
    assert "OPENAI_API_KEY is not set" in result.stderr
    assert not out.exists()


def test_preview_shows_the_model_rewrite_and_caches_it(server: ModelServer, tmp_path: Path) -> None:
    server.responder = good_rewriter
    sample = first_mmmu()
    spec = f"openai:rewriter@{server.openai_url}"
    kwargs = {"transforms": ["impossible_visual_task"], "llm": spec}
    result = preview(FIXTURES / "mmmu", sample.id, tmp_path / "p", **kwargs)
    (item,) = result.items
    assert item.status == "ok" and item.output.record.mode == "llm"
    page = result.index.read_text()
    assert "Rewrite and gates" in page and f"llm:{spec}" in page
    sent = len(server.requests)
    preview(FIXTURES / "mmmu", sample.id, tmp_path / "p", **kwargs)
    assert len(server.requests) == sent


@pytest.mark.exhaustive
def test_a_samples_rewrites_are_asked_for_together_and_counted_once(
    server: ModelServer, tmp_path: Path
) -> None:
    def slow_rewriter(received: Received) -> Action:
        action = good_rewriter(received)
        action.delay = 0.2
        return action

    server.responder = slow_rewriter
    names = "image_question_mismatch,missing_context,impossible_visual_task,ambiguous_reference"
    outputs = {}
    for concurrency in (4, 1):
        out = tmp_path / f"c{concurrency}"
        result = run_cli(
            "transform",
            str(FIXTURES / "mmmu"),
            "-o",
            str(out),
            "-t",
            names,
            "--limit",
            "2",
            "--no-routing",
            "--llm",
            f"openai:rewriter@{server.openai_url}",
            "--concurrency",
            str(concurrency),
        )
        assert result.returncode == 0, result.stderr
        (usage,) = json.loads((out / "manifest.json").read_text())["models"]["usage"]
        assert usage["requests"] == usage["calls"] + usage["cache_hits"]
        outputs[concurrency] = read_jsonl(out / "data.jsonl")
        if concurrency == 4:
            assert server.max_in_flight >= 3  # one worker, four rewrites in flight together
            assert usage["calls"] == len(server.requests)  # no request counted twice
    assert outputs[4] == outputs[1]


def test_every_builtin_rewrite_has_a_prompt_and_transforms_show_names_it() -> None:
    from abstain_build.transforms.rewrite_base import RewriteTransform

    registry = get_registry()
    rewrites = [n for n in registry.names() if issubclass(registry.get(n), RewriteTransform)]
    assert sorted(rewrites) == sorted(PROMPTS)
    shown = run_cli("transforms", "show", "contradictory_caption", "--json")
    assert shown.returncode == 0, shown.stderr
    prompt = json.loads(shown.stdout)["rewrite"]["llm_prompt"]
    assert prompt["id"] == PROMPTS["contradictory_caption"].id


def test_a_plugin_rewrite_brings_its_own_prompt(server: ModelServer) -> None:
    from abstain_build.model import MODALITY
    from abstain_build.transforms import Candidate, RewritePrompt, RewriteTransform

    class AskForColour(RewriteTransform):  # not registered: used directly
        name = "ask_for_colour"
        family = "semantic_unanswerability"
        axis = MODALITY
        target = "question"
        prompt = RewritePrompt("ask_for_colour", 3, "Ask for a colour a grayscale image hides.")

        def candidates(self, ctx):
            return [Candidate("What colour is the tallest bar in <image 1>, exactly?", "c/v1")]

    sample = first_mmmu()
    offline = run_transform(AskForColour(), sample, SampleInputs(sample), 1)
    assert offline.record.rewrite.template == "c/v1" and offline.record.mode == "template"
    server.responder = good_rewriter
    with client_for(server) as client:
        online = run_transform(AskForColour(), sample, SampleInputs(sample), 1, llm=client)
    assert online.record.rewrite.template == "ask_for_colour/v3.1"
    assert (
        server.requests[0].texts()[-1].startswith("Task: Ask for a colour a grayscale image hides.")
    )
