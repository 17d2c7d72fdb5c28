"""Writing asset files atomically under an output folder, with deterministic names."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from ..loaders.common import slug


def _default_mode() -> int:
    """Permissions a plain ``open()`` would give (mkstemp files are private by default)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_FILE_MODE = _default_mode()


def atomic_write(path: Path, data: bytes, private: bool = False) -> None:
    """Write to a temporary file beside ``path`` and rename it: readers never see half a file.

    ``private``: the file stays readable by its owner only (0600 from its first byte, as
    ``mkstemp`` creates it), for secrets; otherwise it gets the umask's usual mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        if not private:
            os.chmod(temporary, _FILE_MODE)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


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
