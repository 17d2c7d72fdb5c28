"""Which model to call: the ``--llm`` / ``--judge`` spec string, and where its key comes from.

A base URL may carry a key in its query (``http://host/v1?key=...``), so a spec is written
and printed only as its ``label`` (query values and fragment masked), and published only as
its ``name`` (no server at all); the URL as given serves the calls alone.
"""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from ..errors import ConfigError
from .redact import KEY_VARIABLES, masked_url, url_secrets

Provider = Literal["openai", "anthropic"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")

#: Where calls go when the spec names no base URL. The SDKs' own environment variables
#: (OPENAI_BASE_URL, ANTHROPIC_BASE_URL) are deliberately not consulted: the spec, which is
#: recorded, must say where the replies came from.
DEFAULT_BASE_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}
HOUSES: dict[str, str] = {"openai": "OpenAI", "anthropic": "Anthropic"}

#: Sent to a self-hosted server when no key is set: the SDKs refuse to start without one.
PLACEHOLDER_KEY = "not-needed"

SPEC_FORMAT = "PROVIDER:MODEL[@BASE_URL] with PROVIDER one of openai, anthropic"

# The model may itself contain ":" (ollama "llava:13b") and "@" (vertex "claude-x@2025..."):
# only an "@" followed by http(s):// starts the base URL.
_SPEC = re.compile(r"^(?P<provider>[a-z]+):(?P<model>.+?)(?:@(?P<url>https?://\S+))?$")
_URL = re.compile(r"https?://\S+")
#: A label inside prose or Markdown: the URL ends before a space, quote, backtick, bracket
#: or list punctuation, and a sentence's full stop is not part of it.
_LABEL_IN_TEXT = re.compile(
    rf"\b(?P<name>(?:{'|'.join(PROVIDERS)}):\S+?)@https?://[^\s`'\"<>,;|()]*[^\s`'\"<>,;|().]"
)


@dataclass(frozen=True)
class ModelSpec:
    """A provider, a model name and an optional base URL; ``label`` names it in records."""

    provider: Provider
    model: str
    base_url: str | None = None

    @property
    def label(self) -> str:
        """How the model is named in everything written or printed (records, manifests,
        cards, cache rows, logs, messages): the URL's query values and fragment masked."""
        return self._with(masked_url(self.base_url) if self.base_url else None)

    @property
    def unredacted(self) -> str:
        """The spec with the URL as given: what a client is built from (here or in a worker
        process). Never written: ``label`` is."""
        return self._with(self.base_url)

    @property
    def name(self) -> str:
        """Provider and model without any server (``openai:gpt-4o-mini``), for what is
        published: an exported card names no host of the user's."""
        return f"{self.provider}:{self.model}"

    @property
    def endpoint(self) -> str:
        """The base URL calls actually go to (the provider's public API by default)."""
        return self.base_url or DEFAULT_BASE_URLS[self.provider]

    @property
    def public_endpoint(self) -> str:
        """``endpoint`` as it may be printed or written (query values and fragment masked)."""
        return masked_url(self.endpoint)

    @property
    def secrets(self) -> list[str]:
        """The values ``label`` masks, for a ``Redactor`` (servers echo URLs in errors)."""
        return url_secrets(self.endpoint)

    @property
    def server(self) -> str:
        """What kind of server answers, in words, without its address: "OpenAI's API",
        "a local OpenAI-compatible server", "an Anthropic-compatible server"."""
        house = HOUSES[self.provider]
        host = urlsplit(self.endpoint).hostname or ""
        if host == urlsplit(DEFAULT_BASE_URLS[self.provider]).hostname:
            return f"{house}'s API"
        return f"{'a local' if _is_local(host) else 'an'} {house}-compatible server"

    def call_target(self) -> tuple[str, dict[str, str]]:
        """The base URL without query or fragment, and the query as parameters of every
        call: the SDKs append their paths to the base URL as text, so a query left in it
        would end up before the path (``/v1?key=...chat/completions``)."""
        parts = urlsplit(self.endpoint)
        base = urlunsplit(parts._replace(query="", fragment=""))
        return base, dict(parse_qsl(parts.query, keep_blank_values=True))

    def _with(self, url: str | None) -> str:
        return f"{self.name}@{url}" if url else self.name

    def __str__(self) -> str:
        return self.label


def parse_spec(text: str) -> ModelSpec:
    """``openai:gpt-4o-mini``, ``openai:qwen2-vl@http://127.0.0.1:8000/v1``, ``anthropic:...``."""
    shown = _shown(text)
    match = _SPEC.match(text.strip())
    if match is None:
        raise ConfigError(f"model spec {shown!r} is not {SPEC_FORMAT}")
    provider = match["provider"]
    if provider not in PROVIDERS:
        raise ConfigError(f"model spec {shown!r}: unknown provider {provider!r} ({SPEC_FORMAT})")
    model = match["model"].strip()
    if not model or any(c.isspace() for c in model):
        raise ConfigError(f"model spec {shown!r}: the model name is empty or has spaces")
    url = match["url"]
    if url is None and re.search(r"@https?:", model):
        raise ConfigError(f"model spec {shown!r}: the base URL is malformed")
    return ModelSpec(provider, model, _check_url(url, shown) if url else None)  # type: ignore[arg-type]


def _check_url(url: str, shown: str) -> str:
    parts = urlsplit(url)
    if not parts.hostname:
        raise ConfigError(f"model spec {shown!r}: base URL has no host")
    if parts.username or parts.password:
        # The label is written to records; a password in it would leak. Not echoed here either.
        raise ConfigError("model spec: the base URL must not carry credentials (user:password@)")
    return url.rstrip("/")


def public_spec(text: str) -> str:
    """A ``--llm`` / ``--judge`` / ``--blind-gate`` value as it is written: a model spec by
    its ``label``, anything else (``offline:leak``) as given, a URL in it masked."""
    try:
        return parse_spec(text).label
    except ConfigError:
        return _shown(text)


def hide_endpoints(text: str) -> str:
    """``text`` with every model label's ``@URL`` left out (``openai:m@http://h/v1`` ->
    ``openai:m``): what is published names no server of the user's."""
    return _LABEL_IN_TEXT.sub(lambda found: found["name"], text)


def _shown(text: str) -> str:
    """``text`` with any URL in it masked, for a message about a spec that did not parse."""
    return _URL.sub(lambda found: masked_url(found.group()), text.strip())


def _is_local(host: str) -> bool:
    """Loopback, a private network, or a name only a local network resolves."""
    try:
        return ipaddress.ip_address(host).is_private
    except ValueError:
        return "." not in host or host.endswith((".localhost", ".local", ".internal", ".lan"))


def resolve_api_key(spec: ModelSpec, variable: str | None = None) -> tuple[str, bool]:
    """The key to send and whether it is a real secret (False for the local placeholder)."""
    name = variable or KEY_VARIABLES[spec.provider]
    key = os.environ.get(name, "").strip()
    if key:
        return key, True
    if spec.base_url is None:
        raise ConfigError(f"{spec.label}: {name} is not set (needed for {spec.endpoint})")
    return PLACEHOLDER_KEY, False
