"""Readings that still speak for a new version: the same bytes shipped.

A version bump retires a transform's readings (:mod:`.table`), because what was read may
no longer be what is built. Most bumps change a few items (a new rule declines some
questions) and leave the rest byte for byte as they were. A reading made of an older
version counts for the current one when a counterpart the current version built ships
exactly what the reader was shown (:func:`.shipped.shipped_digest`): it is filed again at
the new version, with ``carried_from`` naming the version it was made of. Readings without
a shipped digest, or of items that changed, stay history.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from ..schema import COUNTERPART, record_kind
from .kits import Build
from .ledger import Reading, fingerprint
from .shipped import shipped_digest


def carried_readings(
    builds: Sequence[Build], existing: Sequence[Reading], today: str | None = None
) -> list[Reading]:
    """Readings of ``existing`` made of older versions whose items a counterpart of
    ``builds`` ships unchanged, filed at that counterpart's version (each once)."""
    from ..scoring.items import data_records

    by_digest: dict[tuple[str, str], list[Reading]] = {}
    for reading in existing:
        if reading.shipped:
            by_digest.setdefault((reading.transform, reading.shipped), []).append(reading)
    done = {(r.reader, r.transform, r.version, r.shipped) for r in existing}
    stamp = today or date.today().isoformat()
    out: list[Reading] = []
    for build in builds:
        for record in data_records(build.root):
            transform = record.get("transform") or {}
            if record_kind(record) != COUNTERPART or not transform.get("name"):
                continue
            name, version = transform["name"], int(transform.get("version") or 1)
            digest = shipped_digest(build.root, record)
            for reading in by_digest.get((name, digest), []):
                if reading.version >= version:
                    continue
                mark = (reading.reader, name, version, digest)
                if mark in done:
                    continue
                done.add(mark)
                out.append(
                    reading.model_copy(
                        update={
                            "item": fingerprint(record["group_id"], name, transform["params"]),
                            "version": version,
                            "carried_from": reading.carried_from or reading.version,
                            "date": stamp,
                        }
                    )
                )
    return out
