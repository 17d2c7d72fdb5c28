"""manifest.json: what was run, on what, and what came out (the card's source of truth)."""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from typing import Any

from .. import __version__
from ..loaders import Source
from .summary import BuildCounts

OFFLINE_MODE = "offline: rule-based transforms and template rewrites, no LLM/VLM configured"
LLM_MODE = (
    "llm: question rewrites, image-dependency classes and self-checks by {llm}; image and"
    " document transforms are rule-based"
)


def _environment() -> dict[str, str]:
    import numpy
    import PIL
    import pymupdf

    from ..textregions.ocr import OcrError, engine_name

    try:
        ocr = engine_name()
    except OcrError:
        ocr = "unavailable: label masks fall back to edge bands, image-only pages get no words"
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "pymupdf": pymupdf.__version__,
        "numpy": numpy.__version__,
        "pillow": PIL.__version__,
        "ocr": ocr,
    }


def start_manifest(
    config: dict[str, Any],
    source: Source,
    record_hashes: dict[str, str],
    total: int,
    transforms: list[dict[str, Any]],
) -> dict[str, Any]:
    """Written before the first sample, with ``status: running``."""
    return {
        "tool": {"name": "abstain-build", "version": __version__},
        "status": "running",
        "config": config,
        "seed": config["seed"],
        "source": {
            "path": config["source"],
            "dataset": source.dataset,
            "layout": source.layout,
            "record_files_sha256": record_hashes,
            "records": total,
        },
        "models": {
            "llm": config.get("llm"),
            "judges": _judges(config),
            "mode": _mode(config),
            # Calls made by this invocation (a resumed run counts only its own).
            "usage": [],
        },
        "transforms": transforms,
        "environment": _environment(),
    }


def finish_manifest(
    manifest: dict[str, Any],
    counts: BuildCounts,
    started_at: str,
    wall: float,
    fresh: int,
    resumed: int,
) -> None:
    """Counts (over the whole build, resumed parts included) and this invocation's timings."""
    manifest["status"] = "complete"
    manifest["counts"] = counts.to_json()
    manifest["timings"] = {
        "started_at": started_at,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "wall_seconds": round(wall, 3),
        "samples_this_run": fresh,
        "resumed_from": resumed,
        "samples_per_second": round(fresh / wall, 3) if wall > 0 else None,
        "seconds_by_step": {k: round(v, 3) for k, v in sorted(counts.seconds.items())},
        "workers": manifest["config"]["workers"],
    }
    manifest["outputs"] = {
        "data": "data.jsonl",
        "errors": "errors.jsonl",
        "card": "README.md",
        "assets": "assets/",
    }


def _judges(config: dict[str, Any]) -> list[str]:
    from ..qc.verify import OFFLINE_JUDGES

    if config.get("qc") == "judges":
        return list(config.get("judges") or [])
    return list(OFFLINE_JUDGES) if config.get("qc") == "offline" else []


def _mode(config: dict[str, Any]) -> str:
    """Which parts of the build a model made (the rest is offline), in one line."""
    mode = LLM_MODE.format(llm=config["llm"]) if config.get("llm") else OFFLINE_MODE
    if config.get("qc") == "judges":
        mode += "; QC by model judges " + ", ".join(config.get("judges") or [])
    return mode
