"""Chat Completions through the ``openai`` SDK: OpenAI, vLLM, Ollama, LM Studio, ..."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

import openai
from openai.types.chat import ChatCompletion

from .backends import as_int, bad_body, failure_from_sdk, refuses_schema
from .cache import Reply
from .errors import CallFailure
from .request import Conversation, Turn
from .spec import ModelSpec

log = logging.getLogger(__name__)


#: How a reply schema can be sent, most precise first: OpenAI, vLLM, Ollama and llama.cpp's
#: own server take ``json_schema``; llama-cpp-python's server takes only ``json_object``
#: with the schema beside it (and answers HTTP 500 to the other); None sends no format.
RESPONSE_FORMATS: tuple[str | None, ...] = ("json_schema", "json_object", None)


def response_format(mode: str, schema: dict[str, Any]) -> dict[str, Any]:
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {**schema, "strict": True}}
    return {"type": "json_object", "schema": schema["schema"]}


class OpenAIBackend:
    """Images go inline as ``data:image/png;base64`` URLs in ``image_url`` parts; a reply
    schema goes as ``response_format``, in the first form (``RESPONSE_FORMATS``) that the
    server accepts, which is then kept for the rest of the run."""

    sends_temperature = True

    def __init__(self, spec: ModelSpec, api_key: str, timeout: float) -> None:
        self.model = spec.model
        # OpenAI's own API refuses max_tokens for reasoning models; self-hosted servers
        # (older vLLM, Ollama, LM Studio) know only max_tokens.
        official = urlsplit(spec.endpoint).hostname == "api.openai.com"
        self.token_param = "max_completion_tokens" if official else "max_tokens"
        self.identity = {
            "provider": "openai",
            "model": spec.model,
            "base_url": spec.public_endpoint,
            "token_param": self.token_param,
        }
        base_url, query = spec.call_target()
        self._client = openai.OpenAI(
            base_url=base_url,
            default_query=query or None,
            api_key=api_key,
            max_retries=0,
            timeout=timeout,
        )
        #: The ``RESPONSE_FORMATS`` entry this server accepted last (the first, until refused).
        self.format_mode: str | None = RESPONSE_FORMATS[0]

    def send(self, conversation: Conversation) -> Reply:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": self.messages(conversation),
            self.token_param: conversation.max_tokens,
        }
        if conversation.temperature is not None:
            kwargs["temperature"] = conversation.temperature
        if conversation.logprobs:
            # llama-cpp-python's server sends log-probabilities only when top_logprobs is
            # set too; for OpenAI and vLLM, 1 is the smallest useful value.
            kwargs["logprobs"] = True
            kwargs["top_logprobs"] = 1
        if conversation.schema is None:
            return self._create(kwargs)
        schema = conversation.schema.as_json()
        modes = RESPONSE_FORMATS[RESPONSE_FORMATS.index(self.format_mode) :]
        for mode in modes:
            sent = (
                kwargs
                if mode is None
                else {**kwargs, "response_format": response_format(mode, schema)}
            )
            try:
                reply = self._create(sent)
            except CallFailure as failure:
                if mode is None or not refuses_schema(failure, "response_format"):
                    raise
                log.info("%s refused response_format %s: %s", self.model, mode, failure.message)
                continue
            if mode != self.format_mode:
                log.info("%s: reply schemas go as response_format %s", self.model, mode)
                self.format_mode = mode
            return reply
        raise AssertionError("unreachable: the last mode sends no format")

    def _create(self, kwargs: dict[str, Any]) -> Reply:
        try:
            response = self._client.chat.completions.create(**kwargs)
        except Exception as exc:
            failure = failure_from_sdk(exc, openai)
            if failure is None:
                raise
            raise failure from None
        return self.reply(response)

    @staticmethod
    def messages(conversation: Conversation) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if conversation.system is not None:
            out.append({"role": "system", "content": conversation.system})
        out.extend(_message(turn) for turn in conversation.turns)
        return out

    @staticmethod
    def reply(response: object) -> Reply:
        # Without strict validation the SDK returns a str for a non-JSON content type, and
        # a model with missing fields for JSON of the wrong shape: check both.
        if not isinstance(response, ChatCompletion):
            raise bad_body("a chat completion", response)
        choices = getattr(response, "choices", None)
        if not choices:
            raise bad_body("a chat completion with choices", response)
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        if isinstance(content, list):  # some servers return content parts
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        usage = getattr(response, "usage", None)
        return Reply(
            text=content if isinstance(content, str) else "",
            input_tokens=as_int(getattr(usage, "prompt_tokens", 0)),
            output_tokens=as_int(getattr(usage, "completion_tokens", 0)),
            stop_reason=getattr(choices[0], "finish_reason", None),
            logprobs=_token_logprobs(getattr(choices[0], "logprobs", None)),
        )

    def close(self) -> None:
        self._client.close()


def _token_logprobs(logprobs: object) -> tuple[tuple[str, float], ...] | None:
    """``choices[0].logprobs.content`` as (token, log-probability) pairs; None when the
    server sent none (most servers, unless asked; some never)."""
    content = getattr(logprobs, "content", None)
    if not content:
        return None
    pairs = []
    for entry in content:
        token, value = getattr(entry, "token", None), getattr(entry, "logprob", None)
        if not isinstance(token, str) or isinstance(value, bool):
            return None
        if not isinstance(value, int | float):
            return None
        pairs.append((token, float(value)))
    return tuple(pairs)


def _message(turn: Turn) -> dict[str, Any]:
    if not turn.images:  # a plain string: the form every compatible server accepts
        return {"role": turn.role, "content": turn.text}
    parts: list[dict[str, Any]] = [
        {"type": "image_url", "image_url": {"url": image.data_url}} for image in turn.images
    ]
    parts.append({"type": "text", "text": turn.text})
    return {"role": turn.role, "content": parts}
