"""Asking a model every item of a built dataset, resumably, and writing what ``eval`` reads.

``OUT`` gets one line per answered item, ``{"id", "response", "method"}`` (and
``"confidence"`` under vconf, ``"probability"`` for P(True) and MaxProb, ``"mas"`` for the
multi-agent systems, ``"votes"`` for self-consistency), appended and fsync'd in batches.
``OUT.replies.jsonl`` gets one line per item asked: every model step's raw reply, tokens,
calls, whether it was cached, the seconds, and failures with why. ``OUT.summary.json``
adds it all up (calls, tokens, cost, wall time per run). A killed or failed run is resumed
by the same command: items already in ``OUT`` are not asked again, failed ones are.
Replies are cached (``OUT.cache.sqlite``), so a rerun with ``--overwrite`` costs no calls.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..models import ClientOptions, ModelClient, public_spec, stop_if_unusable
from ..schema import record_kind
from ..scoring.abstention import build_matcher
from ..scoring.items import EXCLUDED_STATUSES, VERIFIED, data_records
from ..scoring.predictions import SIDECAR_SUFFIX
from .agents import SYSTEMS
from .context import Context, Outcome, StepFailed
from .methods import ANCHORS, BASELINES, method_for
from .pages import MAX_PAGES, PAGE_MODES, PageRenderer, check_document_context
from .prompts import CLAUSES, CONDITIONS, MAX_TOKENS, TEMPERATURE, Item
from .summary import write_summary

#: Items sent per batch, per unit of concurrency (a batch is committed at once).
BATCH_PER_SLOT = 4


@dataclass
class PredictResult:
    out: Path
    replies: Path
    method: str = ""
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
    summary: dict[str, Any] = field(default_factory=dict)


def method_label(condition: str, clause: str, system: str, baseline: str | None) -> str:
    """How predictions files name what produced them (eval's comparison table shows it)."""
    if baseline and baseline != "verbal-confidence":
        return baseline
    cell = f"{condition}/{clause}"
    return cell if system == "standalone" else f"{system} {cell}"


def _check(condition: str, clause: str, system: str, baseline: str | None) -> None:
    for name, value, allowed in (
        ("--condition", condition, CONDITIONS),
        ("--clause", clause, CLAUSES),
        ("--system", system, SYSTEMS),
    ):
        if value not in allowed:
            raise ConfigError(f"{name} {value!r}: expected one of {', '.join(allowed)}")
    if baseline is not None and baseline not in BASELINES:
        raise ConfigError(f"--baseline {baseline!r}: expected one of {', '.join(BASELINES)}")
    if baseline is not None and system != "standalone":
        raise ConfigError("--baseline runs one model on its own: leave out --system")


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
    model: str | None,
    out: Path | str,
    *,
    condition: str = "base",
    clause: str = "standard",
    system: str = "standalone",
    baseline: str | None = None,
    concurrency: int = 4,
    limit: int | None = None,
    include_unverified: bool = False,
    overwrite: bool = False,
    seed: int = 0,
    max_tokens: int = MAX_TOKENS,
    temperature: float = TEMPERATURE,
    pages: str = "evidence",
    max_pages: int = MAX_PAGES,
    price: tuple[float, float] | None = None,
    options: ClientOptions | None = None,
    progress: Callable[[int, int | None, str], None] | None = None,
) -> PredictResult:
    """Ask ``model`` every wanted item of ``dataset``; see the module docstring.

    ``baseline`` replaces the standalone model with one of ``BASELINES``; the degenerate
    anchors need no model. ``pages``: for document items, the evidence pages the record
    ships (``evidence``) or the document's pages up to ``max_pages`` (``document``).
    ``temperature`` is that of every call but self-consistency's samples (0.7).
    ``price``: US dollars per million input and output tokens.
    """
    if pages not in PAGE_MODES:
        raise ConfigError(f"--pages {pages!r}: expected one of {', '.join(PAGE_MODES)}")
    if baseline == "verbal-confidence":
        condition = "vconf"
    _check(condition, clause, system, baseline)
    if model is None and baseline not in ANCHORS:
        raise ConfigError("--model is required (only the anchors' baselines run without one)")
    label = method_label(condition, clause, system, baseline)
    method = method_for(system, baseline)
    started = time.perf_counter()
    dataset, out = Path(dataset), Path(out)
    root = dataset if dataset.is_dir() else dataset.parent
    replies = out.with_name(out.name + SIDECAR_SUFFIX)
    if overwrite:
        for path in (out, replies, out.with_name(out.name + ".summary.json")):
            path.unlink(missing_ok=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    result = PredictResult(out, replies, method=label)
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
    renderer = None
    if pages == "document":
        check_document_context(wanted)
        renderer = PageRenderer(root, max_pages)
    settings = replace(options or ClientOptions(), concurrency=concurrency)
    if settings.cache_path is None:
        settings = replace(settings, cache_path=out.with_name(out.name + ".cache.sqlite"))
    matcher = build_matcher()
    needs_model = baseline not in ANCHORS
    with ModelClient(model, settings) if needs_model and model else nullcontext() as client:

        def ask(record: dict[str, Any]) -> tuple[dict[str, Any], Context, Outcome | str, float]:
            if renderer is not None and record.get("document"):
                shown, images = renderer.pages(record)
            else:
                images = tuple((root / path).read_bytes() for path in record.get("images") or [])
                shown = tuple(record.get("evidence_pages") or ()) if record.get("document") else ()
            item = Item(record["question"], tuple(record.get("options") or ()), images, shown)
            ctx = Context(
                record, item, client, matcher, condition, clause, seed, max_tokens, temperature
            )
            began = time.monotonic()
            try:
                outcome: Outcome | str = method(ctx)
            except StepFailed as failure:
                outcome = str(failure)
            return record, ctx, outcome, time.monotonic() - began

        batch = max(1, concurrency * BATCH_PER_SLOT)
        if progress:
            progress(0, len(wanted), "")  # the clock of the calls/s starts here
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="predict") as pool:
            for start in range(0, len(wanted), batch):
                answered, logged = [], []
                for record, ctx, outcome, seconds in pool.map(ask, wanted[start : start + batch]):
                    trace = ctx.trace
                    result.asked += 1
                    result.calls += trace.calls
                    result.input_tokens += trace.input_tokens
                    result.output_tokens += trace.output_tokens
                    failed = isinstance(outcome, str)
                    logged.append(
                        {
                            "id": record["id"],
                            "method": label,
                            "ok": not failed,
                            "error": outcome if failed else None,
                            "steps": trace.steps,
                            "calls": trace.calls,
                            "input_tokens": trace.input_tokens,
                            "output_tokens": trace.output_tokens,
                            "billed_input_tokens": trace.billed_input_tokens,
                            "billed_output_tokens": trace.billed_output_tokens,
                            "seconds": round(seconds, 3),
                            **({} if failed else outcome.log),
                        }
                    )
                    if isinstance(outcome, str):
                        result.failed += 1
                        result.first_error = result.first_error or outcome
                        continue
                    answered.append(outcome.line(record["id"], label))
                _append(replies, logged)
                _append(out, answered)
                result.answered += len(answered)
                if progress:
                    elapsed = max(time.perf_counter() - started, 1e-9)
                    detail = (
                        f"{result.calls} calls ({result.calls / elapsed:.2f}/s),"
                        f" {result.input_tokens + result.output_tokens} tokens"
                    )
                    progress(result.asked, len(wanted), detail)
                stop_if_unusable([client])
    result.seconds = time.perf_counter() - started
    result.summary = write_summary(
        out,
        replies,
        method=label,
        model=public_spec(model) if model else None,
        concurrency=concurrency,
        wall_seconds=result.seconds,
        calls=result.calls,
        price=price,
    )
    return result


def grid_paths(out: Path) -> dict[tuple[str, str], Path]:
    """The six files of ``--grid``: OUT's stem with ``.<condition>-<clause>`` added."""
    suffix = out.suffix or ".jsonl"
    return {
        (condition, clause): out.with_name(f"{out.stem}.{condition}-{clause}{suffix}")
        for condition in CONDITIONS
        for clause in CLAUSES
    }
