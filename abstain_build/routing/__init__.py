"""Choosing which transforms a sample receives."""

from .select import Selection, select_transforms

__all__ = ["Selection", "select_transforms"]
