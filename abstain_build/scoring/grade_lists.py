"""The **list** rule of :mod:`.answers`: the items of a response (a literal list,
brackets, or the final answer split at commas) paired one to one with the gold's."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Sequence
from decimal import Decimal

from abstain_build.scoring.final_answer import (
    ANSWER_MARKER,
    clean,
    final_answer,
    normalize_quotes,
)

from .answer_text import (
    EMPTY_LIST,
    MAX_MATCHED_ITEMS,
    Grade,
    clean_str,
    needs_exact,
    similar,
    whole_number,
)

# -- list ----------------------------------------------------------------------------------

_BRACKETS = re.compile(r"\[[^\[\]]*\]")
_BULLET = re.compile(r"^\s*(?:[-*•·]|[0-9]{1,2}[.)])\s+")
_ITEM_SPLIT = re.compile(r"\n|;|(?<![0-9]),|,(?![0-9]{3}(?![0-9]))")
_LEAD_IN = re.compile(
    r"^(?:\S+\s+){0,11}?(?:are|were|include|includes|included|is|was)\s+", re.IGNORECASE
)
_AND = re.compile(r"\s+(?:and|&)\s+", re.IGNORECASE)


def literal_list(text: str) -> list[str] | None:
    """Items of a Python list repr, or None when ``text`` is not one."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if not isinstance(value, (list, tuple)):
        return None
    return [str(item).strip() for item in value if str(item).strip()]


def _gold_items(gold: str) -> list[str]:
    text = normalize_quotes(gold).strip()
    if text.startswith("["):
        items = literal_list(text)
        if items is not None:
            return items
        text = text.strip("[]")
        return [i for i in (p.strip().strip("\"'").strip() for p in text.split(",")) if i]
    return [text] if text else []


def _bracket_items(text: str, *, anywhere: bool) -> list[str] | None:
    """The last ``[...]`` list in ``text`` that is quoted or comma-separated, or is the
    whole final answer (a citation "[1]" inside a sentence is not an answer)."""
    for match in reversed(_BRACKETS.findall(text)):
        whole = not anywhere and match == text.strip()
        if not whole and not re.search(r"[,'\"]", match):
            continue
        items = literal_list(match)
        if items is not None:
            return items
        if not anywhere and "," in match:
            return [i for i in (_clean_item(p) for p in match[1:-1].split(",")) if i]
    return None


def _answer_block(text: str) -> str:
    """Where a list answer is written: the marked answer's line, or the lines under a
    bare "Answer:", or a closing bullet list, else the final answer."""
    found = final_answer(text)
    markers = list(ANSWER_MARKER.finditer(text))
    if markers:
        first, _, after = text[markers[-1].end() :].partition("\n")
        if clean(first) and not first.rstrip().endswith(":"):
            return found.text
        lines: list[str] = []
        for line in after.splitlines():
            if clean(line):
                lines.append(line)
            elif lines:
                break
        return "\n".join(lines) if lines else found.text
    lines = [line for line in text.splitlines() if clean(line)]
    block: list[str] = []
    for line in reversed(lines):
        if not _BULLET.match(line):
            break
        block.append(line)
    return "\n".join(reversed(block)) if len(block) >= 2 else found.text


def _clean_item(item: str) -> str:
    item = _BULLET.sub("", item.strip())
    item = re.sub(r"^(?:and|or|&)\s+", "", item, flags=re.IGNORECASE)
    return clean(item).strip("\"'").strip()


def _split_items(text: str, expected: int) -> list[str]:
    if "\n" not in text:
        text = text.split(": ")[-1]
        text = _LEAD_IN.sub("", text, count=1)
    items = [i for i in (_clean_item(p) for p in _ITEM_SPLIT.split(text)) if i]
    while len(items) < expected:
        index = next((k for k in reversed(range(len(items))) if _AND.search(items[k])), None)
        if index is None:
            break
        item = items[index]
        last = list(_AND.finditer(item))[-1]
        parts = (_clean_item(item[: last.start()]), _clean_item(item[last.end() :]))
        items[index : index + 1] = [part for part in parts if part]
    return items


def _item_number(item: str) -> Decimal | None:
    return whole_number(normalize_quotes(item).strip())


def _items_match(gold: str, prediction: str) -> bool:
    """One gold item against one predicted item (see **list** in the module docstring)."""
    gold_number = _item_number(gold)
    if gold_number is not None:
        number = _item_number(prediction)
        return number is not None and (
            number == gold_number or math.isclose(float(gold_number), float(number), rel_tol=0.01)
        )
    target, candidate = clean_str(gold), clean_str(prediction)
    if needs_exact(target):
        return target == candidate
    return similar(target, candidate)


def _pairs_up(
    golds: Sequence[str], predictions: Sequence[str], match: Callable[[str, str], bool]
) -> bool:
    """Can every gold item be paired with its own matching prediction? (Kuhn's matching.)"""
    if len(golds) > MAX_MATCHED_ITEMS:  # too long to match: MMLongBench's sorted pairing
        pairs = zip(sorted(golds, key=clean_str), sorted(predictions, key=clean_str), strict=True)
        return all(match(g, p) for g, p in pairs)
    edges = [[j for j, p in enumerate(predictions) if match(g, p)] for g in golds]
    owner = [-1] * len(predictions)

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j not in seen:
                seen.add(j)
                if owner[j] < 0 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(augment(i, set()) for i in range(len(golds)))


def grade_list(response: str, gold: str) -> Grade:
    golds = _gold_items(gold)
    text = normalize_quotes(response).strip()
    if EMPTY_LIST.fullmatch(final_answer(text).text):
        return Grade(not golds, "list", "[]")  # an empty list is an answer, right for "[]"
    items = _bracket_items(final_answer(text).text, anywhere=False)
    if items is None:
        items = _bracket_items(text, anywhere=True)
    if items is None:
        items = _split_items(_answer_block(text), len(golds))
    if not items:
        return Grade(False, "list", None)
    correct = bool(golds) and len(items) == len(golds) and _pairs_up(golds, items, _items_match)
    return Grade(correct, "list", repr(items))
