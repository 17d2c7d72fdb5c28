"""Finding where a gold answer is printed on a PDF page (text layer only)."""

from __future__ import annotations

import ast
import re

import pymupdf

_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def answer_needles(answer: str) -> list[str]:
    """Strings worth searching for: the answer, the items of a list answer, its numbers."""
    text = answer.strip()
    needles: list[str] = []
    items: list[str] = [text]
    if text.startswith("[") and text.endswith("]"):
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            parsed = None
        if isinstance(parsed, (list, tuple)):
            items = [str(item) for item in parsed]
    for item in items:
        item = item.strip()
        if 2 <= len(item) <= 120:
            needles.append(item)
        needles.extend(n for n in _NUMBER.findall(item) if len(n.replace(",", "")) >= 2)
    return list(dict.fromkeys(needles))


def locate_answer(page: pymupdf.Page, answer: str) -> list[pymupdf.Rect]:
    """Rectangles of every occurrence of the answer (or its parts) in the page's text layer."""
    rects: list[pymupdf.Rect] = []
    for needle in answer_needles(answer):
        rects.extend(page.search_for(needle))
    return rects
