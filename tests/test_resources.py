"""A full disk or exhausted memory stops the run without blaming a sample: the samples in
flight are not journaled, so a resume (once space is freed) builds them, and the result is
byte for byte the uninterrupted build's."""

from __future__ import annotations

import errno
import shutil
import sys
from pathlib import Path

import pytest

from abstain_build.config import BuildConfig
from abstain_build.errors import ResourceExhausted, RunStopped, environment_failure
from abstain_build.pipeline.build import build

from .conftest import read_jsonl, run_cli

#: Raises what the OS raises when the disk is full (or memory is exhausted) while the flag
#: file named by $FULL_FLAG exists, for every sample after the first two of the fixture.
FILLING_PLUGIN = """
import errno
import os
from pathlib import Path

import numpy as np
from abstain_build.model import MODALITY
from abstain_build.transforms import ImagePlan, ImageTransform, register_transform

FIRST_TWO = ("fixture_chart_bar", "fixture_chart_line")


@register_transform
class DiskFills(ImageTransform):
    name = "disk_fills"
    family = "occlusion_ambiguity"
    axis = MODALITY
    description = "Darkens the image; fails as a full disk would while the flag exists."

    def plan_image(self, image, index, rng, ctx):
        flag = Path(os.environ["FULL_FLAG"])
        if flag.exists() and ctx.sample.id not in FIRST_TWO:
            kind = flag.read_text().strip()
            if kind == "memory":
                raise MemoryError()
            raise OSError(errno.ENOSPC, "No space left on device", "out/assets/x.png")
        return ImagePlan(params={})

    def apply_image(self, image, params):
        return (image // 8).astype(image.dtype)
"""


@pytest.fixture
def filling_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "filling_plugin.py").write_text(FILLING_PLUGIN)
    monkeypatch.syspath_prepend(str(plugins))
    flag = tmp_path / "full.flag"
    monkeypatch.setenv("FULL_FLAG", str(flag))
    monkeypatch.setenv("PYTHONPATH", str(plugins))  # for worker processes and the CLI
    yield flag
    from abstain_build.transforms import transforms

    transforms.unregister("disk_fills")
    if "filling_plugin" in transforms._plugins_loaded:  # imported afresh by the next test
        transforms._plugins_loaded.remove("filling_plugin")
    sys.modules.pop("filling_plugin", None)


def config(source: Path, out: Path, workers: int = 1) -> BuildConfig:
    return BuildConfig(
        source=str(source),
        out=str(out),
        transforms=["disk_fills"],
        plugins=["filling_plugin"],
        workers=workers,
        routing="none",
    )


def test_the_machine_s_failures_are_told_apart_from_a_sample_s() -> None:
    full = environment_failure(OSError(errno.ENOSPC, "No space left on device", "a.png"))
    assert full is not None and "no space left" in str(full) and "a.png" in str(full)
    assert "resume" in str(full)
    assert "out of memory" in str(environment_failure(MemoryError()))
    assert environment_failure(OSError(errno.EDQUOT, "Disk quota exceeded")) is not None
    import sqlite3

    db_full = sqlite3.OperationalError("database or disk is full")
    db_full.sqlite_errorcode = sqlite3.SQLITE_FULL
    assert environment_failure(db_full) is not None
    for ordinary in (OSError(errno.ENOENT, "No such file"), ValueError("bad"), KeyError("k")):
        assert environment_failure(ordinary) is None
    stopped = RunStopped("the all-MiniLM-L6-v2 weights are not installed")
    assert environment_failure(stopped) is stopped  # stops the run, not one sample


@pytest.mark.parametrize("workers", [1, 2])
def test_disk_full_then_resume_while_full_then_freed_gives_the_uninterrupted_bytes(
    tmp_path: Path, fixtures_dir: Path, filling_plugin: Path, workers: int
) -> None:
    source = fixtures_dir / "mmmu"
    reference = tmp_path / "reference"
    build(config(source, reference, workers))

    out = tmp_path / "out"
    filling_plugin.write_text("disk")
    for _ in range(2):  # the first run, then a resume while the disk is still full
        with pytest.raises(ResourceExhausted, match="no space left"):
            build(config(source, out, workers))
        assert read_jsonl(out / "errors.jsonl") == []  # nobody blamed
        done = {r["group_id"] for r in read_jsonl(out / "data.jsonl")}
        assert done <= {"fixture_chart_bar", "fixture_chart_line"}
    filling_plugin.unlink()  # space freed
    result = build(config(source, out, workers))
    assert result.exit_code == 0
    for name in ("data.jsonl", "errors.jsonl"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name
    assert sorted(p.name for p in (out / "images").rglob("*")) == sorted(
        p.name for p in (reference / "images").rglob("*")
    )


def test_the_cli_stops_with_one_line_and_exit_2_and_resumes(
    tmp_path: Path, fixtures_dir: Path, filling_plugin: Path
) -> None:
    source = tmp_path / "mmmu"
    shutil.copytree(fixtures_dir / "mmmu", source)
    out = tmp_path / "out"
    args = (
        "transform",
        str(source),
        "--out",
        str(out),
        "-t",
        "disk_fills",
        "--plugin",
        "filling_plugin",
        "--no-routing",
        "--quiet",
    )
    filling_plugin.write_text("memory")
    stopped = run_cli(*args)
    assert stopped.returncode == 2, stopped.stderr
    lines = [line for line in stopped.stderr.splitlines() if line.strip()]
    assert lines == [lines[0]] and "stopped: out of memory" in lines[0], stopped.stderr
    assert "--workers" in lines[0] and "resume" in lines[0]
    filling_plugin.unlink()
    resumed = run_cli(*args)
    assert resumed.returncode == 0, resumed.stderr
    assert read_jsonl(out / "errors.jsonl") == []
    assert len({r["group_id"] for r in read_jsonl(out / "data.jsonl")}) == 8
