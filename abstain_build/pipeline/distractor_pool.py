"""The driver's pass for image distractors: rank, for every image sample, the other
samples whose first image may stand beside (or instead of) its own.

A worker sees one sample; distractors come from the others. So before the build the
driver reads the image samples once (question, options, image digests), ranks candidates
(:func:`..evidence.image_distractors.rank_candidates`), and writes

* ``state/image_distractors.json``: sample id -> its candidates, best first;
* ``state/distractor-images/<sha256>``: each candidate image's bytes, once.

Workers read both (:func:`candidates_for`). The pass depends only on the source, the
limit and ``--distractors``, so a resumed run makes the same choices again, and the files
are rewritten with the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ..config import BuildConfig
from ..evidence.image_distractors import (
    CANDIDATES_PER_DISTRACTOR,
    Candidate,
    Entry,
    question_text,
    rank_candidates,
    subject_of,
)
from ..media.files import atomic_write
from ..model import ImageRef, Sample

PLAN_FILE = "image_distractors.json"
IMAGES_DIR = "distractor-images"
#: The sets that show distractors.
WITH_DISTRACTORS = ("gold+distractors", "distractors")


def wants_image_distractors(config: BuildConfig) -> bool:
    return any(name in WITH_DISTRACTORS for name in config.evidence_sets)


def _bytes_of(ref: ImageRef) -> bytes | None:
    if ref.data is not None:
        return ref.data
    try:
        return ref.path.read_bytes() if ref.path is not None else None
    except OSError:  # the sample's own build reports it
        return None


def _entries(samples: Iterable[Any]) -> Iterator[Entry]:
    for sample in samples:
        if not isinstance(sample, Sample) or sample.document is not None or not sample.images:
            continue
        data = [_bytes_of(ref) for ref in sample.images]
        if any(d is None for d in data):
            continue
        digests = [hashlib.sha256(d).hexdigest() for d in data]  # type: ignore[arg-type]
        yield Entry(
            sample.id, subject_of(sample), question_text(sample), frozenset(digests), digests[0]
        )


def plan_image_distractors(
    samples: Callable[[], Iterable[Any]],
    config: BuildConfig,
    state_dir: Path,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Rank the candidates of every image sample of ``samples()`` (called twice: the
    source is streamed, not held) and write them under ``state_dir``; returns counts for
    the manifest. ``progress(done, total)``: image questions embedded so far."""
    entries = list(_entries(samples()))
    wanted = CANDIDATES_PER_DISTRACTOR * config.distractors
    if progress is not None:
        progress(0, len(entries))
    ranked = rank_candidates(
        entries, wanted, None if progress is None else (lambda done: progress(done, len(entries)))
    )
    needed = {c.digest for chosen in ranked.values() for c in chosen}
    first = {e.sample_id: e.first for e in entries}  # hashed already: read only what lends
    folder = state_dir / IMAGES_DIR
    written: set[str] = set()
    for sample in samples():
        digest = first.get(sample.id) if isinstance(sample, Sample) else None
        if digest not in needed or digest in written:
            continue
        data = _bytes_of(sample.images[0])
        if data is None:
            continue
        target = folder / digest
        if not (target.is_file() and target.stat().st_size == len(data)):
            atomic_write(target, data)
        written.add(digest)
    plan = {sid: [c.to_json() for c in chosen] for sid, chosen in ranked.items()}
    text = json.dumps(plan, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    atomic_write(state_dir / PLAN_FILE, text.encode("utf-8"))
    return {"image_samples": len(entries), "candidate_images": len(written)}


_PLANS: dict[tuple[str, int, int], dict[str, list[Candidate]]] = {}
_PLANS_LOCK = threading.Lock()


def candidates_for(state_dir: Path, sample_id: str) -> list[Candidate]:
    """``sample_id``'s ranked candidates, from the plan the driver wrote (read once per
    process and plan file); none when there is no plan or the sample is not in it."""
    path = state_dir / PLAN_FILE
    try:
        stat = path.stat()
    except FileNotFoundError:
        return []
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    with _PLANS_LOCK:
        if key not in _PLANS:
            raw = json.loads(path.read_text("utf-8"))
            _PLANS.clear()  # one build's plan at a time
            _PLANS[key] = {
                sid: [Candidate.from_json(c) for c in chosen] for sid, chosen in raw.items()
            }
        return _PLANS[key].get(sample_id, [])


def candidate_bytes(state_dir: Path, candidate: Candidate) -> bytes:
    return (state_dir / IMAGES_DIR / candidate.digest).read_bytes()
