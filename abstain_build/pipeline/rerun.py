"""``abstain-build qc DIR``: verify (or re-verify) a built dataset without rebuilding it.

Every unanswerable item of ``DIR/data.jsonl`` is judged from its own files (the perturbed
images or pages, the perturbed PDF) and, for reference judges, its control's. Results are
appended to ``DIR/state/qc.jsonl`` as they come, so a killed run resumes where it stopped;
model replies are cached in ``DIR/state/models.sqlite``, so no verdict is asked twice. A
verdict that was an error (``qc_error``: a judge down, a reply lost) is asked again by the
next run; the others stand until ``--redo``.
When all items are judged, ``data.jsonl`` is rewritten (atomically) with the new ``qc``
fields, and the manifest and card with the new rates. Items cannot move to another
transform here: a rejected item stays in the dataset with ``qc.status = "rejected"``.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..models import public_spec, stop_if_unusable
from ..qc.consensus import ACCEPTED, QC_ERROR
from ..qc.judges.base import JudgeItem, Reference
from ..qc.verify import OFFLINE_JUDGES, QcResult, Verifier, apply_validity, record_validity_key

QC_JOURNAL = "qc.jsonl"


@dataclass
class RerunResult:
    judged: int  # items judged by this invocation
    resumed: int  # items whose verdicts came from an earlier, interrupted run
    statuses: Counter[str]
    rates: dict[str, Any]


def _rows(data_path: Path) -> list[dict[str, Any]]:
    if not data_path.exists():
        raise ConfigError(f"{data_path.parent} has no data.jsonl: not a built dataset")
    return [json.loads(line) for line in data_path.read_text(encoding="utf-8").splitlines() if line]


def _read(root: Path, relative: str | None) -> bytes | None:
    return None if relative is None else (root / relative).read_bytes()


def judge_items(root: Path, rows: list[dict[str, Any]]) -> Iterator[JudgeItem]:
    """The dataset's unanswerable items, each with its control as the reference."""
    controls = {r["group_id"]: r for r in rows if r["transform"] is None}
    for row in rows:
        if row["transform"] is None:
            continue
        control = controls.get(row["group_id"])
        reference = None
        if control is not None:
            reference = Reference(
                question=control["question"],
                answer=control["answer"] or "",
                answer_format=control.get("answer_format"),
                images=tuple(_read(root, p) or b"" for p in control["images"]),
                document=_read(root, control.get("document")),
            )
        transform = dict(row["transform"])
        transform["params"] = json.loads(transform["params"] or "{}")
        yield JudgeItem(
            id=row["id"],
            axis=row["axis"],
            question=row["question"],
            options=tuple(row["options"] or ()),
            images=tuple(_read(root, p) or b"" for p in row["images"]),
            document=_read(root, row.get("document")),
            pages=tuple(row["evidence_pages"] or ()),
            transform=transform,
            reference=reference,
        )


def _journal(path: Path) -> dict[str, dict[str, Any]]:
    done: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:  # a line torn by a kill
                continue
            done[entry["id"]] = entry
    return done


def verify_items(
    verifier: Verifier, items: list[JudgeItem], concurrency: int
) -> Iterator[tuple[JudgeItem, QcResult]]:
    """Judge ``items``, ``concurrency`` at a time when every judge is a model (they wait on
    the network); reference judges, which run OCR in this process, take one at a time."""
    threads = concurrency if all(j.kind == "model" for j in verifier.judges) else 1
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        yield from zip(items, pool.map(verifier.verify, items), strict=True)


def built_blind_policy(out_dir: Path) -> str:
    """The blind policy the folder was built with (its ``state/config.json``): the
    validity figures QC judges by depend on it (:func:`..validity.policy.load_policy`).
    ``rewrite``, the default, where the folder does not say."""
    from .output import written_settings

    policy = (written_settings(out_dir) or {}).get("blind_policy")
    return policy if isinstance(policy, str) else "rewrite"


def rerun_qc(
    root: Path,
    verifier: Verifier,
    *,
    concurrency: int = 4,
    redo: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RerunResult:
    """Judge every unanswerable item of the dataset in ``root``; see the module docstring."""
    data_path = root / "data.jsonl"
    rows = _rows(data_path)
    journal_path = root / "state" / QC_JOURNAL
    journal_path.parent.mkdir(parents=True, exist_ok=True)
    if redo and journal_path.exists():
        journal_path.unlink()
    done = _journal(journal_path)
    # A verdict that was an error (a judge down, a reply lost) is asked again: only settled
    # verdicts are taken from the journal.
    settled = {i for i, entry in done.items() if entry.get("status") != QC_ERROR}
    resumed = len(settled)
    pending = [item for item in judge_items(root, rows) if item.id not in settled]
    total = len(done) + len(pending)
    with journal_path.open("a", encoding="utf-8") as journal:
        for item, result in verify_items(verifier, pending, concurrency):
            entry = {"id": item.id, **result.to_json()}
            journal.write(json.dumps(entry, ensure_ascii=False) + "\n")
            journal.flush()
            os.fsync(journal.fileno())
            done[item.id] = entry
            if progress:
                progress(len(done), total)
            stop_if_unusable(verifier.model_clients())
    statuses: Counter[str] = Counter()
    by_family: dict[str, Counter] = defaultdict(Counter)
    controls = {r["group_id"]: r for r in rows if r["transform"] is None}
    for row in rows:
        entry = done.get(row["id"])
        if row["transform"] is None or entry is None:
            continue
        row["qc"]["status"], row["qc"]["validity"] = _with_policy(
            verifier, entry, row, controls.get(row["group_id"])
        )
        row["qc"]["judges"] = entry["judges"]
        human = (row["qc"].get("human") or {}).get("label")
        if human is not None:  # annotators have the last word over the judges
            row["qc"]["status"] = "accepted" if human == "UNANSWERABLE" else "rejected"
        statuses[row["qc"]["status"]] += 1
        by_family[row["transform"]["family"]][row["qc"]["status"]] += 1
    _write_rows(data_path, rows)
    from .summary import qc_rates

    rates = qc_rates(by_family)
    _update_manifest(root, verifier, rates)
    return RerunResult(len(pending), resumed, statuses, rates)


def _with_policy(
    verifier: Verifier,
    entry: dict[str, Any],
    row: dict[str, Any],
    control: dict[str, Any] | None,
) -> tuple[str, dict[str, Any] | None]:
    """(status, qc.validity) of a journaled verdict under this run's validity policy: the
    judges' decision is kept, the bar is applied again (so ``qc`` with another
    ``--min-validity`` re-decides without asking any judge)."""
    policy = verifier.spec.validity
    if policy is None:
        return entry["status"], None
    held = bool((entry.get("validity") or {}).get("held"))
    result = QcResult(ACCEPTED if held else entry["status"])
    apply_validity(result, policy.decide(*record_validity_key(row, control)))
    return result.status, result.validity


def _write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    from .output import dumps, rewrite_data

    rewrite_data(path.parent, [dumps(row) for row in rows])


def _update_manifest(root: Path, verifier: Verifier, rates: dict[str, Any]) -> None:
    """The manifest's judges, QC rates and validity policy, and the card written from them."""
    from ..media.files import atomic_write
    from .card import refresh_card

    path = root / "manifest.json"
    if not path.exists():
        return
    manifest = json.loads(path.read_text(encoding="utf-8"))
    specs = [public_spec(name) for name in verifier.spec.judges]
    manifest["models"]["judges"] = specs
    offline = sorted(specs) == sorted(OFFLINE_JUDGES)
    manifest["config"]["qc"] = "offline" if offline else "judges"
    manifest["config"]["judges"] = [] if offline else specs
    manifest.setdefault("counts", {})["qc"] = rates
    if verifier.spec.validity is not None:
        manifest["validity"] = verifier.spec.validity.describe()
    else:
        manifest.pop("validity", None)
    atomic_write(path, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode())
    refresh_card(root)
