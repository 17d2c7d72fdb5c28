"""Sharing a built dataset: Hub-ready parquet with the images inside, and a complete card.

``export_dataset(DIR, OUT)`` writes ``OUT/data/<split>-*.parquet``, ``OUT/documents/``
(PDFs, once each), ``OUT/README.md`` and the chart; nothing of ``DIR/state`` and no
absolute path. ``load_built(DIR)`` opens a build folder itself with images as images.
"""

from .export import ExportResult, export_dataset, load_built, push_to_hub

__all__ = ["ExportResult", "export_dataset", "load_built", "push_to_hub"]
