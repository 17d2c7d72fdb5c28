"""Any JSON value in any field gives a sample or a per-record problem with a reason:
never an exception, never a sample with something that is not text where text belongs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abstain_build.loaders import open_source
from abstain_build.model import Sample, SampleProblem

from .conftest import gradient_image, make_pdf, png_bytes

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(exclude_categories=()), max_size=20)  # lone surrogates too
    | st.sampled_from(["images/ok.png", "docs/ok.pdf", "[1]", "<image 1> Q?", "", "  "])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = ["id", "question", "answer", "options", "images", "pdf", "evidence_pages",
          "answer_format", "metadata", "image_1", "doc_id"]  # fmt: skip
#: Valid records of each layout, then any of their fields replaced by any JSON value: most
#: records stay close to valid, so odd values reach the checks past the first refusal.
VALID = {
    "jsonl": {"question": "<image 1> What is it?", "answer": "A", "options": ["x", "y"],
              "images": ["images/ok.png"]},
    "mmmu": {"question": "<image 1> What is it?", "answer": "A", "options": "['x', 'y']",
             "image_1": "images/ok.png"},
    "mmlongbench": {"doc_id": "ok.pdf", "question": "Revenue?", "answer": "12.5",
                    "evidence_pages": "[1]", "answer_format": "Float"},
}  # fmt: skip


def records(layout: str) -> st.SearchStrategy[list[dict]]:
    changed = st.fixed_dictionaries({}, optional={field: JSON for field in FIELDS})
    dropped = st.sets(st.sampled_from(sorted(VALID[layout])), max_size=2)
    one = st.builds(
        lambda new, gone: {
            **{k: v for k, v in VALID[layout].items() if k not in gone},
            **new,
        },
        changed,
        dropped,
    )
    return st.lists(one, min_size=1, max_size=4)


def dataset(root: Path) -> Path:
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "images" / "ok.png").write_bytes(png_bytes(gradient_image(32, 24)))
    if not (root / "docs" / "ok.pdf").exists():
        make_pdf(root / "docs" / "ok.pdf", [("Revenue was 12.5", "")])
    return root


def check(items: list) -> None:
    for item in items:
        assert isinstance(item, (Sample, SampleProblem))
        if isinstance(item, SampleProblem):
            assert item.reason.strip()
            continue
        for text in (item.question, item.answer, *item.options):
            assert isinstance(text, str) and text.strip()
            text.encode("utf-8")  # no lone surrogate reaches the output
        # No value that is not an answer stringified into one (NaN, [], null, an object).
        assert item.answer.lower() not in STRINGIFIED
        for option in item.options:
            assert option.lower() not in STRINGIFIED and not option.startswith("{")


STRINGIFIED = {"nan", "inf", "-inf", "infinity", "-infinity", "[]", "none", "null"}


SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,  # the same examples on every run: CI is reproducible
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.mark.parametrize(("layout", "file"), [("jsonl", "data.jsonl"), ("mmmu", "samples.jsonl")])
@SETTINGS
@given(data=st.data())
def test_json_lines_records_of_any_shape(tmp_path_factory, data, layout: str, file: str) -> None:
    rows = data.draw(records(layout))
    root = dataset(tmp_path_factory.mktemp(layout))
    lines = [json.dumps(r, allow_nan=True) for r in rows]
    (root / file).write_text("\n".join(lines) + "\n", encoding="utf-8")
    check(list(open_source(root / file, layout)))


@SETTINGS
@given(records=records("mmlongbench"))
def test_mmlongbench_records_of_any_shape(tmp_path_factory, records: list[dict]) -> None:
    root = dataset(tmp_path_factory.mktemp("mmlbd"))
    (root / "documents").mkdir(exist_ok=True)
    (root / "documents" / "ok.pdf").write_bytes((root / "docs" / "ok.pdf").read_bytes())
    (root / "samples.json").write_text(json.dumps(records, allow_nan=True), encoding="utf-8")
    check(list(open_source(root, "mmlongbench")))
