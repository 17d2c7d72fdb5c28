"""Messages through the ``anthropic`` SDK."""

from __future__ import annotations

import json
import logging
from typing import Any

import anthropic
from anthropic.types import Message

from .backends import as_int, bad_body, failure_from_sdk, refuses_schema
from .cache import Reply
from .errors import CallFailure
from .request import Conversation, Turn
from .spec import ModelSpec

log = logging.getLogger(__name__)


class AnthropicBackend:
    """Images go inline as base64 ``image`` blocks, before the text of their turn.

    No temperature: API version 2026-10-21 (the SDK 2.x default) answers 400 to any
    sampling parameter, and the SDK no longer has one. A reply schema is sent as one tool
    the model must call; its input, as JSON, is the reply text.
    """

    sends_temperature = False

    def __init__(self, spec: ModelSpec, api_key: str, timeout: float) -> None:
        self.model = spec.model
        self.identity = {
            "provider": "anthropic",
            "model": spec.model,
            "base_url": spec.public_endpoint,
        }
        base_url, query = spec.call_target()
        self._client = anthropic.Anthropic(
            base_url=base_url,
            default_query=query or None,
            api_key=api_key,
            max_retries=0,
            timeout=timeout,
        )
        #: False once the server refused a forced tool that it then answered without.
        self.structured = True

    def send(self, conversation: Conversation) -> Reply:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": conversation.max_tokens,
            "messages": [_message(turn) for turn in conversation.turns],
        }
        if conversation.system is not None:
            kwargs["system"] = conversation.system
        if conversation.schema is not None and self.structured:
            schema = conversation.schema
            tool = {
                "name": schema.name,
                "description": "Give your reply as this tool's input.",
                "input_schema": dict(schema.schema),
            }
            try:
                return self._create(
                    {
                        **kwargs,
                        "tools": [tool],
                        "tool_choice": {"type": "tool", "name": schema.name},
                    }
                )
            except CallFailure as failure:
                if not refuses_schema(failure, "tool"):
                    raise
                reply = self._create(kwargs)
                self.structured = False
                log.info(
                    "%s refused a forced tool (%s); asking without one", self.model, failure.message
                )
                return reply
        return self._create(kwargs)

    def _create(self, kwargs: dict[str, Any]) -> Reply:
        try:
            response = self._client.messages.create(**kwargs)
        except Exception as exc:
            failure = failure_from_sdk(exc, anthropic)
            if failure is None:
                raise
            raise failure from None
        return self.reply(response)

    @staticmethod
    def reply(response: object) -> Reply:
        if not isinstance(response, Message):
            raise bad_body("a message", response)
        content = getattr(response, "content", None)
        if not isinstance(content, list):
            raise bad_body("a message with content", response)
        tool_inputs = [
            block.input for block in content if getattr(block, "type", None) == "tool_use"
        ]
        text = (
            json.dumps(tool_inputs[0], ensure_ascii=False)
            if tool_inputs
            else "".join(
                block.text
                for block in content
                if getattr(block, "type", None) == "text" and isinstance(block.text, str)
            )
        )
        usage = getattr(response, "usage", None)
        inputs = sum(
            as_int(getattr(usage, name, 0))
            for name in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        )
        return Reply(
            text=text,
            input_tokens=inputs,
            output_tokens=as_int(getattr(usage, "output_tokens", 0)),
            stop_reason=getattr(response, "stop_reason", None),
        )

    def close(self) -> None:
        self._client.close()


def _message(turn: Turn) -> dict[str, Any]:
    if not turn.images:
        return {"role": turn.role, "content": turn.text}
    blocks: list[dict[str, Any]] = [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": image.base64},
        }
        for image in turn.images
    ]
    blocks.append({"type": "text", "text": turn.text})
    return {"role": turn.role, "content": blocks}
