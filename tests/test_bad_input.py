"""Bad input becomes a clear per-sample error record; the run goes on and says some failed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from abstain_build import BuildConfig, build
from abstain_build.media.images import DEFAULT_MAX_PIXELS

from .conftest import gradient_image, make_pdf, png_bytes, read_jsonl, run_cli, write_jsonl


@pytest.fixture(scope="module")
def bad_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generic-JSONL dataset mixing good records with one of each kind of breakage."""
    root = tmp_path_factory.mktemp("bad") / "data"
    (root / "images").mkdir(parents=True)
    (root / "images" / "good.png").write_bytes(png_bytes(gradient_image()))
    good_png = png_bytes(gradient_image(64, 48))
    (root / "images" / "corrupt.png").write_bytes(good_png[: len(good_png) // 3])
    Image.new("1", (20000, 20000)).save(root / "images" / "huge.png")
    make_pdf(
        root / "docs" / "good.pdf",
        [("Revenue in 2020 was 12.5", "Costs were 3.1"), ("Page two", "")],
    )
    full = (root / "docs" / "good.pdf").read_bytes()
    (root / "docs" / "truncated.pdf").write_bytes(full[: len(full) // 2])
    (root.parent / "outside.png").write_bytes(png_bytes(gradient_image()))
    write_jsonl(
        root / "data.jsonl",
        [
            {
                "id": "good-image",
                "question": "What is shown?",
                "answer": "a",
                "images": ["images/good.png"],
            },
            {
                "id": "good-pdf",
                "question": "Revenue in 2020?",
                "answer": "12.5",
                "pdf": "docs/good.pdf",
                "evidence_pages": [1],
            },
            {
                "id": "corrupt-png",
                "question": "Q?",
                "answer": "a",
                "images": ["images/corrupt.png"],
            },
            {
                "id": "truncated-pdf",
                "question": "Q?",
                "answer": "a",
                "pdf": "docs/truncated.pdf",
                "evidence_pages": [1],
            },
            {"id": "missing-image", "question": "Q?", "answer": "a", "images": ["images/nope.png"]},
            '{"id": "malformed", "question": "Q?", "answer": ',
            {"id": "no-answer", "question": "Q?", "images": ["images/good.png"]},
            {
                "id": "page-out-of-range",
                "question": "Q?",
                "answer": "a",
                "pdf": "docs/good.pdf",
                "evidence_pages": [7],
            },
            {
                "id": "page-zero",
                "question": "Q?",
                "answer": "a",
                "pdf": "docs/good.pdf",
                "evidence_pages": [0],
            },
            {"id": "huge-image", "question": "Q?", "answer": "a", "images": ["images/huge.png"]},
            {"id": "escape", "question": "Q?", "answer": "a", "images": ["../outside.png"]},
            {
                "id": "etc-passwd",
                "question": "Q?",
                "answer": "a",
                "images": ["../../../../../../etc/passwd"],
            },
            {
                "id": "empty-question",
                "question": "   ",
                "answer": "a",
                "images": ["images/good.png"],
            },
        ],
    )
    return root


@pytest.fixture(scope="module")
def bad_run(bad_dataset: Path, tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("bad-out") / "run"
    result = build(BuildConfig(source=str(bad_dataset / "data.jsonl"), out=str(out)))
    errors = {e["sample_id"]: e for e in read_jsonl(out / "errors.jsonl")}
    return result, out, errors


EXPECTED = {
    "corrupt-png": "corrupt or truncated",
    "truncated-pdf": "truncated",
    "missing-image": "file not found",
    "line-00006": "malformed JSON",
    "no-answer": "missing required field(s): answer",
    "page-out-of-range": "evidence page 7 is out of range",
    "page-zero": "page 0 is invalid",
    "huge-image": "above the limit",
    "escape": "outside the dataset root",
    "etc-passwd": "outside the dataset root",
    "empty-question": "question is empty",
}


@pytest.mark.parametrize("sample_id", sorted(EXPECTED))
def test_each_bad_record_gets_a_clear_error_record(bad_run, sample_id: str) -> None:
    _, _, errors = bad_run
    assert sample_id in errors, f"no error record for {sample_id}; got {sorted(errors)}"
    assert EXPECTED[sample_id] in errors[sample_id]["reason"]
    assert errors[sample_id]["stage"] in ("load", "validate")


def test_good_records_still_come_through(bad_run) -> None:
    _, out, _ = bad_run
    groups = {r["group_id"] for r in read_jsonl(out / "data.jsonl")}
    assert groups == {"good-image", "good-pdf"}


def test_huge_image_is_refused_before_decoding(bad_run) -> None:
    _, _, errors = bad_run
    assert "20000x20000" in errors["huge-image"]["reason"]
    assert f"{DEFAULT_MAX_PIXELS:,}" in errors["huge-image"]["reason"]


def test_exit_status_and_manifest_report_the_failures(bad_run) -> None:
    result, out, errors = bad_run
    assert result.exit_code == 1
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["counts"]["samples"]["error"] == len(errors) == len(EXPECTED)


def test_cli_exit_code_is_1_when_samples_fail(bad_dataset: Path, tmp_path: Path) -> None:
    done = run_cli(
        "transform", str(bad_dataset), "--out", str(tmp_path / "o"), "--limit", "3", "-q"
    )
    assert done.returncode == 1, done.stderr
    assert len(read_jsonl(tmp_path / "o" / "errors.jsonl")) == 1


def test_unreadable_source_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "samples.json").write_text("{ not json")
    done = run_cli("transform", str(tmp_path), "--out", str(tmp_path / "o"))
    assert done.returncode == 2
    assert "not valid JSON" in done.stderr
    assert "Traceback" not in done.stderr


def test_mmlongbench_record_problems_are_per_sample(tmp_path: Path) -> None:
    root = tmp_path / "mmlbd"
    make_pdf(root / "documents" / "doc.pdf", [("Sales in 2019 were 10", ""), ("More text", "")])
    record = {
        "doc_id": "doc.pdf",
        "doc_type": "Report",
        "question": "Sales in 2019?",
        "answer": "10",
        "evidence_pages": "[1]",
        "evidence_sources": "['Pure-text (Plain-text)']",
        "answer_format": "Int",
    }
    records = [
        record,
        dict(record, question="Empty evidence?", evidence_pages="[]"),
        dict(record, question="Page zero?", evidence_pages="[0]"),
        dict(record, question="Beyond?", evidence_pages="[5]"),
        dict(record, question="Gone?", answer="Not answerable", answer_format="None"),
        {"doc_id": "doc.pdf", "question": "no answer field"},
        dict(record, doc_id="../../secret.pdf", question="Escape?"),
    ]
    (root / "samples.json").write_text(json.dumps(records))
    result = build(BuildConfig(source=str(root), out=str(tmp_path / "out")))
    reasons = [e["reason"] for e in read_jsonl(tmp_path / "out" / "errors.jsonl")]
    assert any("evidence_pages is empty" in r for r in reasons)
    assert any("page 0 is invalid" in r for r in reasons)
    assert any("evidence page 5 is out of range" in r and "has 2 pages" in r for r in reasons)
    assert any("missing required field(s): answer, evidence_pages" in r for r in reasons)
    assert any("outside the dataset root" in r for r in reasons)
    assert len(reasons) == 5
    assert result.counts.skipped and sum(result.counts.skipped.values()) == 1
    assert result.counts.answerable["evidence_sufficiency"] == 1


def test_paletted_and_grayscale_images_are_accepted(tmp_path: Path) -> None:
    root = tmp_path / "modes"
    (root / "images").mkdir(parents=True)
    Image.fromarray(gradient_image()).convert("P").save(root / "images" / "p.png")
    Image.fromarray(gradient_image()[..., 0]).save(root / "images" / "l.png")
    Image.fromarray(gradient_image(channels=4), "RGBA").save(root / "images" / "rgba.png")
    write_jsonl(
        root / "data.jsonl",
        [
            {"id": name, "question": "What is it?", "answer": "x", "images": [f"images/{name}.png"]}
            for name in ("p", "l", "rgba")
        ],
    )
    result = build(
        BuildConfig(
            source=str(root / "data.jsonl"),
            out=str(tmp_path / "out"),
            transforms=["adaptive_darkness"],
        )
    )
    assert result.exit_code == 0
    assert result.counts.by_transform["adaptive_darkness"] == 3
    assert (
        np.asarray(
            Image.open(tmp_path / "out" / "assets" / "l" / "adaptive_darkness" / "image_1.png")
        ).ndim
        == 2
    )
