"""Builds on the real MMLongBench-Doc and MMMU copies in ../shared/data (skipped without them)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image

from abstain_build import BuildConfig, build
from abstain_build.content.timeref import coverage, find_years

from .conftest import read_jsonl

#: The first 24 questions cover all four kinds of the shared documents (a slide deck and a
#: report with no text layer, a guidebook, a survey report with years to drift) at half
#: the time of 30.
REAL_QUESTIONS = 24


@pytest.fixture(scope="module")
def mmlbd_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    from .conftest import SHARED_DATA

    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent (real MMLongBench-Doc / MMMU copies)")
    out = tmp_path_factory.mktemp("real") / "mmlbd"
    config = BuildConfig(
        source=str(SHARED_DATA / "mmlongbench-doc"),
        out=str(out),
        seed=7,
        workers=2,
        limit=REAL_QUESTIONS,
        routing="none",  # every transform on every real document it fits
        qc="none",  # the judges have their own tests; here: transforms and the gate
        # Every sample edited, whatever the blind check says (it has its own tests): the
        # readings it learns from grow with every reading round.
        blind_policy="record",
    )
    return out, build(config)


def test_real_documents_build_without_errors(mmlbd_run) -> None:
    out, result = mmlbd_run
    assert read_jsonl(out / "errors.jsonl") == []
    assert result.exit_code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["records_in"] == REAL_QUESTIONS
    assert (
        manifest["counts"]["items"]["answerable"] + sum(manifest["counts"]["skipped"].values())
        == REAL_QUESTIONS
    )


def test_real_hidden_pages_are_blank_in_pixels_and_text(mmlbd_run) -> None:
    out, _ = mmlbd_run
    checked = 0
    for record in read_jsonl(out / "data.jsonl"):
        if not record["transform"] or record["transform"]["name"] != "hide_evidence_page":
            continue
        document = pymupdf.open(out / record["document"])
        hidden = record["transform"]["edits"]["pages_hidden"]
        for number, image in zip(record["evidence_pages"], record["images"], strict=True):
            if number in hidden:
                assert document[number - 1].get_text().strip() == ""
                assert np.asarray(Image.open(out / image).convert("L")).min() == 255
                checked += 1
    # Questions readers answered from recall get no page edit (blind check from readings).
    assert checked >= 5


@pytest.fixture(scope="module")
def drift_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """temporal_drift alone over every shared question that names a year (the first
    :data:`REAL_QUESTIONS` of the full build hold too few since drifts of dated surveys
    and public filings are declined)."""
    from .conftest import SHARED_DATA

    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent (real MMLongBench-Doc / MMMU copies)")
    shared = SHARED_DATA / "mmlongbench-doc"
    samples = json.loads((shared / "samples.json").read_text(encoding="utf-8"))
    dated = [s for s in samples if find_years(s["question"])]
    source = tmp_path_factory.mktemp("dated") / "mmlbd"
    (source / "documents").mkdir(parents=True)
    for doc_id in {s["doc_id"] for s in dated}:
        (source / "documents" / doc_id).write_bytes((shared / "documents" / doc_id).read_bytes())
    (source / "samples.json").write_text(json.dumps(dated), encoding="utf-8")
    out = source.parent / "out"
    build(
        BuildConfig(
            source=str(source),
            out=str(out),
            seed=7,
            workers=2,
            routing="none",
            transforms=["temporal_drift"],
            qc="none",
            blind_policy="record",
        )
    )
    return out


def test_real_temporal_drift_leaves_the_documents_period(drift_run: Path) -> None:
    out = drift_run
    drifted = [
        r
        for r in read_jsonl(out / "data.jsonl")
        if r["transform"] and r["transform"]["name"] == "temporal_drift"
    ]
    assert drifted, "some real questions name a year"
    for record in drifted:
        with pymupdf.open(out / record["document"]) as document:
            covered = coverage(page.get_text() for page in document)
        params = json.loads(record["transform"]["params"])  # JSON text in the record
        first, last = params["coverage"]  # the period, widened to the question's years
        assert covered.first >= first and covered.last <= last
        moved = [mention.year for mention in find_years(record["question"])]
        assert not any(first <= year <= last for year in moved), record["question"]
        assert min(moved) <= last + 3 and max(moved) >= first - 3, "never decades away"


def test_real_mmmu_parquet_items_are_darkened(shared_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "mmmu"
    config = BuildConfig(
        source=str(shared_data / "mmmu" / "hf-parquet"),
        out=str(out),
        transforms=["adaptive_darkness"],
        blind_policy="record",  # every item, whatever its question needs
    )
    result = build(config)
    records = read_jsonl(out / "data.jsonl")
    assert sum(r["answerable"] for r in records) == 11
    # Darkening is refused, with the reason, where the image prints the answer's words.
    refused = read_jsonl(out / "errors.jsonl") if (out / "errors.jsonl").exists() else []
    assert result.exit_code == (1 if refused else 0)
    assert all("answer-bearing text" in e["reason"] for e in refused)
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    unscored = sum(counts["not_applicable"].get("routing", {}).values())  # nothing fits
    assert len(refused) + unscored + sum(not r["answerable"] for r in records) == 11
    assert len(refused) < 11
    controls = {r["group_id"]: r for r in records if r["answerable"]}
    for record in records:
        if record["answerable"]:
            continue
        assert record["transform"]["name"] == "adaptive_darkness"
        original = np.asarray(
            Image.open(out / controls[record["group_id"]]["images"][0]).convert("RGB"), float
        )
        dark = np.asarray(Image.open(out / record["images"][0]).convert("RGB"), float)
        assert abs(dark.mean() - original.mean() / 15) < 0.6


def test_the_real_documents_build_exports_and_reloads_field_for_field(
    mmlbd_run, tmp_path: Path
) -> None:
    from abstain_build.export import export_dataset

    from .test_export import assert_nothing_private, assert_same_as_built

    out, _ = mmlbd_run
    exported = tmp_path / "hub"
    result = export_dataset(out, exported)
    assert_same_as_built(out, exported)
    assert_nothing_private(out, exported)
    assert "license: cc-by-nc-4.0" in (exported / "README.md").read_text()
    assert result.documents == len(list((exported / "documents").glob("*.pdf")))
