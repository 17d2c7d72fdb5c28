"""Messages through the ``anthropic`` SDK."""

from __future__ import annotations

from typing import Any

import anthropic
from anthropic.types import Message

from .backends import as_int, bad_body, failure_from_sdk
from .cache import Reply
from .request import Conversation, Turn
from .spec import ModelSpec


class AnthropicBackend:
    """Images go inline as base64 ``image`` blocks, before the text of their turn.

    No temperature: API version 2026-10-21 (the SDK 2.x default) answers 400 to any
    sampling parameter, and the SDK no longer has one.
    """

    sends_temperature = False

    def __init__(self, spec: ModelSpec, api_key: str, timeout: float) -> None:
        self.model = spec.model
        self.identity = {"provider": "anthropic", "model": spec.model, "base_url": spec.endpoint}
        self._client = anthropic.Anthropic(
            base_url=spec.endpoint, api_key=api_key, max_retries=0, timeout=timeout
        )

    def send(self, conversation: Conversation) -> Reply:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": conversation.max_tokens,
            "messages": [_message(turn) for turn in conversation.turns],
        }
        if conversation.system is not None:
            kwargs["system"] = conversation.system
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
        text = "".join(
            block.text
            for block in content
            if getattr(block, "type", None) == "text" and isinstance(block.text, str)
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
