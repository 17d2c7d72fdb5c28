"""Re-apply each item's recorded plan to its source, and compare what it ships.

A record is its own recipe: its ``transform`` block holds everything ``apply`` reads
(``params``, ``edits`` and ``replay``: :meth:`..model.Plan.from_record`), so nothing is
planned again, no seed is drawn and no page is read. :func:`replay_build` applies each
counterpart's (and answer-changed item's) plan to the source sample the folder was built
from, with the build's own settings (``state/config.json``), and compares the question,
every image and the PDF with the bytes on disk. ``abstain-build replay`` reports the items
that differ.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, SampleError
from ..loaders import open_source
from ..media.inputs import InputLimits, SampleInputs
from ..model import PerturbationRecord, Plan, Sample
from ..schema import ORIGINAL, record_kind
from ..transforms.base import Transform
from ..transforms.registry import get_registry
from .apply import apply_plan
from .output import CONFIG_FILE, written_settings


@dataclass
class Replayed:
    """One item re-applied: what differs from what the folder holds (``question``, an
    image's or the PDF's path), or why it could not be re-applied."""

    id: str
    differs: list[str] = field(default_factory=list)
    error: str | None = None
    #: The transform's version now, when the item was made by another one.
    version_note: str | None = None

    @property
    def same(self) -> bool:
        return not self.differs and self.error is None


def build_settings(root: Path) -> dict[str, Any]:
    """The settings ``root`` was built with (its ``state/config.json``)."""
    settings = written_settings(root)
    if settings is None:
        raise ConfigError(
            f"{root} is not a folder built by `transform` (no readable {CONFIG_FILE})"
        )
    if not settings.get("source"):
        raise ConfigError(f"{root / CONFIG_FILE} does not name the source it was built from")
    return settings


def replay_build(
    root: Path | str, ids: Sequence[str] = (), source: str | None = None
) -> Iterator[Replayed]:
    """Each item of ``root`` made by a transform (those of ``ids``, ids or group ids, when
    given) re-applied from its record and compared with what ``root`` ships. ``source``:
    where the source dataset is now, when it moved since the build."""
    from ..scoring.items import data_records

    root = Path(root)
    settings = build_settings(root)
    wanted = set(ids)
    records = [
        record
        for record in data_records(root)
        if record.get("transform")
        and record_kind(record) != ORIGINAL
        and (not wanted or record["id"] in wanted or record["group_id"] in wanted)
    ]
    groups = {record["group_id"] for record in records}
    samples = {
        item.id: item
        for item in open_source(source or settings["source"], settings.get("format"))
        if isinstance(item, Sample) and item.id in groups
    }
    limits = InputLimits(
        max_pixels=settings.get("max_pixels") or InputLimits().max_pixels,
        dpi=settings.get("dpi") or InputLimits().dpi,
    )
    made = _Transforms(settings)
    for record in records:
        sample = samples.get(record["group_id"])
        if sample is None:
            yield Replayed(record["id"], error="the source has no such sample (or it is broken)")
            continue
        yield _replayed(root, record, sample, made, limits)


class _Transforms:
    """The build's transforms, made once each with its parameters."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.registry = get_registry(tuple(settings.get("plugins") or ()))
        self.params: dict[str, dict[str, Any]] = settings.get("transform_params") or {}
        self.made: dict[str, Transform] = {}

    def get(self, name: str) -> Transform:
        if name not in self.made:
            self.made[name] = self.registry.get(name)(**self.params.get(name, {}))
        return self.made[name]


def _replayed(
    root: Path, record: dict[str, Any], sample: Sample, made: _Transforms, limits: InputLimits
) -> Replayed:
    block = record["transform"]
    result = Replayed(record["id"])
    try:
        transform = made.get(block["name"])
    except Exception as exc:  # an unknown name, a plugin not given
        result.error = f"transform {block['name']!r}: {exc}"
        return result
    if int(block.get("version") or 1) != transform.version:
        result.version_note = (
            f"made by {block['name']} v{block.get('version')}, re-applied by v{transform.version}"
        )
    plan = Plan.from_record(block, record["question"])
    inputs = SampleInputs(sample, limits)
    try:
        inputs.validate()
        output = apply_plan(transform, sample, inputs, plan, _perturbation(block, plan))
    except SampleError as error:
        result.error = f"{error.stage}: {error.reason}"
        return result
    except Exception as exc:  # one item's failure is reported, the others still replay
        result.error = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, KeyError) and "replay" not in block:
            result.error += " (the record has no transform.replay: it was built before it was"
            result.error += " recorded, so what this transform's apply reads is not in it)"
        return result
    finally:
        inputs.close()
    if output.question != record["question"]:
        result.differs.append("question")
    if output.images is not None:
        for path, png in zip(record["images"], output.images, strict=False):
            if _bytes(root / path) != png:
                result.differs.append(path)
        if len(output.images) != len(record["images"]):
            result.differs.append(f"{len(output.images)} images, not {len(record['images'])}")
    if output.pdf is not None and _bytes(root / str(record["document"])) != output.pdf:
        result.differs.append(str(record["document"]))
    return result


def _perturbation(block: dict[str, Any], plan: Plan) -> PerturbationRecord:
    """The record ``apply_plan`` adds its notes to (they are not compared)."""
    return PerturbationRecord(
        name=block["name"],
        version=int(block.get("version") or 1),
        family=block.get("family") or "",
        axis=block.get("axis") or "",
        target=block.get("target") or "",
        mode=plan.mode,
        seed=int(block.get("seed") or 0),
        attempt=int(block.get("attempt") or 0),
        params=plan.params,
        edits=plan.edits,
        intensity=plan.intensity,
        notes=list(plan.notes),
        replay=plan.replay,
    )


def _bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
