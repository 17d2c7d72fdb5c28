"""Per-call random generators that do not depend on scheduling.

Every transform call draws from its own generator, seeded from what identifies the call
(run seed, sample id, transform name, attempt) and nothing else, so the output is the same
whatever the number of workers or the order in which samples finish.
"""

from __future__ import annotations

import hashlib

import numpy as np


def derive_seed(run_seed: int, sample_id: str, transform: str, attempt: int = 0) -> int:
    """A 63-bit seed that is a pure function of the call's identity."""
    key = "\x1f".join((str(int(run_seed)), sample_id, transform, str(int(attempt))))
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") & 0x7FFF_FFFF_FFFF_FFFF


def make_rng(
    run_seed: int, sample_id: str, transform: str, attempt: int = 0
) -> np.random.Generator:
    return np.random.default_rng(derive_seed(run_seed, sample_id, transform, attempt))
