"""One small request per model before a run builds anything: a dead endpoint, a refused
key, an unknown model name or a text-only model asked to look at images stops the run at
once, with one line that says which and what to do (instead of a retry storm per sample).

The probe asks for one word, then, when the role needs images, for one word about a tiny
picture. Replies are cached like any other, so a resumed run probes without a call.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
from collections.abc import Iterator

from PIL import Image

from .client import ClientOptions, ModelClient
from .request import ModelRequest
from .result import ModelResult
from .retry import RetryPolicy

PURPOSE = "probe/v1"
#: A probe fails fast: two attempts, short waits, no re-asks.
PROBE_RETRY = RetryPolicy(max_attempts=2, base_delay=0.5, max_delay=1.0)
PROBE_TIMEOUT = 30.0


def _picture() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (32, 32), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


def probe_model(spec: str, options: ClientOptions, role: str, images: bool) -> str | None:
    """None when the model answers (and looks at an image, if ``images``); else one line
    naming ``role`` (the flag that named it), what failed and what to do."""
    quick = dataclasses.replace(
        options,
        retry=PROBE_RETRY,
        max_reasks=0,
        timeout=min(options.timeout, PROBE_TIMEOUT),
        concurrency=1,
    )
    with _quiet(), ModelClient(spec, quick) as client:
        text = client.ask(
            ModelRequest(text="Reply with the word OK.", purpose=PURPOSE, max_tokens=8)
        )
        if not text.ok:
            return f"{role} {client.label}: {_advice(text, client)}"
        if not images:
            return None
        picture = client.ask(
            ModelRequest(
                text="What colour is this square? One word.",
                purpose=f"{PURPOSE}/image",
                images=(_picture(),),
                max_tokens=8,
            )
        )
        if not picture.ok:
            return (
                f"{role} {client.label} answers text but not a request with an image"
                f" ({picture.error}): {role} needs a model that reads images (a vision model)"
            )
    return None


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The probe's own line says what failed; the client's retry warnings would repeat it."""
    logger = logging.getLogger("abstain_build.models.client")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _advice(result: ModelResult[str], client: ModelClient) -> str:
    endpoint = client.spec.public_endpoint
    if result.kind == "connection" or result.kind == "timeout":
        return f"cannot reach {endpoint} ({result.error}); start the server or fix the URL"
    if result.kind == "auth":
        return f"the key was refused ({result.error}); set the right API key"
    if result.kind == "not_found":
        return (
            f"{endpoint} does not know model {client.spec.model!r} ({result.error}); check the"
            " name (the server's /v1/models lists them)"
        )
    return f"the probe request failed ({result.kind}: {result.error})"
