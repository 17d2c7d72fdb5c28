"""Structured replies (a JSON schema sent as response_format, or as a forced Anthropic tool)
and errors that repeat word for word, against the local protocol server."""

from __future__ import annotations

import json

import pytest

from abstain_build.models import ModelRequest, object_schema
from abstain_build.questions.prompts import build_dependency_request, parse_dependency_reply

from .model_server import ModelServer, error, reply
from .test_models import FAST, PROVIDERS, make_client, parse_answer

pytestmark = pytest.mark.usefixtures("no_real_keys")

SCHEMA = object_schema("answer", {"answer": {"type": "integer"}})


def structured(text: str = "How many?") -> ModelRequest:
    return ModelRequest(text=text, purpose="structured-v1", schema=SCHEMA)


def test_openai_compatible_servers_get_a_strict_json_schema(server: ModelServer) -> None:
    server.push(reply('{"answer": 4}'))
    result = make_client(server, "openai").ask(structured(), parse_answer)
    assert result.ok and result.value == 4
    sent = server.requests[0].body["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["strict"] is True
    assert sent["json_schema"]["name"] == "answer"
    assert sent["json_schema"]["schema"] == dict(SCHEMA.schema)
    assert sent["json_schema"]["schema"]["additionalProperties"] is False


def test_anthropic_gets_one_forced_tool_and_its_input_is_the_reply(server: ModelServer) -> None:
    server.push(reply('{"answer": 7}'))
    result = make_client(server, "anthropic").ask(structured(), parse_answer)
    assert result.ok and result.value == 7
    body = server.requests[0].body
    assert body["tool_choice"] == {"type": "tool", "name": "answer"}
    assert [t["name"] for t in body["tools"]] == ["answer"]
    assert body["tools"][0]["input_schema"] == dict(SCHEMA.schema)
    assert json.loads(result.raw or "") == {"answer": 7}  # the tool input, as JSON text


def test_a_request_without_schema_sends_none(server: ModelServer) -> None:
    for provider in PROVIDERS:
        make_client(server, provider).ask(ModelRequest(text="hi", purpose="plain-v1"))
    assert all(r.schema is None and "tools" not in r.body for r in server.requests)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_server_refusing_schemas_is_asked_without_one_from_then_on(
    server: ModelServer, provider: str
) -> None:
    server.schemas_supported = False
    server.responder = lambda _: reply('{"answer": 3}')
    client = make_client(server, provider)
    first = client.ask(structured(), parse_answer)
    second = client.ask(structured("How many now?"), parse_answer)
    assert first.ok and first.value == 3 and second.ok and second.value == 3
    # Refused with the schema (each form it can take), answered without; then asked without.
    with_schema = [r.schema is not None for r in server.requests]
    assert with_schema == [True] * (len(with_schema) - 2) + [False, False]
    assert len(with_schema) == (4 if provider == "openai" else 3)
    assert client.stats.to_json()["retries"] == 0


def test_a_server_taking_only_json_object_gets_the_schema_that_way(server: ModelServer) -> None:
    # llama-cpp-python's server: HTTP 500 to json_schema, the schema beside json_object.
    server.response_formats = {"text", "json_object"}
    server.responder = lambda _: reply('{"answer": 5}')
    client = make_client(server, "openai")
    assert client.ask(structured(), parse_answer).value == 5
    assert client.ask(structured("And now?"), parse_answer).value == 5
    sent = [r.body.get("response_format", {}).get("type") for r in server.requests]
    assert sent == ["json_schema", "json_object", "json_object"]
    assert server.requests[-1].schema == dict(SCHEMA.schema)
    assert client.stats.to_json()["retries"] == 0


def test_a_400_that_is_not_about_the_schema_stays_a_failure(server: ModelServer) -> None:
    server.responder = lambda _: error(400, "image too large")
    client = make_client(server, "openai")
    result = client.ask(structured(), parse_answer)
    assert not result.ok and result.status == 400 and "image too large" in (result.error or "")
    server.responder = lambda _: reply('{"answer": 1}')
    assert client.ask(structured("again"), parse_answer).ok
    assert server.requests[-1].schema is not None  # the schema was not given up for it


def test_the_dependency_classifier_asks_for_its_schema(server: ModelServer) -> None:
    server.push(
        reply(
            '{"class": "Essential", "text_sufficiency": 0.1, "image_dependency": 0.9,'
            ' "reason": "values only in the chart"}'
        )
    )
    request = build_dependency_request("What is the value of bar B? <image 1>", ("1", "2"))
    result = make_client(server, "openai").ask(request, parse_dependency_reply)
    assert result.ok and result.value.label == "Essential"
    schema = server.requests[0].schema
    assert schema is not None and schema["properties"]["class"]["enum"] == [
        "Decorative",
        "Partial",
        "Essential",
        "Exclusive",
    ]


# -- the same error twice ------------------------------------------------------------------


def test_the_same_server_error_twice_is_not_retried_again(server: ModelServer) -> None:
    # llama.cpp with a text-only model: HTTP 500 to every image request, the same body.
    server.responder = lambda _: error(500, "image input is not supported")
    result = make_client(server).ask(ModelRequest(text="x", purpose="p-v1"))
    assert not result.ok and result.kind == "server_error"
    assert "the same error twice" in (result.error or "")
    assert len(server.requests) == 2 < FAST.max_attempts


def test_different_errors_and_waiting_statuses_are_still_retried(server: ModelServer) -> None:
    server.push(error(500, "disk busy"), error(500, "worker restarted"), reply("fine"))
    assert make_client(server).ask(ModelRequest(text="x", purpose="p-v1")).value == "fine"
    server.requests.clear()
    server.responder = lambda _: error(503, "overloaded")
    result = make_client(server).ask(ModelRequest(text="y", purpose="p-v1"))
    assert not result.ok and len(server.requests) == FAST.max_attempts
