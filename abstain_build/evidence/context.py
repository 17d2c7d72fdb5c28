"""What a model is meant to see of a document sample, as a build records it."""

from __future__ import annotations

#: "document": the whole PDF (MMLongBench-Doc's evaluation gives a model the whole
#: document); "pages": only the images of the evidence pages.
CONTEXTS = ("document", "pages")
DEFAULT_CONTEXT = "document"
#: What an image sample ships: its images.
IMAGES = "images"
