"""How strong a page blur is: one reading of a blur radius for every document transform.

Blur radii are declared in pixels at :data:`~abstain_build.media.pdf.DEFAULT_DPI` (144), so a
parameter means the same blur on the page whatever dpi a run renders at; and a radius of
:data:`FULL_RADIUS` or more counts as a full-strength blur in a plan's intensity.
"""

from __future__ import annotations

from ...media.pdf import DEFAULT_DPI

#: Radius (pixels at 144 dpi) from which a blur counts as full strength.
FULL_RADIUS = 25.0


def radius_px(radius: float, dpi: float) -> float:
    """``radius`` (pixels at 144 dpi) in pixels at ``dpi``: the same size on the page."""
    return radius * dpi / DEFAULT_DPI


def blur_params(radius: float, dpi: int) -> dict[str, float]:
    """What a plan records of a blur besides its configuration: the run's ``dpi`` and the
    radius in pixels at it (3 decimals), which is what the edit then uses."""
    return {"dpi": dpi, "radius_px": round(radius_px(radius, dpi), 3)}


def blur_strength(radius: float) -> float:
    """``radius`` (pixels at 144 dpi) as a strength from 0 to 1 (1 from :data:`FULL_RADIUS`)."""
    return min(1.0, radius / FULL_RADIUS)
