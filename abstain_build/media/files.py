"""Writing a file so that no reader ever sees half of it.

Outputs, caches and the review's secret all go through :func:`atomic_write`: a temporary
file beside the target, renamed over it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


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
