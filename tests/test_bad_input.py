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
            {"id": "surrogate", "question": "Q\ud800?", "answer": "a", "images": IMAGE},
            # No id: the id is made from the content, which holds the surrogate.
            {"question": "R\udfff?", "answer": "a", "images": IMAGE},
            {"id": "question-number", "question": 42, "answer": "a", "images": IMAGE},
            {"id": "answer-nan", "question": "Q?", "answer": float("nan"), "images": IMAGE},
            {"id": "answer-empty-list", "question": "Q?", "answer": [], "images": IMAGE},
            {
                "id": "bad-options",
                "question": "Q?",
                "answer": "A",
                "options": [1, None, {"a": 1}],
                "images": IMAGE,
            },
            {"id": "image-9", "question": "<image 9> What?", "answer": "a", "images": IMAGE},
            {"id": "png-named-pdf", "question": "Q?", "answer": "a", **pdf("docs/fake.pdf")},
            {"id": "html-named-pdf", "question": "Q?", "answer": "a", **pdf("docs/page.pdf")},
            {
                "id": "huge-page",
                "question": "Q?",
                "answer": "a",
                "pdf": "docs/good.pdf",
                "evidence_pages": [10**30],
            },
        ],
    )
    (root / "docs" / "fake.pdf").write_bytes(png_bytes(gradient_image()))
    (root / "docs" / "page.pdf").write_text("<!DOCTYPE html><html><body>404</body></html>")
    with (root / "data.jsonl").open("ab") as handle:  # line 23: Latin-1, not UTF-8
        handle.write(b'{"id": "bad-bytes", "question": "Caf\xe9?", "answer": "a"}\n')
    return root


IMAGE = ["images/good.png"]


def pdf(path: str) -> dict:
    return {"pdf": path, "evidence_pages": [1]}


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
    "surrogate": "lone UTF-16 surrogate (U+D800)",
    "question-number": "the question is int ('42'), not text",
    "answer-nan": "the answer is nan, not a value",
    "answer-empty-list": "the answer is an empty list",
    "bad-options": "option 2 is null",
    "image-9": "refers to <image 9> but the record has 1 image(s)",
    "png-named-pdf": "not a PDF: its content is a PNG image",
    "html-named-pdf": "not a PDF: its content is an HTML page",
    "huge-page": "page 1e+30 is beyond any document",
    "line-00024": "not valid UTF-8 (byte 0xe9",
}


@pytest.mark.parametrize("sample_id", sorted(EXPECTED))
def test_each_bad_record_gets_a_clear_error_record(bad_run, sample_id: str) -> None:
    _, _, errors = bad_run
    assert sample_id in errors, f"no error record for {sample_id}; got {sorted(errors)}"
    assert EXPECTED[sample_id] in errors[sample_id]["reason"]
    assert errors[sample_id]["stage"] in ("load", "validate")


def test_a_record_without_id_holding_a_lone_surrogate_gets_its_error_too(bad_run) -> None:
    _, _, errors = bad_run
    reasons = [e["reason"] for e in errors.values()]
    assert any("lone UTF-16 surrogate (U+DFFF)" in reason for reason in reasons), reasons


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
    # EXPECTED, and the record without an id whose content id is not known in advance
    assert manifest["counts"]["samples"]["error"] == len(errors) == len(EXPECTED) + 1


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


MMLBD_RECORD = {
    "doc_id": "doc.pdf",
    "doc_type": "Report",
    "question": "Sales in 2019?",
    "answer": "10",
    "evidence_pages": "[1]",
    "evidence_sources": "['Pure-text (Plain-text)']",
    "answer_format": "Int",
}


def test_mmlongbench_record_problems_are_per_sample(tmp_path: Path) -> None:
    root = tmp_path / "mmlbd"
    make_pdf(root / "documents" / "doc.pdf", [("Sales in 2019 were 10", ""), ("More text", "")])
    record = dict(MMLBD_RECORD)
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


def test_a_tiny_pdf_page_is_built_not_dropped_as_not_applicable(tmp_path: Path) -> None:
    import pymupdf

    root = tmp_path / "tiny"
    (root / "docs").mkdir(parents=True)
    document = pymupdf.open()
    document.new_page(width=25, height=25).insert_text((2, 12), "12.5", fontsize=6)
    document.save(root / "docs" / "tiny.pdf")
    write_jsonl(
        root / "data.jsonl",
        [{"question": "Revenue in 2020?", "answer": "12.5", **pdf("docs/tiny.pdf")}],
    )
    result = build(BuildConfig(source=str(root / "data.jsonl"), out=str(tmp_path / "out")))
    assert result.exit_code == 0
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert "routing" not in manifest["counts"]["not_applicable"]
    assert manifest["counts"]["items"]["unanswerable"] == 1


def test_a_scoring_failure_is_an_error_record_not_a_choice() -> None:
    from abstain_build.routing.route import NOT_ROUTED, Balancer, SampleScores

    decision = Balancer().choose(SampleScores("s", "evidence_sufficiency", problem="boom"))
    assert decision.reason.startswith(NOT_ROUTED) and not decision.chain


def test_a_16_bit_png_keeps_its_tones(tmp_path: Path) -> None:
    from abstain_build.media.images import decode_image

    ramp = (np.arange(256 * 32).reshape(32, 256) * 8).astype(np.uint16)  # 0 .. 65528
    path = tmp_path / "wide.png"
    Image.fromarray(ramp).save(path)
    assert Image.open(path).mode.startswith("I")
    pixels = decode_image(path.read_bytes(), "wide.png")
    assert pixels.dtype == np.uint8 and pixels.min() == 0 and pixels.max() >= 254
    assert abs(float(pixels.mean()) - ramp.mean() / 257) < 1  # scaled, not clipped white


def test_an_exif_turned_photo_is_upright_in_control_and_counterpart(tmp_path: Path) -> None:
    root = tmp_path / "exif"
    (root / "images").mkdir(parents=True)
    wide = Image.fromarray(gradient_image(120, 60))
    exif = Image.Exif()
    exif[0x0112] = 6  # stored landscape, shown turned 90 degrees: 60 wide, 120 tall
    wide.save(root / "images" / "photo.jpg", exif=exif.tobytes())
    write_jsonl(
        root / "data.jsonl",
        [{"question": "What does <image 1> show?", "answer": "a", "images": ["images/photo.jpg"]}],
    )
    out = tmp_path / "out"
    build(
        BuildConfig(
            source=str(root / "data.jsonl"), out=str(out), transforms=["aggressive_multi_mask"]
        )
    )
    rows = read_jsonl(out / "data.jsonl")
    sizes = {r["kind"]: Image.open(out / r["images"][0]).size for r in rows}
    assert sizes == {"original": (60, 120), "counterpart": (60, 120)}


def test_a_samples_json_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    root = tmp_path / "mmlbd"
    make_pdf(root / "documents" / "doc.pdf", [("Sales in 2019 were 10", "")])
    record = dict(MMLBD_RECORD)
    (root / "samples.json").write_bytes(b"\xef\xbb\xbf" + json.dumps([record]).encode())
    result = build(BuildConfig(source=str(root), out=str(tmp_path / "out")))
    assert result.counts.answerable["evidence_sufficiency"] == 1


def test_an_image_path_that_is_no_path_is_refused_per_record(tmp_path: Path) -> None:
    from abstain_build.loaders import open_source

    root = tmp_path / "mmmu"
    root.mkdir()
    rows = [
        {"question": "<image 1> Q?", "answer": "A", "options": "['x', 'y']", "image_1": image}
        for image in ({"path": "a.png"}, "x" * 5000, 7)
    ]
    write_jsonl(root / "samples.jsonl", rows)
    reasons = [item.reason for item in open_source(root / "samples.jsonl", "mmmu")]
    assert reasons[0] == "image_1: expected a path (text), got dict"
    assert reasons[1].startswith("image_1: not a usable path")
    assert reasons[2] == "image_1: expected a path (text), got int"


def test_surrogates_huge_numbers_and_odd_formats_are_per_sample_errors(tmp_path: Path) -> None:
    """A lone surrogate in metadata, an id, answer_format or an MMLongBench doc_type stopped
    the whole run at commit (and every resume at the same record); 1e308 became a 309-digit
    answer and a format object its Python repr. Each is now the record's own error."""
    root = tmp_path / "data"
    (root / "images").mkdir(parents=True)
    (root / "images" / "a.png").write_bytes(png_bytes(gradient_image()))
    good = {"question": "What is shown?", "answer": "a", "images": ["images/a.png"]}
    write_jsonl(
        root / "data.jsonl",
        [
            dict(good, id="good"),
            dict(good, id="meta-value", metadata={"note": "\ud800"}),
            dict(good, id="meta-key", metadata={"k\udfff": 1}),
            dict(good, id="bad\ud83did"),
            dict(good, id="format-surrogate", answer_format="Str\ud800"),
            dict(good, id="format-object", answer_format={"x": 1}),
            dict(good, id="huge", answer=1e308),
            dict(good, id="inexact", answer=1e23),
        ],
    )
    out = tmp_path / "out"
    result = build(BuildConfig(source=str(root), out=str(out), seed=1))
    errors = {e["sample_id"]: e["reason"] for e in read_jsonl(out / "errors.jsonl")}
    assert "surrogate" in errors["meta-value"] and "metadata" in errors["meta-value"]
    assert "surrogate" in errors["meta-key"] and "key" in errors["meta-key"]
    assert "surrogate" in errors["bad-ud83did"] and "the id" in errors["bad-ud83did"]
    assert "answer_format" in errors["format-surrogate"]
    assert "answer_format is dict" in errors["format-object"]
    assert "too large" in errors["huge"] and "too large" in errors["inexact"]
    assert len(errors) == 7
    assert result.counts.answerable  # the good record went through
    # MMLongBench's doc_type.
    mmlbd = tmp_path / "mmlbd"
    make_pdf(mmlbd / "documents" / "doc.pdf", [("Sales in 2019 were 10", ""), ("More", "")])
    (mmlbd / "samples.json").write_text(
        json.dumps([MMLBD_RECORD, dict(MMLBD_RECORD, question="Typed?", doc_type="Rep\ud800")])
    )
    build(BuildConfig(source=str(mmlbd), out=str(tmp_path / "out2")))
    (reason,) = [e["reason"] for e in read_jsonl(tmp_path / "out2" / "errors.jsonl")]
    assert "surrogate" in reason and "doc_type" in reason


def test_errors_are_the_same_bytes_wherever_the_dataset_lives(
    bad_dataset: Path, tmp_path: Path
) -> None:
    """Reasons held object addresses (`<_io.BytesIO object at 0x7f...>`) and the dataset's
    absolute path: two builds of one dataset differed. Now a copy elsewhere gives the same
    errors.jsonl, byte for byte."""
    import shutil

    copies = []
    for where in ("first", "second/deeper"):
        data = tmp_path / where / "data"
        shutil.copytree(bad_dataset, data)
        (data / "images" / "not-an-image.png").write_bytes(b"these bytes are no picture")
        extra = {"id": "no-picture", "question": "Q?", "answer": "a"}
        extra["images"] = ["images/not-an-image.png"]
        with (data / "data.jsonl").open("ab") as stream:  # the file holds bad UTF-8 on purpose
            stream.write(json.dumps(extra).encode() + b"\n")
        build(BuildConfig(source=str(data), out=str(tmp_path / where / "out"), seed=3))
        copies.append((tmp_path / where / "out" / "errors.jsonl").read_bytes())
    assert copies[0] == copies[1]
    text = copies[0].decode()
    assert " at 0x" not in text and str(tmp_path) not in text
    assert "no-picture" in text and "images/corrupt.png" in text


def test_scoring_refuses_an_oversized_page_without_rendering_it(tmp_path: Path) -> None:
    """The routing pass only scores a sample: it checks the evidence pages' render size,
    as the build does, without drawing them (the build draws them once, for the control)."""
    from abstain_build.errors import InputError
    from abstain_build.media.inputs import InputLimits, SampleInputs
    from abstain_build.model import DocumentRef, Sample, SourceInfo

    pdf = make_pdf(tmp_path / "doc.pdf", [("Revenue in 2020 was 12.5", "Costs were 3.1")])
    sample = Sample(
        id="doc",
        source=SourceInfo(dataset="t", layout="generic", file="data.jsonl", index=0),
        question="What was revenue in 2020?",
        answer="12.5",
        document=DocumentRef(path=pdf, doc_id="doc.pdf"),
        evidence_pages=(1,),
    )
    scored = SampleInputs(sample)
    scored.validate(render=False)
    assert scored._renders is None
    built = SampleInputs(sample)
    built.validate()
    assert built._renders and built._renders[0].startswith(b"\x89PNG")
    for render in (False, True):
        tight = SampleInputs(sample, InputLimits(max_pixels=1000))
        with pytest.raises(InputError, match="above the limit"):
            tight.validate(render=render)
