"""The same MMMU items in the Hugging Face ``MMMU/MMMU`` parquet column layout.

Both layouts carry the same questions, so a test can prove the two loaders agree.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .files import write_bytes
from .mmmu import Item

MAX_IMAGES = 7
FILE_NAME = "validation-00000-of-00001.parquet"
IMAGE_TYPE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("question", pa.string()),
        ("options", pa.string()),
        ("explanation", pa.string()),
        *((f"image_{n}", IMAGE_TYPE) for n in range(1, MAX_IMAGES + 1)),
        ("img_type", pa.string()),
        ("answer", pa.string()),
        ("topic_difficulty", pa.string()),
        ("question_type", pa.string()),
        ("subfield", pa.string()),
    ]
)


def row(item: Item, number: int) -> dict[str, object]:
    """One HF row: list columns are Python list reprs, image cells ``{bytes, path}`` or null."""
    item_id = f"validation_Fixture_{number}"
    cells: dict[str, object] = {
        "id": item_id,
        "question": item.question,
        "options": str(list(item.options)),
        "explanation": "",
    }
    for n in range(1, MAX_IMAGES + 1):
        cells[f"image_{n}"] = (
            {"bytes": item.images[n - 1], "path": f"{item_id}_{n}.png"}
            if n <= len(item.images)
            else None
        )
    cells |= {
        "img_type": item.img_type,
        "answer": item.answer,
        "topic_difficulty": item.difficulty,
        "question_type": "multiple-choice",
        "subfield": item.subfield,
    }
    return cells


def parquet_bytes(items: Sequence[Item]) -> bytes:
    """Serialise with fixed writer options; pyarrow output is stable for identical input."""
    table = pa.Table.from_pylist([row(item, n) for n, item in enumerate(items, 1)], SCHEMA)
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="snappy", row_group_size=len(items))
    return buffer.getvalue()


def write(folder: Path, items: Sequence[Item]) -> list[Path]:
    return [write_bytes(folder / FILE_NAME, parquet_bytes(items))]
