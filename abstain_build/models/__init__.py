"""The model layer: one client for chat models with images, over OpenAI-compatible and
Anthropic endpoints, with a disk cache, retries, bounded concurrency and strict parsing.

::

    from abstain_build.models import ClientOptions, ModelClient, ModelRequest

    options = ClientOptions(cache_path=out / "state" / "models.sqlite")
    with ModelClient("openai:gpt-4o-mini", options) as llm:
        request = ModelRequest(text="Is the chart legible?", images=(png,), purpose="qc-v1")
        answer = llm.ask(request).unwrap()  # ModelError when the call failed or never parsed

Per-request failures (network after all retries, HTTP errors, unparseable replies) come back as
``ModelResult(ok=False, ...)``; only bad configuration raises (``ConfigError``).
"""

from __future__ import annotations

from .cache import ReplyCache, cache_key
from .client import ClientOptions, ModelClient, stop_if_unusable
from .errors import ModelError
from .images import EncodedImage, encode_for_model
from .redact import Redactor
from .request import ModelRequest, ReplySchema, object_schema
from .result import ModelResult
from .retry import RetryPolicy
from .spec import ModelSpec, hide_endpoints, parse_spec, public_spec
from .stats import ModelStats, merge_stats, stats_delta

__all__ = [
    "ClientOptions",
    "EncodedImage",
    "ModelClient",
    "ModelError",
    "ModelRequest",
    "ModelResult",
    "ModelSpec",
    "ModelStats",
    "Redactor",
    "ReplyCache",
    "ReplySchema",
    "RetryPolicy",
    "cache_key",
    "encode_for_model",
    "hide_endpoints",
    "merge_stats",
    "object_schema",
    "parse_spec",
    "public_spec",
    "stats_delta",
    "stop_if_unusable",
]
