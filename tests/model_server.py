"""A local stand-in for OpenAI- and Anthropic-style endpoints, with scripted faults.

Real HTTP on 127.0.0.1 (port 0), so the SDKs run unmocked. Each request takes the next
``Action`` from the script, or asks ``responder`` when the script is empty. Every request
is recorded, and the server counts how many were in flight at once.
"""

from __future__ import annotations

import base64
import io
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from PIL import Image

OPENAI_PATH = "/v1/chat/completions"
ANTHROPIC_PATH = "/v1/messages"


@dataclass
class Action:
    """How to answer one request. ``{auth}`` in ``text``/``message``/``body`` is replaced by
    the credential the client sent (servers that echo keys exist; tests check we mask them).
    """

    status: int = 200
    text: str = "ok"  # reply text, for status 200
    message: str = "error"  # error message, for other statuses
    body: bytes | None = None  # sent as-is instead of the protocol's JSON
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering
    usage: tuple[int, int] = (11, 7)  # input, output tokens
    #: The log-probability of every token of ``text`` (split by ``tokens``), served when
    #: the request asks for ``logprobs`` on the OpenAI protocol.
    logprob: float = -0.05


def reply(text: str, delay: float = 0.0, logprob: float = -0.05) -> Action:
    return Action(text=text, delay=delay, logprob=logprob)


TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def tokens(text: str) -> list[str]:
    """How the server splits a reply into tokens: words, runs of space, punctuation."""
    return TOKEN.findall(text)


def error(status: int, message: str = "error", headers: dict[str, str] | None = None) -> Action:
    return Action(status=status, message=message, headers=headers or {})


def rate_limited(retry_after: str = "1") -> Action:
    return error(429, "rate limited", {"retry-after": retry_after})


def slow(seconds: float, text: str = "late") -> Action:
    return Action(text=text, delay=seconds)


def garbage(content_type: str = "application/json", body: bytes = b"<html>oops") -> Action:
    return Action(body=body, content_type=content_type)


@dataclass
class Received:
    """One request as the server saw it."""

    path: str  # without the query
    headers: dict[str, str]  # lower-case names
    body: dict[str, Any]
    at: float
    query: dict[str, str] = field(default_factory=dict)

    @property
    def credential(self) -> str:
        auth = self.headers.get("authorization", "")
        return self.headers.get("x-api-key") or auth.removeprefix("Bearer ")

    @property
    def schema(self) -> dict[str, Any] | None:
        """The reply schema sent: OpenAI's ``response_format`` or Anthropic's forced tool."""
        fmt = self.body.get("response_format")
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            return fmt["json_schema"]["schema"]
        if isinstance(fmt, dict) and fmt.get("type") == "json_object" and "schema" in fmt:
            return fmt["schema"]
        choice = self.body.get("tool_choice")
        if isinstance(choice, dict) and choice.get("type") == "tool":
            tool = next(t for t in self.body["tools"] if t["name"] == choice["name"])
            return tool["input_schema"]
        return None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", [])

    @property
    def system(self) -> str:
        """The system prompt, from either protocol ("" when none)."""
        system = self.body.get("system")
        if isinstance(system, str):
            return system
        if isinstance(system, list):
            return "".join(block.get("text", "") for block in system)
        first = self.messages[0] if self.messages else {}
        return first.get("content", "") if first.get("role") == "system" else ""

    def texts(self, role: str = "user") -> list[str]:
        """The text of every ``role`` turn, in order (string or text parts joined)."""
        out = []
        for message in self.messages:
            if message["role"] != role:
                continue
            content = message["content"]
            if isinstance(content, str):
                out.append(content)
            else:
                out.append("".join(p["text"] for p in content if p["type"] == "text"))
        return out

    def images(self) -> list[Image.Image]:
        """Every image sent, decoded; fails unless it is inline base64 PNG."""
        found = []
        for message in self.messages:
            content = message["content"]
            for part in content if isinstance(content, list) else []:
                if part["type"] == "image_url":  # OpenAI
                    prefix, data = part["image_url"]["url"].split(",", 1)
                    assert prefix == "data:image/png;base64", prefix
                elif part["type"] == "image":  # Anthropic
                    source = part["source"]
                    assert (source["type"], source["media_type"]) == ("base64", "image/png")
                    data = source["data"]
                else:
                    continue
                image = Image.open(io.BytesIO(base64.b64decode(data, validate=True)))
                assert image.format == "PNG"
                found.append(image)
        return found


PROBE_TEXTS = ("Reply with the word OK.", "What colour is this square? One word.")


def is_probe(received: Received) -> bool:
    texts = received.texts()
    return bool(texts) and texts[-1] in PROBE_TEXTS


class ModelServer:
    """Start with ``with ModelServer() as server``; point clients at ``openai_url`` / ``url``."""

    def __init__(self) -> None:
        #: The start-up probes of a run (``abstain_build.models.probe``), answered "OK" and
        #: kept apart from ``requests`` unless ``answer_probes`` is False.
        self.answer_probes = True
        self.probes: list[Received] = []
        self.requests: list[Received] = []
        self.script: deque[Action] = deque()
        self.responder: Callable[[Received], Action] = lambda _: reply("ok")
        #: False: a request carrying a reply schema (``response_format``, or a forced tool)
        #: gets HTTP 400, as from a server that does not support them.
        self.schemas_supported = True
        #: The ``response_format`` types accepted (None: all). Others get HTTP 500 with a
        #: validation message, as from llama-cpp-python's server, which takes only
        #: ``json_object`` (its schema beside the type).
        self.response_formats: set[str] | None = None
        #: False: ``logprobs`` in a request is ignored, as by servers that cannot send them.
        self.logprobs_supported = True
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    def push(self, *actions: Action) -> None:
        with self._lock:
            self.script.extend(actions)

    def start(self) -> ModelServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next(self, received: Received) -> Action:
        with self._lock:
            if self.answer_probes and is_probe(received):
                self.probes.append(received)
                self.in_flight += 1
                return reply("OK")
            self.requests.append(received)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if not self.schemas_supported and received.schema is not None:
                return error(400, "response_format / tools are not supported by this server")
            sent_format = received.body.get("response_format")
            if (
                self.response_formats is not None
                and isinstance(sent_format, dict)
                and sent_format.get("type") not in self.response_formats
            ):
                return error(
                    500,
                    "1 validation error: {'loc': ('body', 'response_format', 'type'),"
                    f" 'msg': \"Input should be {' or '.join(sorted(self.response_formats))}\"}}",
                )
            if self.script:
                return self.script.popleft()
        return self.responder(received)

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1


def _handler_for(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            raw = self.rfile.read(length)
            if len(raw) < length:
                self.close_connection = True
                return  # the client died mid-request (a killed run): nothing was asked
            target = urlsplit(self.path)
            received = Received(
                path=target.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=json.loads(raw) if raw else {},
                at=time.monotonic(),
                query=dict(parse_qsl(target.query, keep_blank_values=True)),
            )
            action = server._next(received)
            try:
                if action.delay:
                    time.sleep(action.delay)
                self._answer(received, action)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up first (a timeout test)
            finally:
                server._done()

        def _answer(self, received: Received, action: Action) -> None:
            if action.body is not None:
                payload = action.body.replace(b"{auth}", received.credential.encode())
            else:
                anthropic = received.path == ANTHROPIC_PATH
                data = (
                    _success(received, action, anthropic, server.logprobs_supported)
                    if action.status == 200
                    else _failure(received, action, anthropic)
                )
                payload = json.dumps(data).encode()
            self.send_response(action.status)
            self.send_header("content-type", action.content_type)
            self.send_header("content-length", str(len(payload)))
            for name, value in action.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def _success(
    received: Received, action: Action, anthropic: bool, logprobs: bool = True
) -> dict[str, Any]:
    text = action.text.replace("{auth}", received.credential)
    model = received.body.get("model", "unknown")
    tokens_in, tokens_out = action.usage
    if anthropic:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        choice = received.body.get("tool_choice")
        if isinstance(choice, dict) and choice.get("type") == "tool":
            # A forced tool is called with the scripted text as its input, when it is an
            # object (a real model's input always is; a test may script prose to see that
            # the parser still decides).
            try:
                tool_input = json.loads(text)
            except ValueError:
                tool_input = None
            if isinstance(tool_input, dict):
                content = [
                    {
                        "type": "tool_use",
                        "id": "toolu_test",
                        "name": choice["name"],
                        "input": tool_input,
                    }
                ]
        return {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
        }
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
                "logprobs": (
                    {
                        "content": [
                            {
                                "token": t,
                                "logprob": action.logprob,
                                "bytes": None,
                                "top_logprobs": [],
                            }
                            for t in tokens(text)
                        ]
                    }
                    if received.body.get("logprobs") and logprobs
                    else None
                ),
            }
        ],
        "usage": {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        },
    }


def _failure(received: Received, action: Action, anthropic: bool) -> dict[str, Any]:
    message = action.message.replace("{auth}", received.credential)
    kind = {401: "authentication_error", 429: "rate_limit_error"}.get(action.status, "api_error")
    if anthropic:
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "code": None, "param": None}}
