"""Before anything is built, every model the run names is asked one small question (and
shown one small picture where its role needs images): an endpoint that cannot serve stops
the run at once with one line saying which and what to do."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from .conftest import FIXTURES, SHARED_DATA, run_cli
from .model_server import ModelServer, Received, error, reply

KEY = {"OPENAI_API_KEY": "sk-probe"}


def transform(out: Path, *flags: str):
    return run_cli(
        "transform", str(FIXTURES / "mmmu"), "-o", str(out), "-t", "aggressive_multi_mask",
        "--limit", "2", *flags, env=KEY,
    )  # fmt: skip


def one_line_and_nothing_built(done, out: Path, *fragments: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    data = out / "data.jsonl"
    assert not data.exists() or data.stat().st_size == 0
    assert not (out / "assets").exists() or not any((out / "assets").rglob("*.png"))


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_closed_port_stops_the_run_before_building(tmp_path: Path, no_real_keys: None) -> None:
    spec = f"openai:vlm@http://127.0.0.1:{closed_port()}/v1"
    done = transform(tmp_path / "out", "--llm", spec)
    one_line_and_nothing_built(done, tmp_path / "out", "--llm", "cannot reach", "start the server")


@pytest.mark.parametrize(
    ("status", "message", "says"),
    [
        (401, "invalid api key", "the key was refused"),
        (404, "The model `vlm` does not exist", "does not know model 'vlm'"),
    ],
)
def test_a_refused_key_or_an_unknown_model_is_said_at_once(
    server: ModelServer, tmp_path: Path, no_real_keys: None, status: int, message: str, says: str
) -> None:
    server.answer_probes = False
    server.responder = lambda received: error(status, message)
    done = transform(tmp_path / "out", "--llm", f"openai:vlm@{server.openai_url}")
    one_line_and_nothing_built(done, tmp_path / "out", says)
    assert len(server.requests) <= 2  # the probe fails fast: no retry storm


def text_only(received: Received):
    """llama.cpp's server with a text-only model: HTTP 500 for any request with an image."""
    if received.images():
        return error(500, "can only concatenate str (not 'list') to str")
    return reply("OK")


def test_a_text_only_model_is_refused_where_images_are_needed(
    server: ModelServer, tmp_path: Path, no_real_keys: None
) -> None:
    server.answer_probes = False
    server.responder = text_only
    spec = f"openai:smol@{server.openai_url}"
    other = f"openai:smol-b@{server.openai_url}"
    done = transform(tmp_path / "judged", "--qc", "judges", "--judge", spec, "--judge", other)
    one_line_and_nothing_built(done, tmp_path / "judged", "--judge", "needs a model that reads")
    # The blind check is text only: the same model serves it.
    done = transform(tmp_path / "blind", "--blind-gate", spec)
    assert done.returncode == 0, done.stderr


def test_probes_are_cached_with_the_replies(
    server: ModelServer, tmp_path: Path, no_real_keys: None
) -> None:
    server.responder = lambda received: reply("UNKNOWN")
    spec = f"openai:blind@{server.openai_url}"
    assert transform(tmp_path / "out", "--blind-gate", spec).returncode == 0
    assert len(server.probes) == 1  # text only: no picture asked for
    assert transform(tmp_path / "out", "--blind-gate", spec).returncode == 0  # resumed
    assert len(server.probes) == 1


def test_judges_that_never_answer_fail_the_run_and_the_same_judge_twice_is_warned_of(
    server: ModelServer, tmp_path: Path, no_real_keys: None
) -> None:
    server.responder = lambda received: error(400, "bad request")  # probes still pass
    spec = f"openai:judge@{server.openai_url}"
    done = transform(tmp_path / "out", "--qc", "judges", "--judge", spec, "--judge", spec)
    assert done.returncode == 1, done.stderr
    assert "every QC verdict was qc_error" in done.stderr
    assert "the same judge is given twice" in done.stderr


def test_classify_with_a_dead_model_stops_instead_of_falling_back(tmp_path: Path) -> None:
    spec = f"openai:vlm@http://127.0.0.1:{closed_port()}/v1"
    done = run_cli("classify", str(FIXTURES / "mmmu"), "--llm", spec, env=KEY)
    assert done.returncode == 2 and "cannot reach" in done.stderr, done.stderr


def test_classify_probes_for_images_only_where_the_records_have_them(
    server: ModelServer, no_real_keys: None
) -> None:
    # A text-only server (llama.cpp with a text model): HTTP 500 to any request with images.
    def text_only(received: Received):
        if received.images():
            return error(500, "can only concatenate str (not 'list') to str")
        return reply(
            '{"class": "Essential", "text_sufficiency": 0.2,'
            ' "image_dependency": 0.8, "reason": "the chart"}'
        )

    server.answer_probes = False
    server.responder = text_only
    spec = f"openai:text-model@{server.openai_url}"
    with_images = run_cli("classify", str(FIXTURES / "mmmu"), "--llm", spec)
    assert with_images.returncode == 2
    assert "needs a model that reads images" in with_images.stderr, with_images.stderr
    questions_file = SHARED_DATA / "mmmu" / "questions_mmmu_pro.jsonl"
    if not questions_file.is_file():
        pytest.skip("needs ../shared/data")
    questions = run_cli(
        "classify", str(questions_file), "--limit", "3", "--llm", spec, "--json"
    )  # fmt: skip
    assert questions.returncode == 0, questions.stderr
    rows = json.loads(questions.stdout)["items"]
    assert [row["mode"] for row in rows] == [f"llm:{spec}"] * 3


def test_classify_says_when_the_model_failed_and_exits_1(
    server: ModelServer, tmp_path: Path, no_real_keys: None
) -> None:
    server.responder = lambda received: reply("not JSON at all")  # the probe is answered
    spec = f"openai:chatty@{server.openai_url}"
    done = run_cli(
        "classify", str(FIXTURES / "mmmu"), "--llm", spec, "--limit", "2", "--json",
        "--max-unusable-replies", "0",  # 6 unusable replies in a row: not stopped
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "--llm failed on 2 of 2 record(s)" in done.stderr
    assert "no parseable reply" in done.stderr
