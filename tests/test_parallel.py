"""The worker pool: a crash while later samples are still being submitted is contained."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from abstain_build import open_source
from abstain_build.config import BuildConfig
from abstain_build.pipeline.jobs import JobSpec
from abstain_build.pipeline.parallel import CRASH_REASON, OrderedPool
from abstain_build.transforms import transforms

CRASH_PLUGIN = """
import os
from pathlib import Path
from abstain_build.model import MODALITY
from abstain_build.transforms import ImagePlan, ImageTransform, register_transform

MARKER = Path({marker!r})


@register_transform
class CrashFirst(ImageTransform):
    name = "crash_then_mark"
    family = "occlusion_ambiguity"
    axis = MODALITY
    description = "Leaves a marker file, then kills its process on one sample."

    def plan_image(self, image, index, rng, ctx):
        if ctx.sample.id == "fixture_chart_line":
            MARKER.write_text("crashed")
            os._exit(70)
        return ImagePlan(params={{}})

    def apply_image(self, image, params):
        return 255 - image
"""


def test_a_pool_broken_between_two_submissions_is_rebuilt(
    tmp_path: Path, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "crashed"
    (tmp_path / "crash_then_mark.py").write_text(CRASH_PLUGIN.format(marker=str(marker)))
    monkeypatch.syspath_prepend(str(tmp_path))
    samples = [s for s in open_source(str(fixtures_dir / "mmmu"))]
    crashing = next(s for s in samples if s.id == "fixture_chart_line")
    others = [s for s in samples if s.id != crashing.id]
    config = BuildConfig(
        source=str(fixtures_dir / "mmmu"), out=str(tmp_path / "out"), plugins=["crash_then_mark"]
    )
    job = JobSpec(
        config=config,
        transforms=(("crash_then_mark", ()),),
    )

    def items():
        yield crashing
        # Hold back the next submission until the pool has lost its worker.
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        yield from others

    try:
        outcomes = list(OrderedPool(job, workers=2).run(items()))
    finally:
        transforms.unregister("crash_then_mark")
    assert marker.exists()
    assert [o.sample_id for o in outcomes] == [crashing.id] + [s.id for s in others]
    assert outcomes[0].status == "error" and outcomes[0].problems[0].reason == CRASH_REASON
    assert all(o.status == "ok" for o in outcomes[1:])


SLOW_PLUGIN = """
import time
from pathlib import Path
from abstain_build.model import MODALITY
from abstain_build.transforms import ImagePlan, ImageTransform, register_transform

RELEASE = Path({release!r})


@register_transform
class SlowFirst(ImageTransform):
    name = "slow_head"
    family = "occlusion_ambiguity"
    axis = MODALITY
    description = "Holds one sample until every other one has finished."

    def plan_image(self, image, index, rng, ctx):
        if ctx.sample.id == {slow!r}:
            deadline = time.monotonic() + 60
            while not RELEASE.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        return ImagePlan(params={{}})

    def apply_image(self, image, params):
        return 255 - image
"""


def test_a_slow_sample_at_the_head_keeps_no_worker_waiting(
    tmp_path: Path, fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first sample runs until all the others have finished: they can only finish if
    the other worker keeps taking samples while the head runs. They are committed after
    it, in source order, some by way of the reorder buffer's files."""
    from abstain_build.pipeline import parallel

    samples = [s for s in open_source(str(fixtures_dir / "mmmu"))]
    release = tmp_path / "release"
    plugin = SLOW_PLUGIN.format(release=str(release), slow=samples[0].id)
    (tmp_path / "slow_head.py").write_text(plugin)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(parallel, "HELD_IN_MEMORY", 2)
    config = BuildConfig(
        source=str(fixtures_dir / "mmmu"), out=str(tmp_path / "out"), plugins=["slow_head"]
    )
    job = JobSpec(
        config=config,
        transforms=(("slow_head", ()),),
    )
    spill = tmp_path / "state"
    seen: list[tuple[int, int]] = []  # (finished, files waiting) at each heartbeat

    def progress(finished: int) -> None:
        waiting = len(list(spill.rglob("*.pickle"))) if spill.exists() else 0
        seen.append((finished, waiting))
        if finished >= len(samples) - 1:
            release.write_text("go")

    pool = OrderedPool(job, workers=2, spill_dir=spill, on_progress=progress)
    try:
        outcomes = list(pool.run(iter(samples)))
    finally:
        transforms.unregister("slow_head")
    assert release.exists(), seen  # released by the others finishing, not by the deadline
    assert [o.sample_id for o in outcomes] == [s.id for s in samples]
    assert all(o.status == "ok" for o in outcomes)
    assert max(waiting for _, waiting in seen) >= len(samples) - 1 - 2  # beyond 2 in memory
    assert not list(spill.rglob("*.pickle"))  # the buffer's files are gone
