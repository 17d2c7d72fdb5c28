"""Built-in transforms; importing this package registers them."""

from . import (  # noqa: F401
    adaptive_darkness,
    adversarial_ambiguity,
    aggressive_crop,
    aggressive_multi_mask,
    blur_edge_mask,
    blur_figure_region,
    column_merge_ambiguity,
    contradictory_caption,
    corrupt_numeric_tokens,
    counterfactual_distractor_rows,
    dense_mask,
    full_page_blur,
    hide_evidence_page,
    overlay_label_mask,
    partial_occlusion,
    remove_numeric_tokens,
    remove_visual_element,
    semantic_unanswerability,
    temporal_drift,
)
