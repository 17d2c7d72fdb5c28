"""Writing asset files atomically under an output folder, with deterministic names."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..loaders.common import slug
from ..media.files import atomic_write

__all__ = ["AssetStore"]


class AssetStore:
    """Files under ``root``; every method returns the path relative to ``root`` (POSIX style)."""

    def __init__(self, root: Path, folder: str = "assets") -> None:
        self.root = root
        self.folder = folder

    def write(self, relative: str, data: bytes) -> str:
        atomic_write(self.root / relative, data)
        return relative

    def variant_file(self, group_id: str, variant: str, name: str, data: bytes) -> str:
        return self.write(f"{self.folder}/{group_id}/{variant}/{name}", data)

    def shared_document(self, doc_id: str, data: bytes) -> str:
        """One copy of each source document, named by content, however many samples use it."""
        digest = hashlib.sha256(data).hexdigest()[:12]
        relative = f"{self.folder}/documents/{slug(Path(doc_id).stem, 60)}-{digest}.pdf"
        target = self.root / relative
        if not (target.is_file() and target.stat().st_size == len(data)):
            atomic_write(target, data)
        return relative
