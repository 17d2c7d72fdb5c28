"""See what each transform does to one sample: ``index.html`` and ``contact_sheet.png``."""

from .run import PreviewItem, PreviewResult, find_sample, preview

__all__ = ["PreviewItem", "PreviewResult", "find_sample", "preview"]
