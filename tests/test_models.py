"""The model layer against a real local HTTP server speaking both protocols (SDKs unmocked)."""

from __future__ import annotations

import json
import logging
import pickle
import random
import socket
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from abstain_build.errors import ConfigError, SampleError
from abstain_build.models import (
    ClientOptions,
    ModelClient,
    ModelError,
    ModelRequest,
    Redactor,
    ReplyCache,
    RetryPolicy,
    merge_stats,
    parse_spec,
)
from abstain_build.models.cache import Reply
from abstain_build.models.client import REASK
from abstain_build.models.retry import parse_retry_after

from .conftest import ROOT, gradient_image, png_bytes
from .model_server import (
    ANTHROPIC_PATH,
    OPENAI_PATH,
    Action,
    ModelServer,
    error,
    garbage,
    rate_limited,
    reply,
    slow,
)

#: Fast retries for tests; retry-after is honoured up to 1.5 s.
FAST = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.05, retry_after_cap=1.5)
CANARY = "sk-test-CANARY-7f3a9c2e51d84b6aa0e1"
PROVIDERS = ("openai", "anthropic")


pytestmark = pytest.mark.usefixtures("no_real_keys")


def spec_for(server: ModelServer, provider: str) -> str:
    if provider == "openai":
        return f"openai:test-vlm@{server.openai_url}"
    return f"anthropic:test-claude@{server.url}"


def make_client(server: ModelServer, provider: str = "openai", **options: object) -> ModelClient:
    settings: dict[str, object] = {"retry": FAST, "timeout": 5.0, **options}
    return ModelClient(spec_for(server, provider), ClientOptions(**settings))  # type: ignore[arg-type]


def ask(text: str = "What is shown?", **fields: object) -> ModelRequest:
    settings: dict[str, object] = {"purpose": "test-v1", **fields}
    return ModelRequest(text=text, **settings)  # type: ignore[arg-type]


def parse_answer(text: str) -> int:
    """Strict: a JSON object with an integer "answer", nothing else."""
    data = json.loads(text)  # JSONDecodeError is a ValueError
    if not isinstance(data, dict) or not isinstance(data.get("answer"), int):
        raise ValueError('expected {"answer": <integer>}')
    return data["answer"]


# -- spec ----------------------------------------------------------------------------------


def test_spec_parsing() -> None:
    spec = parse_spec("openai:gpt-4o-mini@http://127.0.0.1:8000/v1/")
    assert (spec.provider, spec.model, spec.base_url) == (
        "openai",
        "gpt-4o-mini",
        "http://127.0.0.1:8000/v1",
    )
    assert spec.label == "openai:gpt-4o-mini@http://127.0.0.1:8000/v1"
    assert parse_spec("anthropic:claude-sonnet-4-5").label == "anthropic:claude-sonnet-4-5"
    assert parse_spec("anthropic:claude-sonnet-4-5").endpoint == "https://api.anthropic.com"
    # Colons and "@" belong to the model unless "@" starts a URL.
    assert parse_spec("openai:llava:13b@http://localhost:11434/v1").model == "llava:13b"
    assert parse_spec("anthropic:claude-x@20250514").model == "claude-x@20250514"
    assert parse_spec("anthropic:claude-x@20250514@https://h/").base_url == "https://h"
    for bad in ("gpt-4o", "gemini:pro", "openai:", "openai:a b", "openai:m@http://"):
        with pytest.raises(ConfigError):
            parse_spec(bad)
    with pytest.raises(ConfigError) as caught:
        parse_spec("openai:m@http://user:hunter2-secret@host/v1")
    assert "hunter2" not in str(caught.value)


def test_options_travel_to_worker_processes(tmp_path: Path) -> None:
    options = ClientOptions(cache_path=tmp_path / "m.sqlite", concurrency=2, retry=FAST)
    assert pickle.loads(pickle.dumps(options)) == options
    assert (
        pickle.loads(pickle.dumps(parse_spec("openai:m@http://h/v1"))).label
        == "openai:m@http://h/v1"
    )
    with pytest.raises(ConfigError):
        ClientOptions(concurrency=0)


def test_key_required_for_public_endpoint_not_for_local(server: ModelServer) -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        ModelClient("openai:gpt-4o-mini")
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        ModelClient("anthropic:claude-sonnet-4-5")
    client = make_client(server)  # local: placeholder key, and no request at construction
    assert server.requests == []
    assert client.ask(ask()).ok
    assert server.requests[0].credential == "not-needed"


# -- one call on each backend --------------------------------------------------------------


def test_openai_call(server: ModelServer) -> None:
    server.push(reply('{"answer": 42}'))
    client = make_client(server, "openai")
    image = gradient_image(64, 48)
    result = client.ask(
        ask("How many bars?", system="Be terse.", images=(image,), max_tokens=64), parse_answer
    )
    assert result.ok and result.value == 42 and result.raw == '{"answer": 42}'
    assert (result.calls, result.asks, result.cached) == (1, 1, False)
    assert (result.input_tokens, result.output_tokens) == (11, 7)
    (got,) = server.requests
    assert got.path == OPENAI_PATH
    assert got.headers["authorization"] == "Bearer not-needed"
    assert got.body["model"] == "test-vlm"
    assert got.body["max_tokens"] == 64 and got.body["temperature"] == 0
    assert got.messages[0] == {"role": "system", "content": "Be terse."}
    assert got.texts() == ["How many bars?"]
    (sent,) = got.images()
    assert sent.size == (64, 48)
    assert np.array_equal(np.asarray(sent), image)  # lossless, untouched when small


def test_anthropic_call(server: ModelServer) -> None:
    server.push(reply("Paris"))
    client = make_client(server, "anthropic")
    result = client.ask(ask("Capital?", system="One word.", images=(png_bytes(gradient_image()),)))
    assert result.ok and result.value == "Paris"
    (got,) = server.requests
    assert got.path == ANTHROPIC_PATH
    assert got.credential == "not-needed"
    assert got.body["model"] == "test-claude" and got.body["system"] == "One word."
    assert got.body["max_tokens"] == 1024
    assert "temperature" not in got.body  # API 2026-10-21 refuses sampling parameters
    content = got.messages[0]["content"]
    assert [p["type"] for p in content] == ["image", "text"]
    assert got.images()[0].size == (96, 64)


# -- cache ---------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_rerun_is_served_from_cache(server: ModelServer, tmp_path: Path, provider: str) -> None:
    server.responder = lambda got: reply(f'{{"answer": {len(got.texts()[0])}}}')
    cache = tmp_path / "state" / "models.sqlite"
    requests = [ask("x" * n, images=(gradient_image(40 + n, 30),)) for n in range(1, 6)]
    with make_client(server, provider, cache_path=cache) as first:
        results = first.map(requests, parse_answer)
    assert [r.value for r in results] == [1, 2, 3, 4, 5] and len(server.requests) == 5

    with make_client(server, provider, cache_path=cache) as second:  # a re-run
        again = second.map(requests, parse_answer)
        stats = second.stats.to_json()
    assert [r.value for r in again] == [1, 2, 3, 4, 5]
    assert len(server.requests) == 5  # nothing new reached the server
    assert all(r.cached and r.calls == 0 for r in again)
    assert (stats["calls"], stats["cache_hits"], stats["requests"]) == (0, 5, 5)
    assert (stats["cached_input_tokens"], stats["input_tokens"]) == (55, 0)

    # What the reply depends on is in the key: purpose, image, max side, max_tokens.
    with make_client(server, provider, cache_path=cache) as third:
        third.ask(ask("x", purpose="test-v2", images=(gradient_image(41, 30),)))
        third.ask(ask("x", images=(gradient_image(41, 31),)))
        third.ask(ask("x", images=(gradient_image(41, 30),), max_tokens=9))
    with make_client(server, provider, cache_path=cache, max_image_side=32) as fourth:
        fourth.ask(ask("x", images=(gradient_image(41, 30),)))
    assert len(server.requests) == 9

    # Disabled cache: every run calls.
    with make_client(server, provider) as uncached:
        uncached.ask(requests[0], parse_answer)
    assert len(server.requests) == 10


def test_cache_shared_by_processes(tmp_path: Path) -> None:
    path = tmp_path / "models.sqlite"
    ReplyCache(path).close()
    go = tmp_path / "go"
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from abstain_build.models.cache import Reply, ReplyCache\n"
        "cache = ReplyCache(sys.argv[1])\n"
        "Path(sys.argv[3] + '.ready').touch()\n"
        "while not Path(sys.argv[3]).exists():\n"  # all start writing together
        "    time.sleep(0.005)\n"
        "for i in range(400):\n"
        "    key = f'{sys.argv[2]}-{i}'\n"
        "    cache.put(key, Reply(key, 1, 2), model='m', purpose='p', attempt=0)\n"
        "    assert cache.get(key).text == key\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(path), f"p{n}", f"{go}{n}"], cwd=ROOT)
        for n in range(3)
    ]
    deadline = time.monotonic() + 60
    while not all(Path(f"{go}{n}.ready").exists() for n in range(3)):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
        time.sleep(0.01)
    for n in range(3):
        Path(f"{go}{n}").touch()
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT COUNT(*) FROM replies").fetchone()[0] == 1200


# -- retries -------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_server_errors_are_retried(server: ModelServer, provider: str) -> None:
    server.push(error(500), error(503), reply("fine"))
    client = make_client(server, provider)
    result = client.ask(ask())
    assert result.ok and result.value == "fine" and result.calls == 3
    stats = client.stats.to_json()
    assert stats["retries"] == 2 and stats["errors"] == {"server_error": 2}


def test_server_errors_until_max_attempts_give_a_failure(server: ModelServer) -> None:
    server.responder = lambda _: error(502, "bad gateway")
    result = make_client(server).ask(ask())
    assert not result.ok and result.kind == "server_error" and result.status == 502
    assert result.error is not None and "gave up after 4 attempts" in result.error
    assert len(server.requests) == FAST.max_attempts


@pytest.mark.parametrize("provider", PROVIDERS)
def test_rate_limit_honours_retry_after(server: ModelServer, provider: str) -> None:
    server.push(rate_limited("1"), reply("after the pause"))
    client = make_client(server, provider)
    result = client.ask(ask())
    assert result.ok and result.value == "after the pause"
    first, second = server.requests
    assert 0.95 <= second.at - first.at < 1.6  # waited as told, not the tiny backoff
    assert client.stats["rate_limited"] == 1


def test_retry_after_parsing_and_cap() -> None:
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0, retry_after_cap=5.0)
    assert policy.delay(0, 3600.0, random.Random(0)) == 5.0
    draws = [policy.delay(10, None, random.Random(seed)) for seed in range(200)]
    assert min(draws) >= 0.0 and max(draws) <= 8.0 and max(draws) > 4.0  # full jitter


@pytest.mark.parametrize("provider", PROVIDERS)
def test_timeout_then_success(server: ModelServer, provider: str) -> None:
    server.push(slow(2.0), reply("in time"))
    client = make_client(server, provider, timeout=0.4)
    started = time.monotonic()
    result = client.ask(ask())
    assert result.ok and result.value == "in time" and result.calls == 2
    assert time.monotonic() - started < 1.5
    assert client.stats.to_json()["errors"] == {"timeout": 1}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_garbage_bodies_are_retried(server: ModelServer, provider: str) -> None:
    server.push(
        garbage("application/json"),  # says JSON, is not
        garbage("text/html"),  # not JSON at all
        Action(body=b'{"unexpected": true}'),  # JSON of the wrong shape
        reply("real"),
    )
    client = make_client(server, provider)
    result = client.ask(ask())
    assert result.ok and result.value == "real" and result.calls == 4
    assert client.stats.to_json()["errors"] == {"bad_response": 3}


def test_connection_refused_is_retried_then_fails() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = ModelClient(f"openai:m@http://127.0.0.1:{port}/v1", ClientOptions(retry=FAST))
    result = client.ask(ask())
    assert not result.ok and result.kind == "connection" and result.calls == 4
    with pytest.raises(ModelError) as caught:
        result.unwrap()
    assert isinstance(caught.value, SampleError) and caught.value.stage == "model"
    assert "connection failed" in str(caught.value)


# -- strict parsing ------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_unparseable_reply_is_reasked(server: ModelServer, provider: str, tmp_path: Path) -> None:
    server.push(reply("I think it is 4."), reply('{"answer": 4}'))
    cache = tmp_path / "models.sqlite"
    with make_client(server, provider, cache_path=cache) as client:
        result = client.ask(ask("2 + 2?"), parse_answer)
    assert result.ok and result.value == 4 and (result.asks, result.calls) == (2, 2)
    first, second = server.requests
    assert first.texts() == ["2 + 2?"]
    # The re-ask shows the model its reply and what was wrong with it.
    assert second.texts("assistant") == ["I think it is 4."]
    assert second.texts()[0] == "2 + 2?"
    assert second.texts()[1].startswith(REASK.split("{")[0])
    assert "Expecting value" in second.texts()[1]

    with make_client(server, provider, cache_path=cache) as rerun:  # deterministic replay
        again = rerun.ask(ask("2 + 2?"), parse_answer)
    assert again.ok and again.value == 4 and again.cached and len(server.requests) == 2


def test_never_parseable_gives_a_failure_with_the_raw_reply(server: ModelServer) -> None:
    server.responder = lambda _: reply("forty-two, probably")
    client = make_client(server, max_reasks=2)
    result = client.ask(ask(), parse_answer)
    assert not result.ok and result.value is None
    assert result.kind == "unparseable" and result.raw == "forty-two, probably"
    assert (result.asks, result.calls) == (3, 3) and len(server.requests) == 3
    assert result.error is not None and "no parseable reply in 3 asks" in result.error
    stats = client.stats.to_json()
    assert (stats["reasks"], stats["failures"]) == (2, 1)
    with pytest.raises(ModelError, match="no parseable reply"):
        result.unwrap()


def test_unusable_replies_in_a_row_stop_the_client_with_the_last_one_quoted(
    server: ModelServer, tmp_path: Path
) -> None:
    server.responder = lambda _: reply("Forty-two,\n probably. " + "Let me explain why. " * 20)
    cache = tmp_path / "models.sqlite"
    client = make_client(server, cache_path=cache)  # 3 asks per request, 5 unusable in a row
    first = client.ask(ask("one"), parse_answer)
    assert first.kind == "unparseable" and client.fatal_error is None
    second = client.ask(ask("two"), parse_answer)
    assert second.kind == "unusable" and len(server.requests) == 5
    assert second.error == client.fatal_error
    assert client.fatal_error.startswith(
        '5 replies in a row were not in the format asked for; the last: "Forty-two, probably.'
    )
    assert '..." (Expecting value' in client.fatal_error  # shortened, with the parse error
    later = client.ask(ask("three"), parse_answer)
    assert later.kind == "fatal" and len(server.requests) == 5  # no call after the stop

    # Replies from the cache are not counted: a fixed server is asked again on a resume.
    server.responder = lambda _: reply('{"answer": 3}')
    resumed = make_client(server, cache_path=cache)
    assert resumed.ask(ask("one"), parse_answer).kind == "unparseable"  # all three cached
    assert resumed.ask(ask("two"), parse_answer).value == 3  # two cached, the third fresh
    assert resumed.fatal_error is None and len(server.requests) == 6


def test_a_usable_reply_starts_the_count_again_and_zero_never_stops(server: ModelServer) -> None:
    prose, good = reply("Sure! Here it is."), reply('{"answer": 1}')
    server.push(*[prose] * 4, good, *[prose] * 5)
    client = make_client(server, max_reasks=0)
    results = [client.ask(ask(f"q{n}"), parse_answer) for n in range(10)]
    assert [r.kind for r in results[:9]] == ["unparseable"] * 4 + [None] + ["unparseable"] * 4
    assert results[9].kind == "unusable" and "Sure! Here it is." in (client.fatal_error or "")

    server.responder = lambda _: prose
    patient = make_client(server, max_reasks=0, max_unusable_replies=0)
    assert all(patient.ask(ask(f"p{n}"), parse_answer).kind == "unparseable" for n in range(7))
    assert patient.fatal_error is None
    with pytest.raises(ConfigError, match="max_unusable_replies"):
        ClientOptions(max_unusable_replies=-1)


def test_unusable_image_fails_without_a_call(server: ModelServer) -> None:
    result = make_client(server).ask(ask(images=(b"not an image",)))
    assert not result.ok and result.kind == "input" and server.requests == []


# -- errors that are not retried -----------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_auth_error_is_not_retried_and_stops_later_calls(
    server: ModelServer, provider: str
) -> None:
    server.push(error(401, "invalid x-api-key"))
    client = make_client(server, provider)
    result = client.ask(ask())
    assert not result.ok and result.kind == "auth" and result.status == 401
    assert result.error is not None and "check the API key" in result.error
    assert len(server.requests) == 1
    assert client.fatal_error is not None
    later = client.ask(ask("another"))
    assert not later.ok and later.kind == "fatal" and len(server.requests) == 1


def test_bad_request_is_not_retried_and_not_fatal(server: ModelServer) -> None:
    server.push(error(400, "image too large"))
    client = make_client(server)
    result = client.ask(ask())
    assert not result.ok and result.kind == "client_error" and "image too large" in result.error
    assert len(server.requests) == 1 and client.fatal_error is None
    assert client.ask(ask("next")).ok


# -- concurrency ---------------------------------------------------------------------------


def test_concurrency_bound_and_order(server: ModelServer) -> None:
    server.responder = lambda got: reply(got.texts()[0].upper(), delay=0.15)
    client = make_client(server, concurrency=3)
    requests = [ask(f"item {n}") for n in range(12)]
    requests[5] = ask("item 5", images=(b"broken",))  # a failure keeps its place
    results = client.map(requests)
    assert server.max_in_flight == 3  # parallel, and never above the bound
    assert [r.value for r in results[:5]] == [f"ITEM {n}" for n in range(5)]
    assert not results[5].ok and results[5].kind == "input"
    assert [r.value for r in results[6:]] == [f"ITEM {n}" for n in range(6, 12)]
    assert client.stats.to_json()["calls"] == 11


def test_bound_is_shared_by_threads_calling_map(server: ModelServer) -> None:
    server.responder = lambda _: reply("ok", delay=0.1)
    client = make_client(server, concurrency=2)
    with ThreadPoolExecutor(3) as pool:
        batches = list(
            pool.map(client.map, [[ask(f"{b}-{n}") for n in range(4)] for b in range(3)])
        )
    assert all(r.ok for batch in batches for r in batch)
    assert server.max_in_flight == 2


# -- keys never leak -----------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_key_never_leaks(
    server: ModelServer,
    provider: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY" if provider == "openai" else "ANTHROPIC_API_KEY", CANARY)
    caplog.set_level(logging.DEBUG)
    # A server that echoes the key everywhere it can: error bodies, garbage, even replies.
    server.push(
        error(500, "internal error for key {auth}"),
        garbage(body=b"proxy error, key={auth}"),
        reply("echo {auth}"),  # unparseable: re-asked, and raw keeps it... masked
        error(401, "Incorrect API key provided: {auth}"),
    )
    cache = tmp_path / "models.sqlite"
    client = make_client(server, provider, cache_path=cache, max_reasks=1)
    failed = client.ask(ask(), parse_answer)
    server.push(error(403, f"key {CANARY[:20]}... is not allowed"))  # a key cut short
    other = make_client(server, provider)
    cut = other.ask(ask("other"))
    assert all(got.credential == CANARY for got in server.requests)  # it was really sent

    texts = [
        json.dumps(failed.to_json()),
        json.dumps(cut.to_json()),
        json.dumps(client.stats.to_json()),
        json.dumps(merge_stats([client.stats.to_json()])),
        repr(client),
        caplog.text,
        client.fatal_error or "",
        other.fatal_error or "",
    ]
    for result in (failed, cut):
        with pytest.raises(ModelError) as caught:
            result.unwrap()
        texts.append(str(caught.value))
        assert caught.value.__cause__ is None and caught.value.__context__ is None
    client.close()
    for suffix in ("", "-wal", "-shm"):
        db = Path(f"{cache}{suffix}")
        if db.exists():
            texts.append(db.read_bytes().decode("latin-1"))
    joined = "\n".join(texts)
    assert CANARY not in joined and CANARY[:12] not in joined
    assert "[REDACTED]" in failed.error and "[REDACTED]" in cut.error
    assert failed.kind == "auth" and failed.raw == "echo [REDACTED]"


def test_redactor_masks_keys_and_pieces_of_keys() -> None:
    redact = Redactor([CANARY, "tiny"])
    assert redact(f"a {CANARY} b") == "a [REDACTED] b"
    assert redact(f"x{CANARY[3:25]}y") == "x[REDACTED]y"
    assert redact(f"{CANARY[:8]} tiny") == f"{CANARY[:8]} tiny"  # too short to be a secret
    assert Redactor()("unchanged") == "unchanged"


# -- images --------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_images_downscaled_to_max_side_never_upscaled(server: ModelServer, provider: str) -> None:
    big = gradient_image(3000, 1200)
    tall_png = png_bytes(gradient_image(300, 900, channels=4))
    small = gradient_image(100, 50)
    gray = gradient_image(500, 200)[:, :, 0]
    client = make_client(server, provider)
    assert client.ask(ask(images=(big, tall_png, small, gray))).ok
    sizes = [(i.size, i.mode) for i in server.requests[0].images()]
    assert sizes == [
        ((1024, 410), "RGB"),
        ((300, 900), "RGBA"),
        ((100, 50), "RGB"),
        ((500, 200), "L"),
    ]
    narrow = make_client(server, provider, max_image_side=256)
    assert narrow.ask(ask(images=(big, tall_png, small))).ok
    assert [i.size for i in server.requests[1].images()] == [(256, 102), (85, 256), (100, 50)]


# -- stats ---------------------------------------------------------------------------------


def test_stats_merge_across_workers() -> None:
    a = {"model": "m", "calls": 2, "input_tokens": 10, "errors": {"timeout": 1}, "call_seconds": 1}
    b = {"model": "m", "calls": 3, "input_tokens": 5, "errors": {"timeout": 2, "auth": 1}}
    c = {"model": "n", "calls": 1}
    merged = merge_stats([a, b, c])
    assert [m["model"] for m in merged] == ["m", "n"]
    assert merged[0]["calls"] == 5 and merged[0]["input_tokens"] == 15
    assert merged[0]["errors"] == {"auth": 1, "timeout": 3}
    assert merged[1]["calls"] == 1 and merged[1]["failures"] == 0


def test_cache_row_round_trip(tmp_path: Path) -> None:
    cache = ReplyCache(tmp_path / "c.sqlite")
    cache.put("k", Reply("text", 3, 4, "stop"), model="m", purpose="p", attempt=0)
    cache.put("k", Reply("newer", 5, 6, None), model="m", purpose="p", attempt=0)
    assert cache.get("k") == Reply("newer", 5, 6, None)
    assert cache.get("missing") is None and len(cache) == 1
    cache.close()
    (tmp_path / "bad.sqlite").write_bytes(b"this is not a database" * 100)
    with pytest.raises(ConfigError, match="cannot open"):
        ReplyCache(tmp_path / "bad.sqlite")


def test_encoded_images_are_reused_by_content_and_dropped_beyond_the_byte_bound() -> None:
    from abstain_build.models.images import EncodedImages

    first = png_bytes(gradient_image(300, 200))
    second = png_bytes(gradient_image(200, 300))
    cache = EncodedImages()
    encoded = cache.get(first, 128)
    assert cache.get(bytes(first), 128) is encoded  # the same bytes: encoded once
    assert max(encoded.width, encoded.height) == 128
    assert cache.get(first, 64) is not encoded  # another size is another image
    small = EncodedImages(max_bytes=len(encoded.png))  # room for one image
    kept = small.get(first, 128)
    small.get(second, 128)
    assert small.get(first, 128) is not kept  # dropped to make room, encoded again
    assert small.get(first, 128).png == kept.png  # to the same bytes
