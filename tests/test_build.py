"""End-to-end builds on the shipped fixtures: determinism, output layout, resume, config."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from abstain_build import BuildConfig, ConfigError, build
from abstain_build.pipeline.output import JOURNAL_FILE
from abstain_build.pipeline.routing_pass import ROUTES_FILE
from abstain_build.routing.route import BALANCE_MARGIN

from .conftest import ROOT, read_jsonl, run_cli

DETERMINISTIC_FILES = ("data.jsonl", "errors.jsonl", "README.md", "transform_distribution.png")


def tree_digest(out: Path) -> dict[str, str]:
    """sha256 of every output file that must not depend on scheduling."""
    files = [out / name for name in DETERMINISTIC_FILES if (out / name).exists()]
    files += sorted(p for p in (out / "assets").rglob("*") if p.is_file())
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@pytest.fixture(scope="module")
def doc_runs(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path = ROOT / "fixtures"):
    base = tmp_path_factory.mktemp("doc-runs")
    results = {}
    for workers in (1, 2):
        config = BuildConfig(
            source=str(fixtures_dir / "mmlongbench-doc"),
            out=str(base / f"w{workers}"),
            seed=7,
            workers=workers,
        )
        results[workers] = build(config)
    return base, results


def test_same_seed_gives_identical_bytes_with_1_or_2_workers(doc_runs) -> None:
    base, _ = doc_runs
    one, two = tree_digest(base / "w1"), tree_digest(base / "w2")
    assert len(one) > 20
    assert one == two


def test_routing_gives_one_counterpart_per_sample_and_the_same_routes_with_any_workers(
    doc_runs,
) -> None:
    base, _ = doc_runs
    routes = [(base / w / "state" / ROUTES_FILE).read_bytes() for w in ("w1", "w2")]
    assert routes[0] == routes[1]
    counterparts = [r for r in read_jsonl(base / "w1" / "data.jsonl") if r["kind"] == "counterpart"]
    groups = [r["group_id"] for r in counterparts]
    assert len(groups) == len(set(groups)) > 5  # one unanswerable item per sample
    for row in counterparts:
        routing = row["routing"]
        # The chain first, then the other eligible transforms when every one declined.
        tried = routing["candidates"] + routing["eligible"]
        assert routing["mode"] == "auto" and row["transform"]["name"] in tried
        scores = json.loads(routing["scores"])
        assert row["transform"]["name"] in scores or routing["attempts"]
        # Routing first: the first choice is within the balance margin of the best score.
        first = routing["candidates"][0]
        assert scores[first] >= max(scores.values()) - BALANCE_MARGIN


@pytest.mark.exhaustive
def test_image_fixture_is_identical_across_workers_too(tmp_path: Path, fixtures_dir: Path) -> None:
    digests = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        build(
            BuildConfig(
                source=str(fixtures_dir / "mmmu-parquet"),
                out=str(out),
                seed=3,
                workers=workers,
            )
        )
        digests.append(tree_digest(out))
    assert digests[0] == digests[1]


@pytest.mark.exhaustive
def test_another_seed_changes_the_randomised_choices(
    tmp_path: Path, fixtures_dir: Path, doc_runs
) -> None:
    base, _ = doc_runs
    out = tmp_path / "seed8"
    build(BuildConfig(source=str(fixtures_dir / "mmlongbench-doc"), out=str(out), seed=8))
    seeds_7 = [
        r["transform"]["seed"] for r in read_jsonl(base / "w1" / "data.jsonl") if r["transform"]
    ]
    seeds_8 = [r["transform"]["seed"] for r in read_jsonl(out / "data.jsonl") if r["transform"]]
    assert len(seeds_7) == len(seeds_8) and not set(seeds_7) & set(seeds_8)


def test_every_control_has_its_counterparts_in_one_group(doc_runs) -> None:
    base, result = doc_runs
    records = read_jsonl(base / "w1" / "data.jsonl")
    groups: dict[str, list[dict]] = {}
    for record in records:
        groups.setdefault(record["group_id"], []).append(record)
    for members in groups.values():
        controls = [r for r in members if r["kind"] == "original"]
        assert len(controls) == 1 and controls[0]["transform"] is None
        assert controls[0]["answerable"] and controls[0]["answer"] == controls[0]["original_answer"]
        for item in members:
            if item["kind"] == "counterpart":
                assert not item["answerable"] and item["answer"] is None
            if item["kind"] == "answer_changed":  # answerable, with the printed new value
                assert item["answerable"] and item["answer"] != item["original_answer"]
            if item["kind"] != "original":
                assert item["original_answer"] == controls[0]["answer"]
                assert item["transform"]["name"] in item["id"]
    assert result[1].counts.answerable["evidence_sufficiency"] == len(groups) == 12


def test_paths_in_records_are_relative_and_exist(doc_runs) -> None:
    base, _ = doc_runs
    out = base / "w1"
    for record in read_jsonl(out / "data.jsonl"):
        paths = list(record["images"]) + ([record["document"]] if record["document"] else [])
        assert paths
        for path in paths:
            assert not Path(path).is_absolute()
            assert (out / path).is_file(), path


def test_document_items_carry_rendered_evidence_pages_at_144_dpi(doc_runs) -> None:
    from PIL import Image

    base, _ = doc_runs
    out = base / "w1"
    record = next(r for r in read_jsonl(out / "data.jsonl") if r["answerable"])
    assert len(record["images"]) == len(record["evidence_pages"])
    with Image.open(out / record["images"][0]) as page:
        assert page.size == (1224, 1584)  # US letter at 144 dpi


def test_a_document_without_active_content_ships_as_it_is_and_records_nothing_removed(
    doc_runs,
) -> None:
    base, _ = doc_runs
    out = base / "w1"
    records = read_jsonl(out / "data.jsonl")
    assert {len(r["sanitised"]) for r in records} == {0}
    for record in records:
        if record["kind"] == "original":
            source = (
                ROOT / "fixtures" / "mmlongbench-doc" / "documents" / record["source"]["doc_id"]
            )
            assert (out / record["document"]).read_bytes() == source.read_bytes()


def test_output_loads_with_hugging_face_datasets(doc_runs, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    base, _ = doc_runs
    path = str(base / "w1" / "data.jsonl")
    # a private cache: the shared one is keyed by path, not content, and can be stale
    whole = datasets.load_dataset(
        "json", data_files=path, split="train", cache_dir=str(tmp_path / "hf")
    )
    records = read_jsonl(base / "w1" / "data.jsonl")
    assert whole.num_rows == len(records)
    assert whole["id"] == [r["id"] for r in records]
    second = records[1]
    assert second["transform"] is not None
    assert json.loads(whole[1]["transform"]["params"]) == json.loads(second["transform"]["params"])


def test_manifest_records_config_source_counts_and_timings(doc_runs, fixtures_dir: Path) -> None:
    base, _ = doc_runs
    manifest = json.loads((base / "w2" / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["config"]["seed"] == 7 and manifest["config"]["workers"] == 2
    assert manifest["source"]["dataset"] == "mmlongbench-doc"
    digest = hashlib.sha256(
        (fixtures_dir / "mmlongbench-doc" / "samples.json").read_bytes()
    ).hexdigest()
    assert manifest["source"]["record_files_sha256"] == {"samples.json": digest}
    counts = manifest["counts"]
    data = read_jsonl(base / "w2" / "data.jsonl")
    kinds = Counter(r["kind"] for r in data)
    assert counts["items"]["answerable"] == kinds["original"]
    assert counts["items"]["answer_changed"] == kinds["answer_changed"]
    assert counts["items"]["unanswerable"] == sum(not r["answerable"] for r in data)
    assert sum(counts["by_transform"].values()) == counts["items"]["unanswerable"]
    assert counts["skipped"] == {
        "already unanswerable in the source (answer is 'Not answerable')": 1
    }
    assert manifest["timings"]["wall_seconds"] > 0
    assert manifest["models"]["llm"] is None and "offline" in manifest["models"]["mode"]


def test_dataset_card_tables_match_the_data(doc_runs) -> None:
    base, _ = doc_runs
    card = (base / "w1" / "README.md").read_text()
    data = read_jsonl(base / "w1" / "data.jsonl")
    for name in {r["transform"]["name"] for r in data if r["transform"]}:
        count = sum(1 for r in data if r["transform"] and r["transform"]["name"] == name)
        assert f"| {name} |" in card and f"| {count} |" in card
    assert "![Items per transform](transform_distribution.png)" in card
    assert (base / "w1" / "transform_distribution.png").stat().st_size > 1000


def test_a_different_config_on_an_existing_output_is_refused(doc_runs, fixtures_dir: Path) -> None:
    base, _ = doc_runs
    config = BuildConfig(source=str(fixtures_dir / "mmlongbench-doc"), out=str(base / "w1"), seed=8)
    with pytest.raises(ConfigError, match=r"different configuration \(seed: 7 -> 8\)"):
        build(config)


def test_an_executor_it_does_not_have_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="executor 'dask' is not available; choose one of"):
        BuildConfig(source="s", out=str(tmp_path), executor="dask")
    with pytest.raises(ConfigError, match="ray_address is used with executor 'ray' only"):
        BuildConfig(source="s", out=str(tmp_path), ray_address="127.0.0.1:6379")


def test_rerunning_a_finished_build_changes_nothing(doc_runs, fixtures_dir: Path) -> None:
    base, _ = doc_runs
    before = tree_digest(base / "w1")
    result = build(
        BuildConfig(
            source=str(fixtures_dir / "mmlongbench-doc"),
            out=str(base / "w1"),
            seed=7,
            workers=2,
        )
    )
    assert result.resumed_samples == 13
    assert tree_digest(base / "w1") == before


def test_overwrite_starts_over_and_foreign_folders_are_left_alone(
    tmp_path: Path, fixtures_dir: Path
) -> None:
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    config = BuildConfig(source=str(fixtures_dir / "mmmu"), out=str(foreign), overwrite=True)
    with pytest.raises(ConfigError, match="not an abstain-build output"):
        build(config)
    assert (foreign / "notes.txt").read_text() == "keep me"
    out = tmp_path / "run"
    build(BuildConfig(source=str(fixtures_dir / "mmmu"), out=str(out), seed=1))
    result = build(
        BuildConfig(source=str(fixtures_dir / "mmmu"), out=str(out), seed=2, overwrite=True)
    )
    assert result.resumed_samples == 0
    assert {r["transform"]["seed"] for r in read_jsonl(out / "data.jsonl") if r["transform"]}


def test_manifest_config_reproduces_the_run(doc_runs, tmp_path: Path) -> None:
    base, _ = doc_runs
    again = tmp_path / "again"
    done = run_cli(
        "transform", "--config", str(base / "w1" / "manifest.json"), "--out", str(again), "-q"
    )
    assert done.returncode == 0, done.stderr
    assert tree_digest(again) == tree_digest(base / "w1")


# -- resume after a kill -----------------------------------------------------------------------


def _journal_lines(out: Path) -> int:
    path = out / JOURNAL_FILE
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reference") / "run"
    build(BuildConfig(source=str(ROOT / "fixtures" / "mmlongbench-doc"), out=str(out), seed=5))
    return out


@pytest.mark.parametrize("kill_after", [1, pytest.param(9, marks=pytest.mark.exhaustive)])
def test_sigkill_then_rerun_gives_exactly_the_uninterrupted_output(
    tmp_path: Path, reference_run: Path, kill_after: int
) -> None:
    out = tmp_path / "run"
    command = [
        sys.executable,
        "-m",
        "abstain_build",
        "transform",
        str(ROOT / "fixtures" / "mmlongbench-doc"),
        "--out",
        str(out),
        "--seed",
        "5",
        "-q",
    ]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while (
        _journal_lines(out) < kill_after and process.poll() is None and time.monotonic() < deadline
    ):
        time.sleep(0.002)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    committed = _journal_lines(out)
    assert committed < 13, "the run finished before it could be killed; the test proves nothing"
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"

    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert tree_digest(out) == tree_digest(reference_run)
    ids = [r["id"] for r in read_jsonl(out / "data.jsonl")]
    assert len(ids) == len(set(ids)), "no record may be duplicated"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["timings"]["resumed_from"] == committed


def test_torn_writes_are_cut_back_to_the_last_committed_sample(
    tmp_path: Path, reference_run: Path
) -> None:
    out = tmp_path / "run"
    shutil.copytree(reference_run, out)
    lines = (out / JOURNAL_FILE).read_bytes().splitlines(keepends=True)
    keep = 5
    (out / JOURNAL_FILE).write_bytes(b"".join(lines[:keep]) + lines[keep][: len(lines[keep]) // 2])
    data_end = json.loads(lines[keep - 1])["data_end"]
    with (out / "data.jsonl").open("r+b") as handle:  # half a record after the committed part
        handle.truncate(data_end + 100)
    result = build(
        BuildConfig(source=str(ROOT / "fixtures" / "mmlongbench-doc"), out=str(out), seed=5)
    )
    assert result.resumed_samples == keep
    assert tree_digest(out) == tree_digest(reference_run)


def test_every_record_matches_the_declared_schema(doc_runs) -> None:
    from abstain_build.schema import schema_errors

    base, _ = doc_runs
    for record in read_jsonl(base / "w1" / "data.jsonl"):
        assert schema_errors(record) == [], record["id"]


def test_folder_loads_with_the_schema_from_the_card_even_in_tiny_blocks(
    doc_runs, tmp_path: Path
) -> None:
    """One record per Arrow block: the first block has only a control (transform null)."""
    datasets = pytest.importorskip("datasets")
    from abstain_build.schema import hf_features

    base, _ = doc_runs
    out = base / "w1"
    expected = [r["id"] for r in read_jsonl(out / "data.jsonl")]
    cache = str(tmp_path / "hf")  # private: the shared cache is keyed by path, not content
    by_folder = datasets.load_dataset(str(out), split="train", chunksize=256, cache_dir=cache)
    assert by_folder["id"] == expected
    by_features = datasets.load_dataset(
        "json",
        data_files=str(out / "data.jsonl"),
        features=hf_features(),
        split="train",
        chunksize=256,
        cache_dir=cache,
    )
    assert by_features["id"] == expected


CRASHING_PLUGIN = """
import os

import numpy as np
from abstain_build.model import MODALITY
from abstain_build.transforms import ImagePlan, ImageTransform, register_transform


@register_transform
class CrashOnLine(ImageTransform):
    name = "crash_on_line_chart"
    family = "occlusion_ambiguity"
    axis = MODALITY
    description = "Kills its process on one sample, as a segfault in a native library would."

    def plan_image(self, image, index, rng, ctx):
        if ctx.sample.id == "fixture_chart_line":
            os._exit(70)
        return ImagePlan(params={})

    def apply_image(self, image, params):
        return np.zeros_like(image)
"""


def test_a_sample_that_kills_its_worker_gets_an_error_and_the_run_goes_on(
    tmp_path: Path, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "crashing_plugin.py").write_text(CRASHING_PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    from abstain_build.transforms import transforms

    try:
        result = build(
            BuildConfig(
                source=str(fixtures_dir / "mmmu"),
                out=str(tmp_path / "out"),
                transforms=["crash_on_line_chart"],
                plugins=["crashing_plugin"],
                workers=2,
            )
        )
    finally:
        transforms.unregister("crash_on_line_chart")
    errors = read_jsonl(tmp_path / "out" / "errors.jsonl")
    assert [(e["sample_id"], e["stage"]) for e in errors] == [("fixture_chart_line", "worker")]
    assert "worker process died" in errors[0]["reason"]
    emitted = {r["group_id"] for r in read_jsonl(tmp_path / "out" / "data.jsonl")}
    assert len(emitted) == 7 and "fixture_chart_line" not in emitted
    assert result.exit_code == 1


def test_a_changed_source_is_not_mixed_into_an_existing_build(
    tmp_path: Path, fixtures_dir: Path
) -> None:
    source = tmp_path / "mmlbd"
    shutil.copytree(fixtures_dir / "mmlongbench-doc", source)
    out = tmp_path / "out"
    build(BuildConfig(source=str(source), out=str(out), limit=2))
    records = json.loads((source / "samples.json").read_text())
    (source / "samples.json").write_text(json.dumps(records[::-1]))
    with pytest.raises(ConfigError, match="source_files_sha256"):
        build(BuildConfig(source=str(source), out=str(out), limit=2))


def test_a_user_folder_with_a_data_jsonl_is_not_taken_for_a_build(
    tmp_path: Path, fixtures_dir: Path
) -> None:
    """A folder holding the user's own data.jsonl (or a state/ of theirs) is refused, with
    or without --overwrite: nothing in it is replaced or deleted."""
    mine = tmp_path / "mine"
    (mine / "state").mkdir(parents=True)
    (mine / "data.jsonl").write_text('{"mine": 1}\n')
    for overwrite in (False, True):
        config = BuildConfig(source=str(fixtures_dir / "mmmu"), out=str(mine), overwrite=overwrite)
        with pytest.raises(ConfigError, match="not an abstain-build output"):
            build(config)
    assert (mine / "data.jsonl").read_text() == '{"mine": 1}\n'
    assert sorted(p.name for p in mine.iterdir()) == ["data.jsonl", "state"]


def test_a_folder_left_with_only_the_lock_of_a_failed_start_is_built_in(
    tmp_path: Path, fixtures_dir: Path
) -> None:
    """A run that stopped between taking the lock and writing its config (the source
    could not be hashed, the process was killed) leaves only ``state/lock``: the next run
    builds there; a folder with anything else beside it is still refused."""
    from abstain_build.pipeline.output_lock import locked_output

    out = tmp_path / "out"
    with pytest.raises(RuntimeError), locked_output(out, "transform", create=True):
        raise RuntimeError("the source could not be hashed")
    assert [p.relative_to(out).as_posix() for p in out.rglob("*")] == ["state", "state/lock"]
    build(BuildConfig(source=str(fixtures_dir / "mmmu"), out=str(out), limit=1))
    assert (out / "state" / "config.json").is_file() and (out / "data.jsonl").stat().st_size

    other = tmp_path / "other"
    with locked_output(other, "transform", create=True):
        pass
    (other / "state" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not an abstain-build output"):
        build(BuildConfig(source=str(fixtures_dir / "mmmu"), out=str(other), limit=1))


def test_a_source_inside_the_output_folder_is_refused(tmp_path: Path, fixtures_dir: Path) -> None:
    """`transform DIR/data.jsonl --out DIR` truncated the source to nothing."""
    import shutil

    shutil.copytree(fixtures_dir / "mmmu", tmp_path / "data")
    source = tmp_path / "data" / "samples.jsonl"
    before = source.read_bytes()
    for out in (tmp_path / "data", tmp_path):
        with pytest.raises(ConfigError, match="inside --out"):
            build(BuildConfig(source=str(source), out=str(out)))
    assert source.read_bytes() == before
    assert not (tmp_path / "data" / "state").exists()


@contextlib.contextmanager
def holding(out: Path, command: str) -> Iterator[subprocess.Popen]:
    """Another process holding ``out``'s lock as ``command`` would, killed (SIGKILL, no
    clean-up) when the block ends."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from pathlib import Path\n"
            "from abstain_build.pipeline.output_lock import OutputLock\n"
            "OutputLock(Path(sys.argv[1]), sys.argv[2]).acquire()\n"
            "print('held', flush=True)\n"
            "time.sleep(120)\n",
            str(out),
            command,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        holder.kill()
        holder.wait(timeout=30)


def test_a_second_run_on_one_output_folder_stops_naming_the_first(
    tmp_path: Path, fixtures_dir: Path
) -> None:
    """Two builds on one --out both wrote records (30 lines for 22 samples). Another
    process holds the folder: the build stops with its PID and writes nothing; once that
    process is killed (SIGKILL: no clean-up), the lock is gone with it."""
    from abstain_build.pipeline.output_lock import LOCK_FILE

    out = tmp_path / "run"
    config = BuildConfig(source=str(fixtures_dir / "mmmu"), out=str(out), seed=1, limit=2)
    build(config)
    data = (out / "data.jsonl").read_bytes()
    with holding(out, "qc") as holder:
        with pytest.raises(ConfigError, match=rf"abstain-build qc \(pid {holder.pid}\)"):
            build(config)
        assert (out / "data.jsonl").read_bytes() == data
    result = build(config)  # resumes: the dead holder's lock went with it
    assert result.resumed_samples == 2
    assert (out / LOCK_FILE).exists()


@pytest.mark.parametrize(
    "command",
    [("qc", "{out}"), ("export", "{out}", "--to", "{to}"), ("review", "{out}", "--finalize")],
)
def test_qc_export_and_finalize_wait_for_no_one_holding_the_folder(
    tmp_path: Path, fixtures_dir: Path, command: tuple[str, ...]
) -> None:
    """While a build holds the folder, the commands that write or read it whole stop with
    exit 2 and the holder's PID, and touch nothing."""
    out = tmp_path / "run"
    build(BuildConfig(source=str(fixtures_dir / "mmmu"), out=str(out), seed=1, limit=2))
    data = (out / "data.jsonl").read_bytes()
    with holding(out, "transform") as holder:
        done = run_cli(*[a.format(out=out, to=tmp_path / "exported") for a in command])
    assert done.returncode == 2, done.stderr
    assert f"in use by abstain-build transform (pid {holder.pid})" in done.stderr
    assert (out / "data.jsonl").read_bytes() == data
    assert not (tmp_path / "exported").exists()


def test_builds_given_one_ocr_cache_read_each_page_once(tmp_path: Path, fixtures_dir: Path) -> None:
    """A second build over the same documents, into another folder, takes every page
    reading from the shared cache (no OCR engine call), and writes the bytes a build with
    its own cache writes."""
    from abstain_build.textregions.ocr import clear_memory_cache, ocr_stats

    def run(out: str, cache: Path | None) -> int:
        clear_memory_cache()
        before = ocr_stats()["engine_calls"]
        build(
            BuildConfig(
                source=str(fixtures_dir / "mmlongbench-doc"),
                out=str(tmp_path / out),
                seed=5,
                transforms=["hide_evidence_page", "remove_numeric_tokens"],
                routing="none",
                qc="offline",
                ocr_cache=str(cache) if cache else None,
            )
        )
        return ocr_stats()["engine_calls"] - before

    shared = tmp_path / "shared-cache"
    assert run("first", shared) > 0
    assert not (tmp_path / "first" / "state" / "ocr").exists()
    assert run("second", shared) == 0
    assert run("own", None) > 0  # the same build with its own cache reads again
    assert tree_digest(tmp_path / "second") == tree_digest(tmp_path / "own")
