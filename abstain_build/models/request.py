"""What the caller asks (``ModelRequest``) and what is sent (``Conversation``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import ConfigError
from .images import EncodedImage, ImageInput


@dataclass(frozen=True)
class ReplySchema:
    """The JSON object a reply must be, by JSON Schema.

    Sent as ``response_format`` (``json_schema``) to OpenAI-compatible servers and as one
    forced tool to Anthropic, so that the server constrains decoding: even a 135M model
    then returns valid JSON. The caller's parser still checks every reply, and a server
    that refuses the schema is asked again without it (the parser alone then decides).
    Keep schemas in the subset strict mode accepts: every property required,
    ``additionalProperties: false``.
    """

    name: str
    schema: Mapping[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "schema": dict(self.schema)}


def object_schema(name: str, properties: Mapping[str, Any]) -> ReplySchema:
    """A schema for one flat JSON object with exactly ``properties``, all required."""
    return ReplySchema(
        name,
        {
            "type": "object",
            "properties": dict(properties),
            "required": list(properties),
            "additionalProperties": False,
        },
    )


@dataclass(frozen=True, eq=False, kw_only=True)
class ModelRequest:
    """One question to a model.

    ``purpose`` names the prompt and its version ("judge-answerable-v2"). It is part of the
    cache key: bump it to get fresh replies for an unchanged prompt (e.g. after the parser's
    expectations changed).
    """

    text: str
    purpose: str
    system: str | None = None
    images: tuple[ImageInput, ...] = ()
    max_tokens: int = 1024
    #: None: not sent (the server's default). Never sent to Anthropic, whose API refuses
    #: sampling parameters since version 2026-10-21.
    temperature: float | None = 0.0
    #: The reply's JSON shape, for servers that can enforce it; None for free text.
    schema: ReplySchema | None = None
    #: Ask for each generated token's log-probability (OpenAI-compatible servers only).
    logprobs: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "images", tuple(self.images))
        if self.max_tokens < 1:
            raise ConfigError(f"max_tokens must be at least 1, got {self.max_tokens}")
        if not self.purpose:
            raise ConfigError("a model request needs a purpose (prompt name and version)")


@dataclass(frozen=True)
class Turn:
    role: Literal["user", "assistant"]
    text: str
    images: tuple[EncodedImage, ...] = ()


@dataclass(frozen=True)
class Conversation:
    """Exactly what a backend sends: the cache key is computed from this."""

    system: str | None
    turns: tuple[Turn, ...]
    max_tokens: int
    temperature: float | None
    schema: ReplySchema | None = None
    logprobs: bool = False
