"""Every transform's output on the shipped fixtures, pinned per version.

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
from abstain_build.transforms import get_registry

from .conftest import FIXTURES, read_jsonl

RECORDED = Path(__file__).parent / "data" / "transform_outputs.json"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """name -> {"version", "items", "digest"} over both fixtures, every transform applied
    wherever it fits (the blind check only records, so no source is spared an edit)."""
    registry = get_registry()
    names = [cls.name for cls in registry if registry.origin(cls.name) == "builtin"]
    base = tmp_path_factory.mktemp("transform-outputs")
    lines: dict[str, list[str]] = defaultdict(list)
    for fixture in ("mmmu", "mmlongbench-doc"):
        out = base / fixture
        build(
            BuildConfig(
                source=str(FIXTURES / fixture),
                out=str(out),
                seed=11,
                routing="none",
                transforms=names,
                qc="none",
                blind_policy="record",
                workers=2,  # the same bytes as one worker, in about half the time
            )
        )
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
    return {
        cls.name: {
            "version": cls.version,
            "items": len(lines[cls.name]),
            "digest": hashlib.sha256("\n".join(sorted(lines[cls.name])).encode()).hexdigest(),
        }
        for cls in registry
        if cls.name in names
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
