"""A key in an endpoint URL's query (``openai:m@http://host/v1?key=...``) is sent with every
call and written nowhere: not in the build, its state, QC, the export, predictions,
messages or cache rows; a resumed run compares the masked forms; a published card names
no server at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from abstain_build.errors import ConfigError
from abstain_build.models import ClientOptions, ModelClient, ModelRequest, parse_spec

from .model_server import ModelServer, error, reply

pytestmark = pytest.mark.usefixtures("no_real_keys")

SECRET = "SECRET-TOKEN-123"


def keyed(server: ModelServer) -> str:
    return f"{server.openai_url}?key={SECRET}"


def files_holding(folder: Path, secret: str) -> list[str]:
    """Every file under ``folder`` whose bytes hold ``secret`` (SQLite, parquet included)."""
    return [
        str(path.relative_to(folder))
        for path in sorted(folder.rglob("*"))
        if path.is_file() and secret.encode() in path.read_bytes()
    ]


@pytest.mark.parametrize(
    ("url", "label"),
    [
        ("http://h:8/v1?key=s3cr3t-value", "http://h:8/v1?key=[REDACTED]"),
        (
            "http://h/v1?api-version=2024&sig=abc",
            "http://h/v1?api-version=[REDACTED]&sig=[REDACTED]",
        ),
        ("http://h/v1?s3cr3t-value", "http://h/v1?[REDACTED]"),
        ("http://h/v1#s3cr3t-value", "http://h/v1#[REDACTED]"),
        ("http://h/v1", "http://h/v1"),
    ],
)
def test_a_label_masks_every_query_value_and_the_fragment(url: str, label: str) -> None:
    spec = parse_spec(f"openai:m@{url}")
    assert spec.label == f"openai:m@{label}" and str(spec) == spec.label
    assert spec.unredacted == f"openai:m@{url}"
    assert spec.name == "openai:m"


def test_a_spec_that_does_not_parse_is_refused_without_echoing_the_key() -> None:
    with pytest.raises(ConfigError) as refused:
        parse_spec(f"openai:two words@http://127.0.0.1:9/v1?key={SECRET}")
    assert SECRET not in str(refused.value) and "?key=[REDACTED]" in str(refused.value)


def test_an_error_that_echoes_the_url_is_kept_without_the_key(
    server: ModelServer, tmp_path: Path
) -> None:
    server.push(error(400, f"no route for /v1/chat/completions?key={SECRET}#{SECRET}"))
    server.push(reply("fine"))
    cache = tmp_path / "models.sqlite"
    with ModelClient(f"openai:m@{keyed(server)}", ClientOptions(cache_path=cache)) as client:
        failed = client.ask(ModelRequest(text="first", purpose="test"))
        answered = client.ask(ModelRequest(text="second", purpose="test"))
    assert not failed.ok and "no route for" in failed.error and SECRET not in failed.error
    assert answered.ok and answered.model == f"openai:m@{server.openai_url}?key=[REDACTED]"
    assert files_holding(tmp_path, SECRET) == []
