"""Helpers every loader needs: safe paths, safe list parsing, stable sample ids."""

from __future__ import annotations

import ast
import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

from ..errors import SampleError

_MAX_LITERAL_CHARS = 200_000
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9._-]+")


def load_error(reason: str) -> SampleError:
    return SampleError("load", reason)


def resolve_inside(root: Path, relative: Any, what: str, base: Path | None = None) -> Path:
    """Resolve ``relative`` from ``base`` (default ``root``); refuse what lands outside ``root``,
    and anything that is not a path (a number, a list, an object, a name too long)."""
    if not isinstance(relative, str):
        kind = "null" if relative is None else type(relative).__name__
        raise load_error(f"{what}: expected a path (text), got {kind}")
    if not relative.strip():
        raise load_error(f"{what}: empty path")
    checked_text(relative, what)
    root = root.resolve()
    try:
        candidate = ((base or root) / relative).resolve()
        inside = candidate.is_relative_to(root)
        exists = inside and candidate.is_file()
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        raise load_error(f"{what}: not a usable path ({exc})") from None
    if not inside:
        raise load_error(f"{what}: path {relative!r} resolves outside the dataset root {root}")
    if not exists:
        raise load_error(f"{what}: file not found: {relative}")
    return candidate


def parse_list(value: Any, what: str) -> list[Any]:
    """A list given as a list, a JSON string or a Python list repr; never evaluated as code."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    if hasattr(value, "tolist"):  # numpy / pyarrow arrays from parquet
        return list(value.tolist())
    if not isinstance(value, str):
        raise load_error(f"{what}: expected a list, got {type(value).__name__}")
    text = value.strip()
    if not text:
        return []
    if len(text) > _MAX_LITERAL_CHARS:
        raise load_error(f"{what}: list literal is too long ({len(text):,} characters)")
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise load_error(f"{what}: not a list literal: {text[:80]!r}") from None
    if not isinstance(parsed, (list, tuple)):
        raise load_error(f"{what}: expected a list, got {type(parsed).__name__}")
    return list(parsed)


def parse_pages(value: Any, what: str = "evidence_pages") -> tuple[int, ...]:
    """1-based page numbers; 0 or negatives are reported, not silently shifted."""
    pages = parse_list(value, what)
    out: list[int] = []
    for page in pages:
        if isinstance(page, bool) or not isinstance(page, (int, float, str)):
            raise load_error(f"{what}: {page!r} is not a page number")
        try:
            number = int(page)
        except (ValueError, OverflowError):
            raise load_error(f"{what}: {page!r} is not a page number") from None
        if not isinstance(page, int) and number != float(page):
            raise load_error(f"{what}: {page!r} is not a whole page number")
        if number > MAX_PAGE:
            raise load_error(f"{what}: page {number:.3g} is beyond any document")
        if number < 1:
            raise load_error(f"{what}: page {number} is invalid (pages are 1-based)")
        out.append(number)
    return tuple(dict.fromkeys(out))


def slug(text: str, limit: int = 48) -> str:
    cleaned = _UNSAFE_ID.sub("-", text).strip("-.")
    return cleaned[:limit] or "item"


def content_id(prefix: str, *parts: Any) -> str:
    """A readable id that depends on the record's content, not on its position."""
    # surrogatepass: a lone surrogate is refused later, with its reason, not here by a crash
    text = "\x1f".join(str(p) for p in parts)
    digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{slug(prefix, 40)}-{digest}"


class IdAllocator:
    """Makes ids unique within a source by suffixing repeats (-2, -3, ...)."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}
        self._taken: set[str] = set()

    def __call__(self, wanted: str) -> str:
        wanted = slug(wanted, 96)
        count = self._seen.get(wanted, 0) + 1
        candidate = wanted if count == 1 else f"{wanted}-{count}"
        while candidate in self._taken:  # e.g. the source itself uses "x-2" after two "x"
            count += 1
            candidate = f"{wanted}-{count}"
        self._seen[wanted] = count
        self._taken.add(candidate)
        return candidate


def given_id(record: dict[str, Any]) -> str | None:
    """The record's own ``id`` as text (0 is an id; "" and null are not). A lone surrogate
    in it is written as its escape (``\\ud800``): the id must be storable, if only to name
    the record's error (:func:`surrogate_in_id` reports it)."""
    value = record.get("id")
    if value is None or isinstance(value, (dict, list, bool)):
        return None
    text = str(value).strip()
    if _SURROGATE.search(text):
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text or None


def surrogate_in_id(record: dict[str, Any]) -> None:
    """Refuse a record whose ``id`` holds a lone surrogate (its escape stood in for it)."""
    value = record.get("id")
    if isinstance(value, str):
        checked_text(value, "id")


#: A page number no document reaches (PDFs of a million pages do not exist in practice).
MAX_PAGE = 1_000_000
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def checked_text(text: str, what: str) -> str:
    """``text`` unless it holds a lone UTF-16 surrogate (a broken escape such as
    ``"\\ud800"`` in JSON), which no file can store as UTF-8."""
    found = _SURROGATE.search(text)
    if found:
        raise load_error(
            f"the {what} holds a lone UTF-16 surrogate (U+{ord(found.group()):04X}) at character"
            f" {found.start()}: a broken escape, not a character"
        )
    return text


PLACEHOLDER = re.compile(r"<image\s*(\d+)>", re.IGNORECASE)


def placeholder_numbers(*texts: str) -> set[int]:
    """The N of every ``<image N>`` in ``texts``."""
    return {int(n) for text in texts for n in PLACEHOLDER.findall(text)}


def required_question(record: dict[str, Any]) -> str:
    """The question as text: a number or a list is no question, and says so."""
    question = record["question"]
    if not isinstance(question, str):
        kind = "null" if question is None else type(question).__name__
        raise load_error(f"the question is {kind} ({str(question)[:40]!r}), not text")
    if not question.strip():
        raise load_error("the question is empty")
    return checked_text(question.strip(), "question")


#: A float beyond this is not an exact number any more (2**53): "1e23" would be printed as
#: 99999999999999991611392.
EXACT_FLOAT = 2.0**53


def _checked_float(value: float, what: str) -> None:
    if not math.isfinite(value):
        raise load_error(f"the {what} is {value!r}, not a value a question can have")
    if abs(value) >= EXACT_FLOAT:
        raise load_error(
            f"the {what} is {value!r}, too large to be read exactly as a JSON number:"
            " give it as text"
        )


def optional_format(record: dict[str, Any]) -> str | None:
    """``answer_format`` as text (None when absent): an object or a list is refused."""
    value = record.get("answer_format")
    if value is None:
        return None
    if not isinstance(value, str):
        raise load_error(f"answer_format is {type(value).__name__}, not text")
    return checked_text(value, "answer_format")


def checked_metadata(value: Any, where: str = "metadata") -> Any:
    """``value`` with every key and string inside checked for lone surrogates (which stop
    the run when the record is written) and every float for being finite."""
    if isinstance(value, str):
        return checked_text(value, where)
    if isinstance(value, float) and not math.isfinite(value):
        raise load_error(f"{where} holds {value!r}, which JSON cannot store")
    if isinstance(value, dict):
        return {
            checked_text(str(k), f"{where} key"): checked_metadata(v, f"{where}.{k}")
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [checked_metadata(v, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def required_answer(record: dict[str, Any]) -> str:
    value = record["answer"]
    if isinstance(value, float):
        _checked_float(value, "answer")
    if isinstance(value, (list, tuple)) and not value:
        raise load_error("the answer is an empty list")
    if isinstance(value, dict):
        raise load_error("the answer is a JSON object, not text, a number or a list")
    answer = answer_text(value)
    if not answer.strip():
        raise load_error("the answer is empty")
    return checked_text(answer, "answer")


def option_texts(value: Any) -> tuple[str, ...]:
    """Options as text: strings and numbers; null, objects and lists are refused by position."""
    options = parse_list(value, "options")
    out = []
    for n, option in enumerate(options, start=1):
        if option is None or isinstance(option, (dict, list, tuple, bool)):
            kind = "null" if option is None else type(option).__name__
            raise load_error(f"option {n} is {kind}, not text or a number")
        if isinstance(option, float):
            _checked_float(option, f"option {n}")
        out.append(checked_text(answer_text(option), f"option {n}"))
    return tuple(out)


def answer_text(value: Any) -> str:
    """Answers are kept as text, the way the sources print them."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
