"""Every transform's output on the shipped fixtures, pinned per version; and the record
of every item it makes, the whole recipe of that item (``abstain-build replay``).

Readings of a transform count only at the version they were made of (SPEC 8), so a change
that alters what a transform emits must bump its ``version``. This test holds that
promise: it builds both fixtures with every transform on every sample it fits and
compares a digest of each transform's items (question, parameters, every asset's bytes)
with the one recorded for its version in ``tests/data/transform_outputs.json``.

After a deliberate change: bump the transform's ``version`` and record the new digests
with ``ABSTAIN_BUILD_RECORD_OUTPUTS=1 pytest tests/test_transform_versions.py``. (A
transform that makes no item of the fixtures, as the offline templates of six image
rewrites do today, is pinned as making none: the day it makes one, its version moves.)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from abstain_build import BuildConfig, build
from abstain_build.loaders import open_source
from abstain_build.media.inputs import SampleInputs
from abstain_build.pipeline.apply import run_transform
from abstain_build.pipeline.replay import replay_build
from abstain_build.schema import schema_errors
from abstain_build.transforms import get_registry

from .conftest import FIXTURES, read_jsonl

RECORDED = Path(__file__).parent / "data" / "transform_outputs.json"


#: Every builtin transform, each a case of the contract tests below.
BUILTIN = sorted(cls.name for cls in get_registry() if get_registry().origin(cls.name) == "builtin")
SEED = 11


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Both fixtures built with every builtin transform applied wherever it fits (the
    blind check only records, so no source is spared an edit): fixture -> folder."""
    base = tmp_path_factory.mktemp("transform-outputs")
    folders = {}
    for fixture in ("mmmu", "mmlongbench-doc"):
        out = base / fixture
        build(
            BuildConfig(
                source=str(FIXTURES / fixture),
                out=str(out),
                seed=SEED,
                routing="none",
                transforms=BUILTIN,
                qc="none",
                blind_policy="record",
                workers=2,  # the same bytes as one worker, in about half the time
            )
        )
        folders[fixture] = out
    return folders


@pytest.fixture(scope="module")
def outputs(built: dict[str, Path]) -> dict[str, dict]:
    """name -> {"version", "items", "digest"} over both fixtures."""
    lines: dict[str, list[str]] = defaultdict(list)
    for out in built.values():
        for record in read_jsonl(out / "data.jsonl"):
            transform = record["transform"]
            if transform is None:
                continue
            assets = [record["document"], *record["images"]]
            lines[transform["name"]].append(
                json.dumps(
                    [
                        record["id"],
                        record["question"],
                        record["answer"],
                        transform["params"],
                        [_sha(out / p) if p else None for p in assets],
                    ]
                )
            )
    registry = get_registry()
    return {
        name: {
            "version": registry.get(name).version,
            "items": len(lines[name]),
            "digest": hashlib.sha256("\n".join(sorted(lines[name])).encode()).hexdigest(),
        }
        for name in BUILTIN
    }


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


@pytest.mark.slow
def test_a_transform_whose_output_changed_has_a_new_version(outputs: dict[str, dict]) -> None:
    if os.environ.get("ABSTAIN_BUILD_RECORD_OUTPUTS") == "1":
        RECORDED.write_text(json.dumps(outputs, indent=1, sort_keys=True) + "\n")
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    problems = []
    for name, now in sorted(outputs.items()):
        before = recorded.get(name)
        if before is None:
            problems.append(f"{name}: no recorded output")
        elif before["version"] != now["version"]:
            problems.append(
                f"{name}: version {before['version']} -> {now['version']}; record its new output"
            )
        elif before["digest"] != now["digest"]:
            problems.append(
                f"{name}: its output changed ({before['items']} -> {now['items']} items, other"
                f" bytes) but its version is still {now['version']}: bump it (readings of"
                f" v{now['version']} describe what it no longer emits)"
            )
    assert not problems, (
        "; ".join(problems)
        + ". After bumping, record with ABSTAIN_BUILD_RECORD_OUTPUTS=1 pytest "
        + "tests/test_transform_versions.py"
    )


# -- the record is the plan: one contract, every builtin transform ---------------------------


def _items(built: dict[str, Path], name: str) -> list[tuple[Path, dict]]:
    return [
        (out, record)
        for out in built.values()
        for record in read_jsonl(out / "data.jsonl")
        if (record["transform"] or {}).get("name") == name
    ]


@pytest.mark.slow
@pytest.mark.parametrize("name", BUILTIN)
def test_a_transform_keeps_the_contract_of_a_replayable_record(
    name: str, built: dict[str, Path]
) -> None:
    """Every item a builtin transform makes on the fixtures: its record conforms to the
    schema, re-applying the record alone gives the same bytes (``replay``), and planning it
    again with the same seed gives the same record. Every sample it did not fit says why."""
    for out in built.values():
        for entry in read_jsonl(out / "state" / "journal.jsonl"):
            reason = (entry.get("not_applicable") or {}).get(name)
            assert reason is None or reason.strip(), (
                f"{name} declined {entry['id']} without a reason"
            )
    items = _items(built, name)
    for _, record in items:
        assert schema_errors(record) == [], record["id"]
    for out in {out for out, _ in items}:
        ids = [record["id"] for o, record in items if o == out]
        replayed = list(replay_build(out, ids))
        assert [r.id for r in replayed] == ids
        assert [(r.id, r.differs, r.error) for r in replayed if not r.same] == []
    if items:
        out, record = items[0]
        source = open_source(json.loads((out / "state" / "config.json").read_text())["source"])
        sample = next(s for s in source if getattr(s, "id", None) == record["group_id"])
        transform = get_registry().get(name)()
        made = []
        for _ in range(2):
            inputs = SampleInputs(sample)
            inputs.validate()
            output = run_transform(transform, sample, inputs, SEED, record["transform"]["attempt"])
            inputs.close()
            made.append(output.record.to_json())
        assert made[0] == made[1]
        planned = made[0]
        assert json.loads(record["transform"]["params"]) == json.loads(
            json.dumps(planned["params"])
        )
        assert json.loads(record["transform"]["replay"]) == json.loads(
            json.dumps(planned["replay"])
        )
        assert record["transform"]["edits"] == json.loads(json.dumps(planned["edits"]))
        assert record["transform"]["seed"] == planned["seed"]


def test_replay_finds_an_altered_asset(tmp_path: Path) -> None:
    """``abstain-build replay`` exits 0 on a fresh build and 1, naming the item, once one
    of its assets is altered."""
    from typer.testing import CliRunner

    from abstain_build.cli import app

    out = tmp_path / "out"
    build(
        BuildConfig(
            source=str(FIXTURES / "mmmu"),
            out=str(out),
            seed=SEED,
            routing="none",
            transforms=["aggressive_multi_mask"],
            qc="none",
            limit=2,
        )
    )
    runner = CliRunner()
    done = runner.invoke(app, ["replay", str(out)])
    assert done.exit_code == 0, done.output
    assert "every one the same" in done.output
    record = next(r for r in read_jsonl(out / "data.jsonl") if r["transform"])
    image = out / record["images"][0]
    image.write_bytes(image.read_bytes()[:-1] + b"\x00")
    done = runner.invoke(app, ["replay", str(out)])
    assert done.exit_code == 1
    assert f"{record['id']}: differs: {record['images'][0]}" in done.output


@pytest.mark.slow
def test_a_record_without_its_replay_says_why_it_cannot_replay(
    built: dict[str, Path], tmp_path: Path
) -> None:
    """A folder built before ``transform.replay`` was recorded still replays every item
    whose apply reads only params and edits; the others are named, with why."""
    import shutil

    old = tmp_path / "old"
    shutil.copytree(built["mmlongbench-doc"], old)
    records = read_jsonl(old / "data.jsonl")
    for record in records:
        if record["transform"]:
            record["transform"].pop("replay")
    (old / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    replayed = list(replay_build(old))
    failed = {r.id.split("/")[1] for r in replayed if not r.same}
    assert failed and failed <= {
        "remove_numeric_tokens",
        "corrupt_numeric_tokens",
        "column_merge_ambiguity",
        "counterfactual_distractor_rows",
    }
    assert all("no transform.replay" in (r.error or "") for r in replayed if not r.same)
    assert any(r.same for r in replayed)
