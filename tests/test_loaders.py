"""Behaviour of the loaders: layout detection, parsing, ids, streaming and path safety."""

from __future__ import annotations

import ast
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from PIL import Image

from abstain_build.errors import ConfigError, SampleError
from abstain_build.loaders import (
    JsonlSource,
    MMLongBenchSource,
    MMMUJsonlSource,
    MMMUParquetSource,
    open_source,
)
from abstain_build.loaders.common import IdAllocator, parse_list, parse_pages, resolve_inside
from abstain_build.model import Sample, SampleProblem

from .conftest import gradient_image, make_pdf, png_bytes, write_jsonl

ROOT = Path(__file__).resolve().parents[1]
SAFE_ID = re.compile(r"^[A-Za-z0-9._-]+$")
PLACEHOLDER = re.compile(r"<image\s*\d+>", re.IGNORECASE)
IMAGE_STRUCT = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
PARQUET_FILE = "validation-00000-of-00001.parquet"


def _id(item: Sample | SampleProblem) -> str:
    return item.sample_id if isinstance(item, SampleProblem) else item.id


def _samples(items: list) -> list[Sample]:
    return [item for item in items if isinstance(item, Sample)]


def _write_hf_parquet(path: Path, rows: list[dict], row_group_size: int = 64) -> Path:
    """Rows in the column layout of the Hugging Face ``MMMU/MMMU`` parquet files."""
    columns: dict[str, pa.Array] = {
        "id": pa.array([r["id"] for r in rows], pa.string()),
        "question": pa.array([r["question"] for r in rows], pa.string()),
        "options": pa.array([r["options"] for r in rows], pa.string()),
        "explanation": pa.array(["" for _ in rows], pa.string()),
    }
    for n in range(1, 8):
        cells = [
            {"bytes": r[f"image_{n}"], "path": f"{r['id']}_{n}.png"}
            if r.get(f"image_{n}")
            else None
            for r in rows
        ]
        columns[f"image_{n}"] = pa.array(cells, IMAGE_STRUCT)
    columns["img_type"] = pa.array(["['Diagrams']" for _ in rows], pa.string())
    columns["answer"] = pa.array([r["answer"] for r in rows], pa.string())
    columns["topic_difficulty"] = pa.array(["Easy" for _ in rows], pa.string())
    columns["question_type"] = pa.array(["multiple-choice" for _ in rows], pa.string())
    columns["subfield"] = pa.array(["Testing" for _ in rows], pa.string())
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(columns), path, row_group_size=row_group_size)
    return path


def _noise_png(seed: int, size: int = 64) -> bytes:
    """An incompressible PNG, so that each row really carries its own image bytes."""
    rng = np.random.default_rng(seed)
    return png_bytes(rng.integers(0, 256, (size, size, 3), dtype=np.uint8))


@pytest.fixture
def image_dataset(tmp_path: Path) -> Path:
    """A folder with one image and one two-page PDF, for generic JSONL records."""
    root = tmp_path / "data"
    (root / "images").mkdir(parents=True)
    (root / "images" / "a.png").write_bytes(png_bytes(gradient_image(32, 24)))
    make_pdf(root / "docs" / "r.pdf", [("Revenue was 12.5", ""), ("Page two", "")])
    return root


def _load_generic(root: Path, records: list) -> list:
    return list(JsonlSource(write_jsonl(root / "data.jsonl", records)))


# --------------------------------------------------------------------------------------
# Real data (../shared/data): skipped when absent.


@pytest.fixture
def real_mmlb(shared_data: Path) -> tuple[list, list[dict]]:
    folder = shared_data / "mmlongbench-doc"
    records = json.loads((folder / "samples.json").read_text(encoding="utf-8"))
    return list(open_source(folder)), records


@pytest.fixture
def real_parquet(shared_data: Path) -> tuple[list, list[dict]]:
    folder = shared_data / "mmmu" / "hf-parquet"
    rows = pq.read_table(folder / PARQUET_FILE).to_pylist()
    return list(open_source(folder)), rows


@pytest.fixture
def real_mmmu_jsonl(shared_data: Path) -> tuple[list, list[dict]]:
    file = shared_data / "mmmu" / "samples.jsonl"
    records = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line]
    return list(open_source(file)), records


@pytest.mark.shared_data
def test_real_mmlongbench_has_89_samples_and_18_not_answerable_skips(real_mmlb) -> None:
    items, _ = real_mmlb
    samples = _samples(items)
    skips = [i for i in items if isinstance(i, SampleProblem) and i.skip]
    assert (len(items), len(samples), len(skips)) == (107, 89, 18)
    assert all("Not answerable" in problem.reason for problem in skips)


@pytest.mark.shared_data
def test_real_mmlongbench_evidence_pages_are_1_based_int_tuples_from_the_list_repr(
    real_mmlb,
) -> None:
    items, records = real_mmlb
    for sample in _samples(items):
        source_pages = ast.literal_eval(records[sample.source.index]["evidence_pages"])
        assert isinstance(sample.evidence_pages, tuple)
        assert all(type(page) is int and page >= 1 for page in sample.evidence_pages)
        assert sample.evidence_pages == tuple(source_pages), sample.id


@pytest.mark.shared_data
def test_real_mmlongbench_list_answers_stay_as_the_source_text(real_mmlb) -> None:
    items, records = real_mmlb
    lists = [s for s in _samples(items) if s.answer_format == "List"]
    assert lists, "the real data has List answers"
    for sample in lists:
        assert sample.answer == records[sample.source.index]["answer"]
        assert sample.answer.startswith("[")


@pytest.mark.shared_data
def test_real_mmmu_parquet_ids_come_from_the_id_column(real_parquet) -> None:
    items, rows = real_parquet
    assert len(_samples(items)) == len(items) == 11
    assert [item.id for item in items] == [row["id"] for row in rows]


@pytest.mark.shared_data
def test_real_mmmu_parquet_images_are_embedded_bytes_that_decode(real_parquet) -> None:
    items, _ = real_parquet
    for sample in items:
        assert sample.images
        for ref in sample.images:
            assert ref.path is None and isinstance(ref.data, bytes)
            with Image.open(io.BytesIO(ref.data)) as image:
                image.load()
                assert image.width > 0 and image.height > 0


@pytest.mark.shared_data
def test_real_mmmu_parquet_options_are_the_literal_of_the_list_repr(real_parquet) -> None:
    items, rows = real_parquet
    for sample, row in zip(items, rows, strict=True):
        assert isinstance(row["options"], str)  # stored as a Python list repr
        assert sample.options == tuple(ast.literal_eval(row["options"]))
        assert all(isinstance(option, str) for option in sample.options)


@pytest.mark.shared_data
def test_real_mmmu_jsonl_gives_21_samples(real_mmmu_jsonl) -> None:
    items, _ = real_mmmu_jsonl
    assert len(_samples(items)) == len(items) == 21


@pytest.mark.shared_data
def test_real_mmmu_jsonl_multi_image_item_keeps_its_5_images_in_order(real_mmmu_jsonl) -> None:
    items, _ = real_mmmu_jsonl
    (music,) = [s for s in items if s.id == "test_Music_251"]
    assert [ref.key for ref in music.images] == [f"image_{n}" for n in range(1, 6)]
    assert [ref.path.name for ref in music.images] == [
        f"test_Music_251_{n}.png" for n in range(1, 6)
    ]


@pytest.mark.shared_data
def test_real_mmmu_jsonl_ids_are_the_first_image_stem(real_mmmu_jsonl) -> None:
    items, records = real_mmmu_jsonl
    expected = [re.sub(r"_1$", "", Path(r["image_1"]).stem) for r in records]
    assert [item.id for item in items] == expected


@pytest.mark.shared_data
def test_real_mmmu_jsonl_image_placeholders_are_preserved_verbatim(real_mmmu_jsonl) -> None:
    items, records = real_mmmu_jsonl
    for sample, record in zip(items, records, strict=True):
        assert PLACEHOLDER.findall(sample.question) == PLACEHOLDER.findall(record["question"])
        assert sample.question == record["question"].strip()
        assert list(sample.options) == record["options"]


@pytest.mark.shared_data
@pytest.mark.parametrize(
    "relative", ["mmlongbench-doc", "mmmu", "mmmu/samples.jsonl", "mmmu/hf-parquet"]
)
def test_real_count_matches_the_items_yielded(shared_data: Path, relative: str) -> None:
    source = open_source(shared_data / relative)
    assert source.count() == len(list(source))


# --------------------------------------------------------------------------------------
# Layout detection on the shipped fixtures.


@pytest.mark.parametrize(
    ("relative", "kind"),
    [
        ("mmmu", MMMUJsonlSource),
        ("mmmu-parquet", MMMUParquetSource),
        ("mmlongbench-doc", MMLongBenchSource),
        ("mmmu/samples.jsonl", MMMUJsonlSource),
        (f"mmmu-parquet/{PARQUET_FILE}", MMMUParquetSource),
        ("mmlongbench-doc/samples.json", MMLongBenchSource),
    ],
)
def test_detection_picks_the_source_class_of_the_layout(
    fixtures_dir: Path, relative: str, kind: type
) -> None:
    assert type(open_source(fixtures_dir / relative)) is kind


@pytest.mark.parametrize(
    ("relative", "format", "kind"),
    [
        ("mmmu", "mmmu", MMMUJsonlSource),
        ("mmmu", "jsonl", JsonlSource),
        ("mmmu-parquet", "mmmu", MMMUParquetSource),
        ("mmlongbench-doc", "mmlongbench", MMLongBenchSource),
        ("mmlongbench-doc/samples.json", "mmlongbench", MMLongBenchSource),
    ],
)
def test_forced_format_picks_that_source_class(
    fixtures_dir: Path, relative: str, format: str, kind: type
) -> None:
    assert type(open_source(fixtures_dir / relative, format=format)) is kind


@pytest.mark.parametrize(
    ("relative", "format"),
    [
        ("mmmu", "mmlongbench"),
        ("mmmu-parquet", "jsonl"),
        ("mmmu-parquet", "mmlongbench"),
        ("mmlongbench-doc", "mmmu"),
        ("mmlongbench-doc", "jsonl"),
        ("mmlongbench-doc/samples.json", "mmmu"),
    ],
)
def test_impossible_forced_format_is_a_config_error(
    fixtures_dir: Path, relative: str, format: str
) -> None:
    with pytest.raises(ConfigError):
        open_source(fixtures_dir / relative, format=format)


def test_unknown_format_name_is_a_config_error(fixtures_dir: Path) -> None:
    with pytest.raises(ConfigError, match="unknown format"):
        open_source(fixtures_dir / "mmmu", format="coco")


def test_folder_without_a_known_layout_is_a_config_error_mentioning_format(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.txt").write_text("nothing to load here")
    (tmp_path / "picture.png").write_bytes(png_bytes(gradient_image(8, 8)))
    with pytest.raises(ConfigError, match="--format"):
        open_source(tmp_path)


def test_missing_source_path_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        open_source(tmp_path / "nope")


def test_jsonl_and_parquet_fixtures_hold_the_same_items_in_the_same_order(
    fixtures_dir: Path,
) -> None:
    def content(folder: str) -> list[tuple[str, str, tuple[str, ...], int]]:
        items = list(open_source(fixtures_dir / folder))
        assert all(isinstance(item, Sample) for item in items)
        return [(s.question, s.answer, s.options, len(s.images)) for s in items]

    jsonl, parquet = content("mmmu"), content("mmmu-parquet")
    assert jsonl and jsonl == parquet


# --------------------------------------------------------------------------------------
# parse_list / parse_pages: literals only, never code.


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text()))
def test_parse_list_round_trips_a_python_list_repr(values: list[str]) -> None:
    assert parse_list(str(values), "options") == values


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text()), st.booleans())
def test_parse_list_round_trips_json(values: list[str], ascii_only: bool) -> None:
    assert parse_list(json.dumps(values, ensure_ascii=ascii_only), "options") == values


@pytest.mark.parametrize(
    "template",
    [
        "__import__('os').system('touch {marker}')",
        "[__import__('os').system('touch {marker}')]",
        "[open('{marker}', 'w')]",
        "(lambda: __import__('os').system('touch {marker}'))()",
    ],
)
def test_parse_list_rejects_code_without_running_it(tmp_path: Path, template: str) -> None:
    marker = tmp_path / "pwned"
    with pytest.raises(SampleError) as caught:
        parse_list(template.format(marker=marker), "options")
    assert caught.value.stage == "load"
    assert not marker.exists()


def test_parse_list_rejects_a_bare_import_call_in_a_list() -> None:
    with pytest.raises(SampleError, match="not a list literal"):
        parse_list("[__import__('os')]", "options")


@pytest.mark.parametrize(
    "text",
    ["'abc'", "42", "1e999", "{'a': 1}", "{1, 2}", "None", "b'ab'", "{[]: 1}", "{{}}", "NaN"],
)
def test_parse_list_rejects_non_list_literals(text: str) -> None:
    with pytest.raises(SampleError):
        parse_list(text, "options")


def test_parse_list_rejects_deeply_nested_input_with_a_sample_error() -> None:
    depth = 50_000
    with pytest.raises(SampleError):
        parse_list("[" * depth + "]" * depth, "options")


def test_parse_list_accepts_arrays_from_parquet() -> None:
    assert parse_list(np.array(["a", "b"]), "options") == ["a", "b"]


@pytest.mark.parametrize(
    "pages",
    ["[0]", "[-1]", "[3, 0]", "[1.5]", "['x']", "['1.0']", "[True]", "[None]", "[Infinity]"],
)
def test_parse_pages_rejects_what_is_not_a_1_based_page_number(pages: str) -> None:
    with pytest.raises(SampleError):
        parse_pages(pages)


def test_parse_pages_rejects_a_python_bool_even_though_it_is_an_int() -> None:
    with pytest.raises(SampleError, match="not a page number"):
        parse_pages([True])


def test_parse_pages_reports_page_zero_as_1_based() -> None:
    with pytest.raises(SampleError, match="page 0 is invalid"):
        parse_pages("[0]")


@given(st.lists(st.integers(min_value=1, max_value=500), max_size=20))
def test_parse_pages_dedupes_keeping_first_occurrence_order(pages: list[int]) -> None:
    assert parse_pages(str(pages)) == tuple(dict.fromkeys(pages))


# --------------------------------------------------------------------------------------
# Ids.

_ID_SCRIPT = """
import json, sys
from abstain_build.loaders import open_source
out = {}
for path in sys.argv[1:]:
    out[path] = [getattr(i, "id", None) or i.sample_id for i in open_source(path)]
print(json.dumps(out))
"""


def test_ids_are_identical_across_processes_with_different_hash_seeds(
    fixtures_dir: Path,
) -> None:
    paths = [str(fixtures_dir / name) for name in ("mmmu", "mmmu-parquet", "mmlongbench-doc")]
    runs = [
        subprocess.run(
            [sys.executable, "-c", _ID_SCRIPT, *paths],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env=dict(os.environ, PYTHONHASHSEED=seed),
            timeout=120,
        ).stdout
        for seed in ("1", "2")
    ]
    assert runs[0] == runs[1]
    assert all(json.loads(runs[0]).values())


@pytest.mark.parametrize("name", ["mmmu", "mmmu-parquet", "mmlongbench-doc"])
def test_ids_are_stable_across_two_loads(fixtures_dir: Path, name: str) -> None:
    first = [_id(i) for i in open_source(fixtures_dir / name)]
    second = [_id(i) for i in open_source(fixtures_dir / name)]
    assert first == second


def test_mmlongbench_ids_are_document_stem_plus_content_hash(fixtures_dir: Path) -> None:
    for item in open_source(fixtures_dir / "mmlongbench-doc"):
        stem = Path(item.document.doc_id).stem if isinstance(item, Sample) else r"[\w.-]+"
        assert re.fullmatch(rf"{stem}-[0-9a-f]{{8}}", _id(item)), _id(item)


def test_mmlongbench_ids_do_not_depend_on_record_order(fixtures_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "mmlb"
    shutil.copytree(fixtures_dir / "mmlongbench-doc", copy)
    records = json.loads((copy / "samples.json").read_text(encoding="utf-8"))
    original = {item.source.index: _id(item) for item in open_source(copy)}
    (copy / "samples.json").write_text(json.dumps(records[::-1]), encoding="utf-8")
    reordered = {item.source.index: _id(item) for item in open_source(copy)}
    last = len(records) - 1
    assert len(original) == len(records) > 1
    assert all(reordered[last - index] == sid for index, sid in original.items())


def test_duplicate_generic_ids_get_numbered_suffixes(image_dataset: Path) -> None:
    record = {"id": "dup", "question": "Q?", "answer": "a", "images": ["images/a.png"]}
    assert [_id(i) for i in _load_generic(image_dataset, [record] * 3)] == [
        "dup",
        "dup-2",
        "dup-3",
    ]


def test_duplicate_mmlongbench_records_get_a_2_suffix(fixtures_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "mmlb"
    shutil.copytree(fixtures_dir / "mmlongbench-doc", copy)
    records = json.loads((copy / "samples.json").read_text(encoding="utf-8"))
    (copy / "samples.json").write_text(json.dumps([records[0], records[0]]), encoding="utf-8")
    first, second = (_id(i) for i in open_source(copy))
    assert second == f"{first}-2"


def test_suffixed_ids_never_collide_with_an_id_the_source_already_uses(
    image_dataset: Path,
) -> None:
    records = [
        {"id": sid, "question": "Q?", "answer": "a", "images": ["images/a.png"]}
        for sid in ("x", "x", "x-2")
    ]
    ids = [_id(i) for i in _load_generic(image_dataset, records)]
    assert len(set(ids)) == len(ids), ids


@given(st.lists(st.one_of(st.text(max_size=12), st.sampled_from(["x", "x-2", "x-3", "", "."]))))
@example(["x", "x", "x-2"])
@example(["a" * 100, "a" * 96, "a" * 97])
def test_allocated_ids_are_unique_and_filesystem_safe(wanted: list[str]) -> None:
    allocate = IdAllocator()
    ids = [allocate(w) for w in wanted]
    assert len(set(ids)) == len(ids)
    assert all(SAFE_ID.fullmatch(i) and i not in (".", "..") for i in ids)


def test_generic_ids_from_hostile_source_ids_are_filesystem_safe(image_dataset: Path) -> None:
    hostile = ["../../etc/passwd", "a/b\\c", "with space", "ünïcødé", ".", "..", "", "-", "C:x"]
    records = [
        {"id": sid, "question": f"Q{n}?", "answer": "a", "images": ["images/a.png"]}
        for n, sid in enumerate(hostile)
    ]
    ids = [_id(i) for i in _load_generic(image_dataset, records)]
    assert all(SAFE_ID.fullmatch(i) and i not in (".", "..") for i in ids), ids
    assert len(set(ids)) == len(ids)


# --------------------------------------------------------------------------------------
# Streaming and counts.


@pytest.mark.parametrize(
    "relative",
    [
        "mmmu",
        "mmmu-parquet",
        "mmlongbench-doc",
        "mmmu/samples.jsonl",
        f"mmmu-parquet/{PARQUET_FILE}",
    ],
)
def test_fixture_count_matches_the_items_yielded(fixtures_dir: Path, relative: str) -> None:
    source = open_source(fixtures_dir / relative)
    assert source.count() == len(list(source)) > 0


_BLANK = st.text(alphabet=st.sampled_from(" \t\x0b\x0c\r\u00a0\u2003\u3000\x1f\x85"), max_size=3)
_LINE = st.one_of(
    st.just('{"id": "r", "question": "Q?", "answer": "a"}'),
    st.just('{"id": "broken", '),
    st.just("[1, 2]"),
    _BLANK,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_LINE, max_size=12), st.sampled_from(["\n", "\r\n"]))
def test_generic_jsonl_count_matches_the_items_yielded(lines: list[str], newline: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "data.jsonl"
        file.write_bytes(newline.join(lines).encode("utf-8"))
        source = JsonlSource(file)
        assert source.count() == len(list(source))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(['{"image_1": "x.png", "question": "Q?"}', "", "  ", "\u00a0"])))
def test_mmmu_jsonl_count_matches_the_items_yielded(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "samples.jsonl"
        file.write_text("\n".join(lines), encoding="utf-8")
        source = MMMUJsonlSource(file)
        assert source.count() == len(list(source))


@pytest.fixture(scope="module")
def big_parquet(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    rows = [
        {
            "id": f"validation_Stream_{n}",
            "question": f"<image 1> Row {n}: what is shown?",
            "options": str(["yes", "no", f"option {n}"]),
            "answer": "A",
            "image_1": _noise_png(n),
        }
        for n in range(200)
    ]
    path = tmp_path_factory.mktemp("stream") / "part.parquet"
    _write_hf_parquet(path, rows, row_group_size=64)
    return path, sum(len(r["image_1"]) for r in rows)


def test_parquet_with_many_rows_streams_every_row_in_order(big_parquet) -> None:
    path, _ = big_parquet
    source = open_source(path)
    items = list(source)
    assert source.count() == len(items) == 200
    assert [_id(i) for i in items] == [f"validation_Stream_{n}" for n in range(200)]
    assert [i.source.index for i in items] == list(range(200))
    assert items[123].options == ("yes", "no", "option 123")


def test_parquet_iteration_does_not_hold_all_rows_in_memory(big_parquet) -> None:
    path, image_bytes = big_parquet
    source = open_source(path)
    tracemalloc.start()
    try:
        seen = sum(1 for _ in source)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == 200
    assert peak < image_bytes / 3, f"peak {peak:,} B for {image_bytes:,} B of images"


def test_parquet_folder_is_read_file_by_file_in_sorted_order(tmp_path: Path) -> None:
    image = png_bytes(gradient_image(8, 8))
    for part, names in (("b", ["b1", "b2"]), ("a", ["a1"]), ("c/deeper", ["c1"])):
        rows = [
            {"id": n, "question": "Q?", "options": "['x']", "answer": "A", "image_1": image}
            for n in names
        ]
        _write_hf_parquet(tmp_path / part / "train.parquet", rows)
    assert [_id(i) for i in open_source(tmp_path)] == ["a1", "b1", "b2", "c1"]


# --------------------------------------------------------------------------------------
# resolve_inside.


def test_resolve_inside_refuses_a_symlink_pointing_outside_the_root(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside.png"
    root.mkdir()
    outside.write_bytes(b"x")
    (root / "link.png").symlink_to(outside)
    with pytest.raises(SampleError, match="outside the dataset root"):
        resolve_inside(root, "link.png", "image_1")


def test_resolve_inside_accepts_a_nested_relative_path(tmp_path: Path) -> None:
    target = tmp_path / "root" / "a" / "b" / "c.png"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"x")
    assert resolve_inside(tmp_path / "root", "a/b/c.png", "image_1") == target.resolve()


def test_resolve_inside_refuses_an_absolute_path_outside_the_root(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    outside = tmp_path / "secret.png"
    outside.write_bytes(b"x")
    with pytest.raises(SampleError, match="outside the dataset root"):
        resolve_inside(tmp_path / "root", str(outside.resolve()), "image_1")


def test_resolve_inside_refuses_dotdot_that_climbs_out_from_a_base(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "secret.png").write_bytes(b"x")
    with pytest.raises(SampleError, match="outside the dataset root"):
        resolve_inside(root, "../../secret.png", "image_1", base=root / "sub")


# --------------------------------------------------------------------------------------
# Generic JSONL.


def test_generic_record_with_both_images_and_pdf_is_an_error(image_dataset: Path) -> None:
    record = {
        "id": "both",
        "question": "Revenue?",
        "answer": "12.5",
        "images": ["images/a.png"],
        "pdf": "docs/r.pdf",
        "evidence_pages": [1],
    }
    (item,) = _load_generic(image_dataset, [record])
    assert isinstance(item, SampleProblem) and not item.skip
    assert "images or a pdf, not both" in item.reason


@pytest.mark.parametrize(
    ("answer", "text"),
    [(12.5, "12.5"), (12, "12"), (3.0, "3"), (["a", "b"], '["a", "b"]'), ([1, 2.5], "[1, 2.5]")],
)
def test_generic_non_text_answers_become_text(image_dataset: Path, answer, text: str) -> None:
    record = {"question": "Q?", "answer": answer, "images": ["images/a.png"]}
    (sample,) = _load_generic(image_dataset, [record])
    assert isinstance(sample, Sample)
    assert sample.answer == text


def test_generic_metadata_is_carried_through(image_dataset: Path) -> None:
    metadata = {"split": "dev", "tags": ["x", "y"], "nested": {"n": 1}}
    record = {"question": "Q?", "answer": "a", "images": ["images/a.png"], "metadata": metadata}
    (sample,) = _load_generic(image_dataset, [record])
    assert isinstance(sample, Sample)
    assert sample.metadata == metadata


def test_generic_pdf_record_becomes_a_document_sample(image_dataset: Path) -> None:
    record = {
        "question": "Revenue?",
        "answer": "12.5",
        "pdf": "docs/r.pdf",
        "evidence_pages": "[2, 1, 2]",
    }
    (sample,) = _load_generic(image_dataset, [record])
    assert isinstance(sample, Sample)
    assert sample.document is not None and sample.document.doc_id == "r.pdf"
    assert sample.evidence_pages == (2, 1)


def test_generic_deeply_nested_line_is_an_error_record_not_a_crash(image_dataset: Path) -> None:
    depth = 50_000
    nested = '{"id": "deep", "question": "Q?", "answer": "a", "metadata": ' + (
        "[" * depth + "]" * depth + "}"
    )
    good = {"id": "good", "question": "Q?", "answer": "a", "images": ["images/a.png"]}
    file = write_jsonl(image_dataset / "data.jsonl", [nested, good])
    items = list(open_source(file))
    assert isinstance(items[0], SampleProblem) and not items[0].skip
    assert isinstance(items[1], Sample) and items[1].id == "good"


def test_mmlongbench_deeply_nested_samples_json_is_a_config_error(tmp_path: Path) -> None:
    depth = 50_000
    (tmp_path / "samples.json").write_text("[" * depth + "]" * depth)
    with pytest.raises(ConfigError):
        list(open_source(tmp_path))


def test_jsonl_with_a_byte_order_mark_loads_its_first_record(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "a.png").write_bytes(png_bytes(gradient_image()))
    line = json.dumps({"id": "first", "question": "Q?", "answer": "a", "images": ["images/a.png"]})
    (tmp_path / "data.jsonl").write_bytes(b"\xef\xbb\xbf" + line.encode() + b"\n")
    items = list(open_source(tmp_path / "data.jsonl"))
    assert [getattr(i, "id", None) for i in items] == ["first"]


@pytest.mark.parametrize("answer", [None, "", "   "])
def test_an_empty_answer_is_an_error_record(tmp_path: Path, answer) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "a.png").write_bytes(png_bytes(gradient_image()))
    write_jsonl(
        tmp_path / "data.jsonl", [{"question": "Q?", "answer": answer, "images": ["images/a.png"]}]
    )
    (item,) = list(open_source(tmp_path / "data.jsonl"))
    assert isinstance(item, SampleProblem) and "answer is empty" in item.reason


def test_numeric_zero_is_a_valid_source_id(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "a.png").write_bytes(png_bytes(gradient_image()))
    write_jsonl(
        tmp_path / "data.jsonl",
        [{"id": 0, "question": "Q?", "answer": True, "images": ["images/a.png"]}],
    )
    (item,) = list(open_source(tmp_path / "data.jsonl"))
    assert item.id == "0" and item.source.source_id == "0" and item.answer == "true"


def test_a_folder_with_several_jsonl_files_asks_for_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text("{}\n")
    (tmp_path / "b.jsonl").write_text("{}\n")
    with pytest.raises(
        ConfigError, match=r"several \.jsonl files \(a\.jsonl, b\.jsonl\): pass the file"
    ):
        open_source(tmp_path)
