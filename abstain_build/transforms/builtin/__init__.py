"""Built-in transforms; importing this package registers them."""

from . import (  # noqa: F401
    adaptive_darkness,
    aggressive_crop,
    aggressive_multi_mask,
    blur_edge_mask,
    hide_evidence_page,
    overlay_label_mask,
    partial_occlusion,
    temporal_drift,
)
