"""Built-in transforms; importing this package registers them."""

from . import (  # noqa: F401
    adaptive_darkness,
    aggressive_crop,
    aggressive_multi_mask,
    hide_evidence_page,
    partial_occlusion,
    temporal_drift,
)
