"""Who may vote, and keys the page cannot see through: both from one per-review secret.

``DIR/review/secret`` (32 random bytes, created with the review, readable by its owner
only) keys two HMACs: an item's opaque key (``item_key``), so that knowing the group ids
does not reveal which record, and so which transform, a key stands for; and each
annotator's token (``annotator_token``), printed with their link and required with every
vote, so that another local process cannot vote under any name, old or new.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path

from ..media.files import atomic_write
from .votes import REVIEW_DIR, private_folder

SECRET_FILE = f"{REVIEW_DIR}/secret"


def review_secret(root: Path) -> bytes:
    """The review's secret, created on first use."""
    path = Path(root) / SECRET_FILE
    try:
        data = bytes.fromhex(path.read_text(encoding="ascii").strip())
        if len(data) >= 16:
            return data
    except (OSError, ValueError):
        pass
    data = secrets.token_bytes(32)
    private_folder(path.parent)
    atomic_write(path, data.hex().encode("ascii") + b"\n", private=True)  # 0600 throughout
    return data


def _mac(secret: bytes, purpose: str, value: str) -> str:
    message = f"{purpose}\x1f{value}".encode("utf-8", "surrogatepass")
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def item_key(record_id: str, secret: bytes) -> str:
    """An item's opaque key: record ids name the transform, which the page must hide."""
    return _mac(secret, "item", record_id)[:16]


def annotator_token(name: str, secret: bytes) -> str:
    """The token that lets ``name`` vote in this review."""
    return _mac(secret, "annotator", name)[:32]


def token_matches(name: str, token: object, secret: bytes) -> bool:
    return isinstance(token, str) and hmac.compare_digest(token, annotator_token(name, secret))
