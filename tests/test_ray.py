"""Builds on Ray (``--executor ray``) against a real Ray: the bytes of a build in local
workers, on a cluster and on a Ray the build starts; a killed driver resumed to the same
bytes with nothing of its Ray left running; Ctrl-C; a sample that kills its worker
isolated."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from abstain_build.pipeline.output import JOURNAL_FILE
from abstain_build.pipeline.parallel import CRASH_REASON

from .conftest import ROOT, read_jsonl
from .test_build import tree_digest
from .test_parallel import CRASH_PLUGIN

pytest.importorskip("ray")


@pytest.fixture
def ray_tmp() -> Iterator[Path]:
    """A Ray temp folder of the test's own (short: Ray's socket paths must fit in 107
    bytes), so that the processes of the test's Ray can be told from any other's."""
    folder = Path(tempfile.mkdtemp(prefix="abr-", dir="/tmp"))
    yield folder
    for pid in _ray_processes(folder):
        os.kill(pid, signal.SIGKILL)


def _ray_processes(folder: Path) -> list[int]:
    """Live processes of the Rays started under ``folder``: those whose command line or
    environment names it (the raylet's agents rename themselves, but keep RAY_TMPDIR)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            seen = (proc / "cmdline").read_bytes() + (proc / "environ").read_bytes()
        except OSError:
            continue
        if state != "Z" and str(folder).encode() in seen and int(proc.name) != os.getpid():
            found.append(int(proc.name))
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _command(source: Path, out: Path, *extra: str, executor: str = "ray") -> list[str]:
    return [
        sys.executable,
        "-m",
        "abstain_build",
        "transform",
        str(source),
        "--out",
        str(out),
        "--seed",
        "3",
        "--min-validity",
        "0",
        "--executor",
        executor,
        "--workers",
        "2",
        "-q",
        *extra,
    ]


def test_a_cluster_named_by_ray_address_is_used_and_left_running(
    tmp_path: Path, fixture_builds: dict[str, Path], ray_tmp: Path
) -> None:
    """A cluster started apart (``ray start --head``), named by $RAY_ADDRESS: the build
    runs its tasks there, writes the same bytes, and leaves the cluster as it found it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, RAY_TMPDIR=str(ray_tmp), RAY_USAGE_STATS_ENABLED="0")
    ray = str(Path(sys.executable).with_name("ray"))
    head = [ray, "start", "--head", "--port", str(port), "--num-cpus", "2"]
    head += ["--node-ip-address", "127.0.0.1", "--include-dashboard", "false"]
    started = subprocess.run(head, env=env, capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    cluster = set(_ray_processes(ray_tmp))
    assert cluster
    out = tmp_path / "run"
    env.update(RAY_ADDRESS=f"127.0.0.1:{port}", RAY_AUTH_MODE="token")
    command = _command(ROOT / "fixtures" / "mmmu", out)
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert tree_digest(out) == tree_digest(fixture_builds["mmmu"])
    assert cluster <= set(_ray_processes(ray_tmp)), "a cluster it did not start is left running"


def test_a_killed_driver_resumes_to_the_same_bytes_and_its_ray_is_cleared(
    tmp_path: Path, fixture_builds: dict[str, Path], ray_tmp: Path
) -> None:
    """SIGKILL of the driver once samples are committed takes its GCS and raylet along,
    but not the raylet's agents; the next run clears them, resumes, and writes the bytes
    of an uninterrupted build in local workers (data, errors, card, assets)."""
    out = tmp_path / "run"
    env = dict(os.environ, RAY_TMPDIR=str(ray_tmp))
    command = _command(ROOT / "fixtures" / "mmlongbench-doc", out)
    driver = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    journal = out / JOURNAL_FILE
    deadline = time.monotonic() + 300
    while driver.poll() is None and time.monotonic() < deadline:
        if journal.exists() and len(journal.read_bytes().splitlines()) >= 2:
            break
        time.sleep(0.05)
    gcs = [_cmdline(pid) for pid in _ray_processes(ray_tmp) if "gcs_server" in _cmdline(pid)]
    assert gcs and all("--node-ip-address=127.0.0.1" in line for line in gcs), gcs
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    committed = len(journal.read_bytes().splitlines())
    assert 2 <= committed < 13, "killed too late (or too early) to test a resume"
    time.sleep(1)
    left = _ray_processes(ray_tmp)
    assert left, "a killed driver leaves its Ray's agents (else this test proves nothing)"

    done = subprocess.run(command, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Token authentication" not in done.stderr
    assert _ray_processes(ray_tmp) == [], "the killed run's agents and this run's Ray are gone"
    assert json.loads((out / "manifest.json").read_text())["config"]["executor"] == "ray"
    assert tree_digest(out) == tree_digest(fixture_builds["mmlongbench-doc"])
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["timings"]["resumed_from"] == committed


def test_a_sample_that_kills_its_ray_worker_gets_an_error_record_alone(
    tmp_path: Path, ray_tmp: Path
) -> None:
    """The plugin kills its worker process on one sample, every time: that sample gets the
    crash record, every other one its outcome, as in local worker processes."""
    marker = tmp_path / "crashed"
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "crash_then_mark.py").write_text(CRASH_PLUGIN.format(marker=str(marker)))
    env = dict(
        os.environ,
        RAY_TMPDIR=str(ray_tmp),
        PYTHONPATH=os.pathsep.join([str(plugins), os.environ.get("PYTHONPATH", "")]),
    )
    out, local = tmp_path / "out", tmp_path / "local"
    options = ("--plugin", "crash_then_mark", "--transforms", "crash_then_mark", "--no-routing")
    source = ROOT / "fixtures" / "mmmu"
    done = subprocess.run(_command(source, out, *options), env=env, capture_output=True, text=True)
    assert marker.exists()
    errors = read_jsonl(out / "errors.jsonl")
    crashed = [e for e in errors if e["reason"] == CRASH_REASON]
    assert [e["sample_id"] for e in crashed] == ["fixture_chart_line"], done.stderr
    made = {r["group_id"] for r in read_jsonl(out / "data.jsonl")}
    assert made and "fixture_chart_line" not in made
    marker.unlink()
    command = _command(source, local, *options, executor="local")
    assert subprocess.run(command, env=env, capture_output=True).returncode == done.returncode
    assert marker.exists()
    assert tree_digest(out) == tree_digest(local)


def test_ctrl_c_stops_the_build_and_its_ray(tmp_path: Path, ray_tmp: Path) -> None:
    """SIGINT once samples are committed: the driver says how to resume, marks the run
    interrupted and stops the Ray it started (GCS, raylet, agents, workers)."""
    out = tmp_path / "run"
    env = dict(os.environ, RAY_TMPDIR=str(ray_tmp))
    command = _command(ROOT / "fixtures" / "mmlongbench-doc", out)
    driver = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # As at a terminal: a test runner's worker may ignore SIGINT, and a child inherits that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    journal = out / JOURNAL_FILE
    deadline = time.monotonic() + 300
    while driver.poll() is None and time.monotonic() < deadline:
        if journal.exists() and journal.read_bytes().count(b"\n") >= 1:
            break
        time.sleep(0.05)
    assert _ray_processes(ray_tmp), "the build runs on a Ray of its own"
    driver.send_signal(signal.SIGINT)
    _, err = driver.communicate(timeout=120)
    assert driver.returncode != 0
    assert b"resume" in err
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    time.sleep(1)
    assert _ray_processes(ray_tmp) == []
