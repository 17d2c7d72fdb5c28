"""Verification of perturbed items. The structural (preliminary) checks run on every item."""

from .structural import structural_checks

__all__ = ["structural_checks"]
