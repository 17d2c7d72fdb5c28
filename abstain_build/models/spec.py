"""Which model to call: the ``--llm`` / ``--judge`` spec string, and where its key comes from."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from ..errors import ConfigError

Provider = Literal["openai", "anthropic"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")

#: Where calls go when the spec names no base URL. The SDKs' own environment variables
#: (OPENAI_BASE_URL, ANTHROPIC_BASE_URL) are deliberately not consulted: the spec, which is
#: recorded, must say where the replies came from.
DEFAULT_BASE_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}

KEY_VARIABLES: dict[str, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}

#: Sent to a self-hosted server when no key is set: the SDKs refuse to start without one.
PLACEHOLDER_KEY = "not-needed"

SPEC_FORMAT = "PROVIDER:MODEL[@BASE_URL] with PROVIDER one of openai, anthropic"

# The model may itself contain ":" (ollama "llava:13b") and "@" (vertex "claude-x@2025..."):
# only an "@" followed by http(s):// starts the base URL.
_SPEC = re.compile(r"^(?P<provider>[a-z]+):(?P<model>.+?)(?:@(?P<url>https?://\S+))?$")


@dataclass(frozen=True)
class ModelSpec:
    """A provider, a model name and an optional base URL; ``label`` names it in records."""

    provider: Provider
    model: str
    base_url: str | None = None

    @property
    def label(self) -> str:
        base = f"{self.provider}:{self.model}"
        return f"{base}@{self.base_url}" if self.base_url else base

    @property
    def endpoint(self) -> str:
        """The base URL calls actually go to (the provider's public API by default)."""
        return self.base_url or DEFAULT_BASE_URLS[self.provider]

    def __str__(self) -> str:
        return self.label


def parse_spec(text: str) -> ModelSpec:
    """``openai:gpt-4o-mini``, ``openai:qwen2-vl@http://127.0.0.1:8000/v1``, ``anthropic:...``."""
    match = _SPEC.match(text.strip())
    if match is None:
        raise ConfigError(f"model spec {text!r} is not {SPEC_FORMAT}")
    provider = match["provider"]
    if provider not in PROVIDERS:
        raise ConfigError(f"model spec {text!r}: unknown provider {provider!r} ({SPEC_FORMAT})")
    model = match["model"].strip()
    if not model or any(c.isspace() for c in model):
        raise ConfigError(f"model spec {text!r}: the model name is empty or has spaces")
    url = match["url"]
    if url is None and re.search(r"@https?:", model):
        raise ConfigError(f"model spec {text!r}: the base URL is malformed")
    return ModelSpec(provider, model, _check_url(url, text) if url else None)  # type: ignore[arg-type]


def _check_url(url: str, text: str) -> str:
    parts = urlsplit(url)
    if not parts.hostname:
        raise ConfigError(f"model spec {text!r}: base URL has no host")
    if parts.username or parts.password:
        # The label is written to records; a password in it would leak. Not echoed here either.
        raise ConfigError("model spec: the base URL must not carry credentials (user:password@)")
    return url.rstrip("/")


def resolve_api_key(spec: ModelSpec, variable: str | None = None) -> tuple[str, bool]:
    """The key to send and whether it is a real secret (False for the local placeholder)."""
    name = variable or KEY_VARIABLES[spec.provider]
    key = os.environ.get(name, "").strip()
    if key:
        return key, True
    if spec.base_url is None:
        raise ConfigError(f"{spec.label}: {name} is not set (needed for {spec.endpoint})")
    return PLACEHOLDER_KEY, False
