"""Built-in transforms; importing this package registers them."""

from . import adaptive_darkness, hide_evidence_page, temporal_drift  # noqa: F401
