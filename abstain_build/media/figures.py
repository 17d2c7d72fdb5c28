"""Matplotlib figures to PNG bytes, without a display and with our PNG settings."""

from __future__ import annotations

import io
from typing import Any


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend (imported lazily: it costs ~0.3 s)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def figure_png(figure: Any) -> bytes:
    """Render ``figure``, close it, and encode it as RGB PNG."""
    import numpy as np
    from PIL import Image

    plt = pyplot()
    figure.tight_layout()
    figure.canvas.draw()
    pixels = np.asarray(figure.canvas.buffer_rgba())[..., :3].copy()
    plt.close(figure)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()
