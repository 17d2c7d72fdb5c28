"""Asking a model every item of a built dataset, resumably, and writing what ``eval`` reads.

``OUT`` gets one line per answered item, ``{"id", "response"}`` (and ``"confidence"``
under vconf), appended and fsync'd in batches; ``OUT.replies.jsonl`` gets one line per
item asked, with the raw reply, tokens, calls and seconds (failures too, with why). A
killed or failed run is resumed by the same command: items already in ``OUT`` are not
asked again, failed ones are. Replies are cached (``OUT.cache.sqlite``), so a rerun with
``--overwrite`` costs no calls either.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..models import ClientOptions, ModelClient
from ..schema import record_kind
from ..scoring.items import EXCLUDED_STATUSES, VERIFIED, data_records
from .prompts import CLAUSES, CONDITIONS, build_request, parse_reply

#: Items sent per batch, per unit of concurrency (a batch is committed at once).
BATCH_PER_SLOT = 4


@dataclass
class PredictResult:
    out: Path
    replies: Path
    asked: int = 0
    answered: int = 0
    failed: int = 0
    resumed: int = 0
    #: Counterparts not asked, by QC status (unverified, flagged, rejected, ...).
    skipped: dict[str, int] = field(default_factory=dict)
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    first_error: str = ""


def _wanted(record: dict[str, Any], include_unverified: bool) -> str | None:
    """Why a record is not asked (its QC status), or None when it is."""
    if record.get("answerable", True) or record_kind(record) != "counterpart":
        return None
    status = str((record.get("qc") or {}).get("status") or "unverified")
    if status in EXCLUDED_STATUSES:
        return status  # human review found it answerable: not a counterpart after all
    if not include_unverified and status != VERIFIED:
        return status
    return None


def _done_ids(out: Path) -> set[str]:
    """Ids already answered; a torn last line (a killed run) is cut off first."""
    if not out.exists():
        return set()
    data = out.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):
        with out.open("r+b") as handle:
            handle.truncate(end)
    done = set()
    for line in data[:end].decode("utf-8").splitlines():
        if line.strip():
            done.add(json.loads(line)["id"])
    return done


def _append(path: Path, lines: list[dict[str, Any]]) -> None:
    if not lines:
        return
    with path.open("a", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def predict(
    dataset: Path | str,
    model: str,
    out: Path | str,
    *,
    condition: str = "base",
    clause: str = "standard",
    concurrency: int = 4,
    limit: int | None = None,
    include_unverified: bool = False,
    overwrite: bool = False,
    options: ClientOptions | None = None,
    progress: Callable[[int, int | None], None] | None = None,
) -> PredictResult:
    """Ask ``model`` every wanted item of ``dataset``; see the module docstring."""
    if condition not in CONDITIONS:
        raise ConfigError(f"--condition {condition!r}: expected one of {', '.join(CONDITIONS)}")
    if clause not in CLAUSES:
        raise ConfigError(f"--clause {clause!r}: expected one of {', '.join(CLAUSES)}")
    started = time.perf_counter()
    dataset, out = Path(dataset), Path(out)
    root = dataset if dataset.is_dir() else dataset.parent
    replies = out.with_name(out.name + ".replies.jsonl")
    if overwrite:
        out.unlink(missing_ok=True)
        replies.unlink(missing_ok=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    result = PredictResult(out, replies)
    done = _done_ids(out)
    wanted: list[dict[str, Any]] = []
    for record in data_records(dataset):
        reason = _wanted(record, include_unverified)
        if reason is not None:
            result.skipped[reason] = result.skipped.get(reason, 0) + 1
            continue
        if limit is not None and len(wanted) + result.resumed >= limit:
            break
        if record["id"] in done:
            result.resumed += 1
            continue
        wanted.append(record)
    settings = replace(options or ClientOptions(), concurrency=concurrency)
    if settings.cache_path is None:
        settings = replace(settings, cache_path=out.with_name(out.name + ".cache.sqlite"))
    with ModelClient(model, settings) as client:
        batch = max(1, concurrency * BATCH_PER_SLOT)

        def ask(record: dict[str, Any]) -> tuple[dict[str, Any], Any, float]:
            images = tuple((root / path).read_bytes() for path in record.get("images") or [])
            pages = (record.get("evidence_pages") or ()) if record.get("document") else ()
            request = build_request(
                record["question"],
                record.get("options") or (),
                images,
                condition=condition,
                clause=clause,
                pages=pages,
            )
            began = time.monotonic()
            reply = client.ask(request, lambda text: parse_reply(text, condition))
            return record, reply, time.monotonic() - began

        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="predict") as pool:
            for start in range(0, len(wanted), batch):
                answered, logged = [], []
                for record, reply, seconds in pool.map(ask, wanted[start : start + batch]):
                    result.asked += 1
                    result.calls += reply.calls
                    result.input_tokens += reply.input_tokens
                    result.output_tokens += reply.output_tokens
                    logged.append(
                        {
                            "id": record["id"],
                            "ok": reply.ok,
                            "raw": reply.raw,
                            "error": reply.error,
                            "calls": reply.calls,
                            "cached": reply.cached,
                            "input_tokens": reply.input_tokens,
                            "output_tokens": reply.output_tokens,
                            "seconds": round(seconds, 3),
                        }
                    )
                    if not reply.ok:
                        result.failed += 1
                        result.first_error = result.first_error or str(reply.error)
                        continue
                    line: dict[str, Any] = {"id": record["id"], "response": reply.value.response}
                    if reply.value.confidence is not None:
                        line["confidence"] = reply.value.confidence
                    answered.append(line)
                _append(replies, logged)
                _append(out, answered)
                result.answered += len(answered)
                if progress:
                    progress(result.asked, len(wanted))
                if client.fatal_error:
                    raise ConfigError(f"{model} cannot be used: {client.fatal_error}")
    result.seconds = time.perf_counter() - started
    return result
