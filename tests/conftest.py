"""Shared test helpers: tiny datasets built by code, and the optional ../shared/data."""

from __future__ import annotations

import atexit
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf
import pytest
from PIL import Image

from .model_server import ModelServer

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
SHARED_DATA = ROOT.parent / "shared" / "data"

#: One text-derived cache for the whole session (builds in subprocesses inherit it), never
#: the developer's own ~/.cache; removed at exit.
_CACHE = tempfile.mkdtemp(prefix="abstain-build-cache-")
os.environ["ABSTAIN_BUILD_CACHE"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent (real MMLongBench-Doc / MMMU copies)")
    return SHARED_DATA


def png_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(array).save(buffer, format="PNG")
    return buffer.getvalue()


def gradient_image(width: int = 96, height: int = 64, channels: int = 3) -> np.ndarray:
    """A deterministic image with every brightness level present."""
    y, x = np.mgrid[0:height, 0:width]
    base = ((x * 255) // max(1, width - 1)).astype(np.uint8)
    layers = [base, ((y * 255) // max(1, height - 1)).astype(np.uint8), 255 - base]
    if channels == 4:
        layers.append(((x + y) % 256).astype(np.uint8))
    return np.stack(layers[:channels], axis=-1)


def fixture_sample(sample_id: str) -> Any:
    """One sample of the shipped document fixture, by id."""
    from abstain_build.loaders import open_source
    from abstain_build.model import Sample

    for item in open_source(str(FIXTURES / "mmlongbench-doc"), None):
        if isinstance(item, Sample) and item.id == sample_id:
            return item
    raise LookupError(sample_id)


def make_pdf(
    path: Path, pages: list[tuple[str, str]], size: tuple[float, float] = (612, 792)
) -> Path:
    """A text-layer PDF; each page has one text block in its top half and one in its bottom half."""
    document = pymupdf.open()
    width, height = size
    for top, bottom in pages:
        page = document.new_page(width=width, height=height)
        page.insert_textbox(pymupdf.Rect(54, 60, width - 54, height / 2 - 40), top, fontsize=12)
        page.insert_textbox(
            pymupdf.Rect(54, height / 2 + 40, width - 54, height - 60), bottom, fontsize=12
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(document.tobytes(garbage=3, deflate=True, no_new_id=True))
    document.close()
    return path


def page_one_sample(path: Path, question: str, answer: str, answer_format: str = "Float"):
    """A sample asking ``question`` of the PDF at ``path``, its evidence on page 1."""
    from abstain_build.model import DocumentRef, Sample, SourceInfo

    return Sample(
        id=path.stem,
        source=SourceInfo("test", "test", "test.jsonl", 0),
        question=question,
        answer=answer,
        answer_format=answer_format,
        document=DocumentRef(path=path, doc_id=path.name),
        evidence_pages=(1,),
    )


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def run_cli(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """The real console entry point, in a subprocess."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "abstain_build", *args],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd or ROOT,
        timeout=600,
    )


@pytest.fixture
def no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Never send a developer's real key to the test server; tests set keys explicitly."""
    for name in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "ABSTAIN_BUILD_LLM",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def fixture_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The two shipped fixtures built once for the session (seed 3, offline QC without the
    validity bar, so the judges' accepted items stay accepted): originals and accepted
    counterparts, for review, export, predict and eval. Treat as read-only: copy a build
    before changing it (eval's reports under DATASET/eval are the exception)."""
    from abstain_build import BuildConfig, build

    base = tmp_path_factory.mktemp("fixture-builds")
    out = {}
    for name in ("mmmu", "mmlongbench-doc"):
        # Two workers: both cores of a CI machine; the bytes are those of one worker.
        config = BuildConfig(source=str(FIXTURES / name), out=str(base / name), seed=3, workers=2)
        config.min_validity = 0.0
        build(config)
        out[name] = base / name
    return out


@pytest.fixture
def predict_dataset(fixture_builds: dict[str, Path]) -> Path:
    """The built MMMU fixture, as predict asks it."""
    return fixture_builds["mmmu"]


@pytest.fixture
def server() -> Iterator[ModelServer]:
    """A real HTTP server on 127.0.0.1 speaking the OpenAI and Anthropic protocols."""
    with ModelServer() as running:
        yield running
