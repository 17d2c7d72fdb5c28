"""The committed fixtures are reproducible, small, and faithful to the published layouts."""

from __future__ import annotations

import ast
import io
import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pymupdf
import pytest
from PIL import Image

from abstain_build.fixturegen import generate

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
REAL_PARQUET = ROOT.parent / "shared/data/mmmu/hf-parquet/validation-00000-of-00001.parquet"
MAX_BYTES = 5 * 1024 * 1024
MMLB_KEYS = {
    "doc_id",
    "doc_type",
    "question",
    "answer",
    "evidence_pages",
    "evidence_sources",
    "answer_format",
}
HF_COLUMNS = [
    "id",
    "question",
    "options",
    "explanation",
    *(f"image_{n}" for n in range(1, 8)),
    "img_type",
    "answer",
    "topic_difficulty",
    "question_type",
    "subfield",
]
PLACEHOLDER = re.compile(r"<image\s*(\d+)>")


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    out = tmp_path_factory.mktemp("fixtures")
    return out, generate(out)


def test_regeneration_is_byte_identical_to_committed(regenerated: tuple[Path, list[Path]]) -> None:
    out, _ = regenerated
    committed, fresh = _tree(FIXTURES), _tree(out)
    assert committed, f"no committed fixtures under {FIXTURES}"
    assert sorted(committed) == sorted(fresh), "file sets differ; rerun the generator"
    changed = [name for name in committed if committed[name] != fresh[name]]
    assert not changed, f"regenerated files differ from the committed ones: {changed}"


def test_generating_twice_gives_identical_bytes(
    regenerated: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    out, _ = regenerated
    generate(tmp_path)
    assert _tree(tmp_path) == _tree(out)


def test_generate_returns_every_written_file_sorted(regenerated: tuple[Path, list[Path]]) -> None:
    out, written = regenerated
    assert written == sorted(written)
    assert written == sorted(p for p in out.rglob("*") if p.is_file())


def test_fixtures_are_small() -> None:
    total = sum(len(data) for data in _tree(FIXTURES).values())
    assert 0 < total < MAX_BYTES, f"fixtures take {total:,} bytes"


# --- MMLongBench-Doc -------------------------------------------------------------------------


def _mmlb() -> tuple[list[dict[str, str]], dict[str, pymupdf.Document]]:
    folder = FIXTURES / "mmlongbench-doc"
    records = json.loads((folder / "samples.json").read_text(encoding="utf-8"))
    docs = {p.name: pymupdf.open(p) for p in sorted((folder / "documents").glob("*.pdf"))}
    return records, docs


def _normal(text: str) -> str:
    return " ".join(text.replace(",", "").split()).lower()


def _image_only(page: pymupdf.Page) -> bool:
    return page.get_text().strip() == "" and bool(page.get_images())


def test_mmlongbench_records_have_the_release_shape() -> None:
    records, docs = _mmlb()
    assert isinstance(records, list) and len(records) >= 10
    for record in records:
        assert set(record) == MMLB_KEYS
        assert all(isinstance(value, str) for value in record.values())
        assert record["doc_id"] in docs
        pages = ast.literal_eval(record["evidence_pages"])
        sources = ast.literal_eval(record["evidence_sources"])
        assert isinstance(pages, list) and isinstance(sources, list)
        assert record["answer_format"] in {"Str", "Int", "Float", "List", "None"}
        if record["answer_format"] == "List":
            assert isinstance(ast.literal_eval(record["answer"]), list)
    unanswerable = [r for r in records if r["answer"] == "Not answerable"]
    assert len(unanswerable) == 1
    assert unanswerable[0]["answer_format"] == "None"
    assert unanswerable[0]["evidence_pages"] == "[]"
    kinds = {r["answer_format"] for r in records}
    assert {"Str", "Int", "Float", "List", "None"} <= kinds
    assert any(len(ast.literal_eval(r["evidence_pages"])) > 1 for r in records)


def test_evidence_pages_exist_and_answers_are_in_the_text_layer() -> None:
    records, docs = _mmlb()
    for record in records:
        doc = docs[record["doc_id"]]
        pages = ast.literal_eval(record["evidence_pages"])
        assert all(1 <= page <= doc.page_count for page in pages), record
        if record["answer"] == "Not answerable":
            continue
        assert pages, f"answerable record without evidence: {record['question']}"
        if record["answer_format"] not in {"Str", "Int", "Float"}:
            continue
        if any(_image_only(doc[page - 1]) for page in pages):
            continue
        text = _normal(" ".join(doc[page - 1].get_text() for page in pages))
        assert _normal(record["answer"]) in text, (record["question"], record["answer"])


def test_exactly_one_image_only_page_and_it_has_evidence() -> None:
    records, docs = _mmlb()
    image_only = [
        (name, n + 1)
        for name, doc in docs.items()
        for n, page in enumerate(doc)
        if page.get_text().strip() == ""
    ]
    assert len(image_only) == 1
    name, number = image_only[0]
    doc = docs[name]
    assert doc[number - 1].get_images(), "the scanned page must hold a raster"
    assert any(page.get_text().strip() for page in doc)
    assert any(
        r["doc_id"] == name and ast.literal_eval(r["evidence_pages"]) == [number] for r in records
    ), "no question relies on the image-only page"


def test_pdfs_carry_no_volatile_metadata() -> None:
    _, docs = _mmlb()
    for doc in docs.values():
        assert doc.metadata["creationDate"] == "" and doc.metadata["modDate"] == ""
        assert 4 <= doc.page_count <= 8


# --- MMMU ------------------------------------------------------------------------------------


def _jsonl() -> list[dict[str, object]]:
    lines = (FIXTURES / "mmmu/samples.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _parquet() -> pa.Table:
    return pq.read_table(FIXTURES / "mmmu-parquet/validation-00000-of-00001.parquet")


def test_mmmu_jsonl_items_are_complete() -> None:
    items = _jsonl()
    assert 6 <= len(items) <= 12
    stems = []
    for item in items:
        assert "id" not in item
        options = item["options"]
        assert isinstance(options, list) and 4 <= len(options) <= 5
        assert re.fullmatch(r"[A-Z]", str(item["answer"]))
        assert ord(str(item["answer"])) - ord("A") < len(options)
        images = {
            int(key.split("_")[1]): value for key, value in item.items() if key.startswith("image_")
        }
        assert sorted(images) == list(range(1, len(images) + 1))
        wanted = {int(n) for n in PLACEHOLDER.findall(str(item["question"]))}
        assert wanted and wanted <= set(images), item["question"]
        for path in images.values():
            file = FIXTURES / "mmmu" / str(path)
            with Image.open(file) as image:
                image.load()
                assert image.format == "PNG" and 200 <= image.width <= 1000
        stems.append(Path(str(images[1])).stem)
    assert len(set(stems)) == len(stems)
    assert all(stem.endswith("_1") for stem in stems)
    assert any(len([k for k in item if k.startswith("image_")]) > 1 for item in items)


def test_mmmu_parquet_matches_the_hf_layout() -> None:
    schema = _parquet().schema
    if REAL_PARQUET.is_file():
        real = pq.read_schema(REAL_PARQUET)
        assert schema.names == real.names
        assert [f.type for f in schema] == [f.type for f in real]
    else:
        assert schema.names == HF_COLUMNS
    image_type = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    for field in schema:
        expected = image_type if field.name.startswith("image_") else pa.string()
        assert field.type == expected, field.name


def test_mmmu_parquet_and_jsonl_hold_the_same_items() -> None:
    rows = _parquet().to_pylist()
    items = _jsonl()
    assert len(rows) == len(items)
    for number, (row, item) in enumerate(zip(rows, items, strict=True), start=1):
        assert row["id"] == f"validation_Fixture_{number}"
        assert row["question"] == item["question"]
        assert row["answer"] == item["answer"]
        assert ast.literal_eval(row["options"]) == item["options"]
        assert isinstance(ast.literal_eval(row["img_type"]), list)
        for n in range(1, 8):
            cell, path = row[f"image_{n}"], item.get(f"image_{n}")
            if path is None:
                assert cell is None
                continue
            assert cell["path"] == f"{row['id']}_{n}.png"
            assert cell["bytes"] == (FIXTURES / "mmmu" / str(path)).read_bytes()
            with Image.open(io.BytesIO(cell["bytes"])) as image:
                image.load()
