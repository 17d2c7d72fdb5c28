"""Choosing which detected text regions of an image to mask, shared by the label-mask transforms."""

from __future__ import annotations

import numpy as np

from ...model import Region
from ...textregions.detect import image_text
from ...textregions.layout import LABEL_ROLES, edge_band_regions


def parse_roles(value: str) -> tuple[str, ...]:
    """``"title, legend"`` -> ``("title", "legend")``; unknown roles are an error."""
    roles = tuple(part.strip() for part in value.split(",") if part.strip())
    unknown = [role for role in roles if role not in (*LABEL_ROLES, "body")]
    if unknown:
        raise ValueError(f"unknown text role(s) {unknown}; known: {[*LABEL_ROLES, 'body']}")
    return roles


def label_masks(image: np.ndarray, roles: tuple[str, ...]) -> tuple[list[Region], list[str], str]:
    """Mask regions over the text of ``roles``, their notes, and the detector that found them.

    Falls back to the edge bands when OCR is unavailable, reads nothing, or finds no text in
    any of ``roles`` (an image whose labels were not recognised still loses its margins).
    """
    height, width = image.shape[:2]
    found = image_text(image)
    notes = list(found.notes)
    chosen = [r for r in found.regions if r.role in roles]
    detector = found.detector
    if found.detector == "ocr" and not chosen:
        notes.append(
            f"OCR read {len(found.regions)} text line(s) but none is a {'/'.join(roles)};"
            " masked the edge bands instead"
        )
        chosen = edge_band_regions(width, height)
        detector = "fallback"
    if found.engine and detector == "ocr":
        counts: dict[str, int] = {}
        for region in chosen:
            counts[region.role] = counts.get(region.role, 0) + 1
        summary = ", ".join(f"{n} {role}" for role, n in sorted(counts.items()))
        notes.append(f"masked {summary} (OCR: {found.engine})")
    regions = [
        Region(
            bbox=tuple(round(v, 1) for v in r.bbox),
            kind="mask",
            detector=r.detector if detector == "ocr" else "fallback",
            role=r.role,
        )
        for r in chosen
    ]
    return regions, notes, detector
