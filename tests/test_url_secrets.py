"""A key in an endpoint URL's query (``openai:m@http://host/v1?key=...``) is sent with every
call and written nowhere: not in the build, its state, QC, the export, predictions,
messages or cache rows; a resumed run compares the masked forms; a published card names
no server at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abstain_build import BuildConfig
from abstain_build.errors import ConfigError
from abstain_build.models import ClientOptions, ModelClient, ModelRequest, parse_spec
from abstain_build.pipeline.build import probe_models
from abstain_build.pipeline.output import CONFIG_FILE, RunOutput
from abstain_build.predict import predict

from .conftest import FIXTURES, run_cli
from .model_server import OPENAI_PATH, ModelServer, error, reply
from .test_predict import answering
from .test_qc import judge_server

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


def test_the_rewrite_model_is_written_masked_and_called_with_its_key(
    server: ModelServer, tmp_path: Path
) -> None:
    config = BuildConfig(
        source=str(FIXTURES / "mmmu"), out=str(tmp_path), llm=f"openai:rw@{keyed(server)}"
    )
    masked = f"openai:rw@{server.openai_url}?key=[REDACTED]"
    assert config.to_dict()["llm"] == config.fingerprint()["llm"] == masked
    probe_models(config)  # the start-up request every build makes
    assert server.probes and all(r.query == {"key": SECRET} for r in server.probes)


def test_a_folder_whose_config_kept_the_key_resumes_and_loses_it(tmp_path: Path) -> None:
    """What an older version wrote: the same settings with the URL as given."""
    settings = {"seed": 0, "llm": "openai:m@http://127.0.0.1:9/v1?key=[REDACTED]", "judges": []}
    (tmp_path / "state").mkdir()
    old = dict(settings, llm=settings["llm"].replace("[REDACTED]", SECRET))
    (tmp_path / CONFIG_FILE).write_text(json.dumps(old))
    output = RunOutput(tmp_path)
    output.prepare(settings, overwrite=False)
    output.close()
    assert json.loads((tmp_path / CONFIG_FILE).read_text()) == settings


def test_a_masked_url_read_back_from_a_written_config_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    config = tmp_path / "run.toml"
    config.write_text('llm = "openai:m@http://127.0.0.1:9/v1?key=[REDACTED]"\n')
    out = tmp_path / "out"
    done = run_cli("transform", str(FIXTURES / "mmmu"), "-o", str(out), "--config", str(config))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: openai:m@http://127.0.0.1:9/v1?key=[REDACTED]: this URL was read back as"
        " written, its query masked; give the model with its real URL"
    ]
    assert not out.exists()


def test_predictions_and_their_summary_name_the_model_without_the_key(
    predict_dataset: Path, server: ModelServer, tmp_path: Path
) -> None:
    server.responder = answering()
    result = predict(predict_dataset, f"openai:vlm@{keyed(server)}", tmp_path / "p.jsonl", limit=1)
    assert result.answered == 1 and server.requests[0].query == {"key": SECRET}
    summary = json.loads((tmp_path / "p.jsonl.summary.json").read_text())
    assert summary["model"] == f"openai:vlm@{server.openai_url}?key=[REDACTED]"
    assert files_holding(tmp_path, SECRET) == []


def test_a_key_in_the_url_is_sent_with_each_call_and_written_nowhere_and_the_run_resumes(
    server: ModelServer, tmp_path: Path
) -> None:
    server.responder = judge_server(lambda model, question: "UNANSWERABLE")
    out, exported = tmp_path / "out", tmp_path / "export"
    judges = ("--judge", f"openai:a@{keyed(server)}", "--judge", f"openai:b@{keyed(server)}")
    build = ("transform", str(FIXTURES / "mmmu"), "-o", str(out), "--limit", "1", "--qc", "judges")
    runs = [run_cli(*build, *judges), run_cli("qc", str(out), *judges)]
    runs.append(run_cli("export", str(out), "--to", str(exported)))
    runs.append(run_cli(*build, *judges))  # the same command again, the real URL given
    for done in runs:
        assert done.returncode == 0, done.stderr
        assert SECRET not in done.stdout + done.stderr
    assert "(resumed after 1)" in runs[-1].stderr
    calls = [*server.probes, *server.requests]
    assert calls and all(r.path == OPENAI_PATH and r.query == {"key": SECRET} for r in calls)
    assert files_holding(out, SECRET) == [] and files_holding(exported, SECRET) == []
    written = json.loads((out / CONFIG_FILE).read_text())
    assert written["judges"][0] == f"openai:a@{server.openai_url}?key=[REDACTED]"
    card = (exported / "README.md").read_text()
    assert "127.0.0.1" not in card and "`openai:a`" in card
    assert "- `openai:b` (QC judge): a local OpenAI-compatible server." in card
